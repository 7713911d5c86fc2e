using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;

namespace Missive.Transport;

/// <summary>
/// The operations the bus needs from SQS, SNS and EventBridge. The in-memory broker implements it;
/// the Missive.Aws package implements it for the real services.
/// </summary>
/// <remarks>
/// The batch operations have default implementations that make one call per entry, so a transport
/// only overrides them when its service has batch calls. Each entry of a batch succeeds or fails on
/// its own; a batch call throws only when no entry could be attempted. A batch call returns each entry's last
/// outcome: whatever the transport retries, it retries inside the call (the bus does not send a failed entry again).
/// </remarks>
public interface IMessageTransport
{
    /// <summary>Sends a message to a queue.</summary>
    /// <param name="request">The message. Must not be null.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    /// <returns>The SQS message id.</returns>
    /// <exception cref="MessageTransportException">The queue does not exist or the message breaks its limits.</exception>
    Task<string> SendAsync(SqsSendRequest request, CancellationToken cancellationToken = default);

    /// <summary>Publishes a message to a topic.</summary>
    /// <param name="request">The message. Must not be null.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    /// <returns>The SNS message id.</returns>
    /// <exception cref="MessageTransportException">The topic does not exist or the message breaks its limits.</exception>
    Task<string> PublishAsync(SnsPublishRequest request, CancellationToken cancellationToken = default);

    /// <summary>Puts an event on an event bus.</summary>
    /// <param name="entry">The event. Must not be null.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    /// <returns>The EventBridge event id.</returns>
    /// <exception cref="MessageTransportException">The bus does not exist or the event breaks its limits.</exception>
    Task<string> PutEventAsync(EventBridgeEntry entry, CancellationToken cancellationToken = default);

    /// <summary>
    /// Gets what the transport is and where it sends, for the log line the bus writes when the host starts (for example
    /// the service endpoints, the region and where the credentials come from; never a secret). By default, its type's name.
    /// </summary>
    string Description => GetType().Name;

    /// <summary>
    /// Gets whether cancelling a <see cref="ReceiveAsync"/> loses nothing. On SQS it can: a long poll whose request is
    /// abandoned may still be given messages, which then stay invisible for their visibility timeout with nobody to
    /// handle or release them. When <c>false</c> (the default), a queue poller that stops lets the receive in flight
    /// finish (within its wait time) and releases what it got, instead of cancelling it.
    /// </summary>
    bool IsReceiveCancellationSafe => false;

    /// <summary>
    /// Gets whether the messages the transport sends can be received by other processes (SQS, SNS and EventBridge: yes;
    /// the in-memory broker: no). The bus then refuses, at startup, a payload store only this process can read. By
    /// default <c>false</c>: a transport of the application's own says so when it does.
    /// </summary>
    bool DeliversToOtherProcesses => false;

    /// <summary>
    /// Gets whether the transport is done with a send request's body (<see cref="SqsSendRequest.Utf8Body"/>)
    /// when the call's task completes: it keeps no reference to that memory past the call (it sends the body within
    /// it, or copies what it keeps). When <c>true</c>, the bus writes bodies into pooled arrays and takes them back
    /// (cleared) once the call is over; when <c>false</c> (the default: a transport may queue requests to send later),
    /// every body is an array of its own.
    /// </summary>
    bool IsDoneWithBodiesWhenCallsComplete => false;

    /// <summary>Receives up to <paramref name="maxMessages"/> messages, waiting up to <paramref name="waitTime"/> for the first (long polling).</summary>
    /// <param name="queueName">The queue.</param>
    /// <param name="maxMessages">At most this many (1 to 10).</param>
    /// <param name="waitTime">How long to wait when none is available.</param>
    /// <param name="visibilityTimeout">How long received messages stay invisible, or <c>null</c> for the queue's default.</param>
    /// <param name="cancellationToken">Cancels the wait.</param>
    /// <returns>The messages, maybe none.</returns>
    Task<IReadOnlyList<SqsMessage>> ReceiveAsync(string queueName, int maxMessages, TimeSpan waitTime, TimeSpan? visibilityTimeout = null, CancellationToken cancellationToken = default);

    /// <summary>Deletes a received message.</summary>
    /// <param name="queueName">The queue.</param>
    /// <param name="receiptHandle">The receipt handle of the receipt being deleted.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    /// <returns><c>false</c> when the receipt is no longer current (the message became visible and was received again).</returns>
    Task<bool> DeleteAsync(string queueName, string receiptHandle, CancellationToken cancellationToken = default);

    /// <summary>Changes how long a received message stays invisible; zero makes it visible at once.</summary>
    /// <param name="queueName">The queue.</param>
    /// <param name="receiptHandle">The receipt handle.</param>
    /// <param name="visibilityTimeout">The new timeout from now.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    /// <returns><c>false</c> when the receipt is no longer current.</returns>
    Task<bool> ChangeVisibilityAsync(string queueName, string receiptHandle, TimeSpan visibilityTimeout, CancellationToken cancellationToken = default);

    /// <summary>Sends several messages; they may go to different queues.</summary>
    /// <param name="requests">The messages. Must not be null.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    /// <returns>One result per request, in request order.</returns>
    Task<IReadOnlyList<BatchEntryResult>> SendBatchAsync(IReadOnlyList<SqsSendRequest> requests, CancellationToken cancellationToken = default)
        => OneByOneAsync(requests, async (request, ct) => (true, await SendAsync(request, ct).ConfigureAwait(false)), cancellationToken);

    /// <summary>Publishes several messages; they may go to different topics.</summary>
    /// <param name="requests">The messages. Must not be null.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    /// <returns>One result per request, in request order.</returns>
    Task<IReadOnlyList<BatchEntryResult>> PublishBatchAsync(IReadOnlyList<SnsPublishRequest> requests, CancellationToken cancellationToken = default)
        => OneByOneAsync(requests, async (request, ct) => (true, await PublishAsync(request, ct).ConfigureAwait(false)), cancellationToken);

    /// <summary>Puts several events on EventBridge; they may go to different buses.</summary>
    /// <param name="entries">The events. Must not be null.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    /// <returns>One result per entry, in order.</returns>
    /// <remarks>By default, a transport's own <see cref="PutEventsAsync"/> (the former name), or one call per entry.</remarks>
    Task<IReadOnlyList<BatchEntryResult>> PutEventBatchAsync(IReadOnlyList<EventBridgeEntry> entries, CancellationToken cancellationToken = default)
#pragma warning disable CS0618 // a transport written for the former name keeps its batch calls
        => PutEventsAsync(entries, cancellationToken);
#pragma warning restore CS0618

    /// <summary>Puts several events on EventBridge: the former name of <see cref="PutEventBatchAsync"/>, which the bus calls.</summary>
    /// <param name="entries">The events. Must not be null.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    /// <returns>One result per entry, in order.</returns>
    [Obsolete("Implement and call PutEventBatchAsync, named like SendBatchAsync and PublishBatchAsync. PutEventsAsync will be removed in a later release.")]
    Task<IReadOnlyList<BatchEntryResult>> PutEventsAsync(IReadOnlyList<EventBridgeEntry> entries, CancellationToken cancellationToken = default)
        => OneByOneAsync(entries, async (entry, ct) => (true, await PutEventAsync(entry, ct).ConfigureAwait(false)), cancellationToken);

    /// <summary>Deletes several received messages of one queue.</summary>
    /// <param name="queueName">The queue.</param>
    /// <param name="receiptHandles">The receipt handles. Must not be null.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    /// <returns>One result per receipt handle, in order; an entry whose receipt is no longer current fails.</returns>
    Task<IReadOnlyList<BatchEntryResult>> DeleteBatchAsync(string queueName, IReadOnlyList<string> receiptHandles, CancellationToken cancellationToken = default)
        => OneByOneAsync(receiptHandles, async (handle, ct) => (await DeleteAsync(queueName, handle, ct).ConfigureAwait(false), (string?)null), cancellationToken);

    /// <summary>Changes the visibility of several received messages of one queue.</summary>
    /// <param name="queueName">The queue.</param>
    /// <param name="receiptHandles">The receipt handles. Must not be null.</param>
    /// <param name="visibilityTimeout">The new timeout from now, for every message.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    /// <returns>One result per receipt handle, in order; an entry whose receipt is no longer current fails.</returns>
    Task<IReadOnlyList<BatchEntryResult>> ChangeVisibilityBatchAsync(string queueName, IReadOnlyList<string> receiptHandles, TimeSpan visibilityTimeout, CancellationToken cancellationToken = default)
        => OneByOneAsync(receiptHandles, async (handle, ct) => (await ChangeVisibilityAsync(queueName, handle, visibilityTimeout, ct).ConfigureAwait(false), (string?)null), cancellationToken);

    /// <summary>The batch calls of a transport without batch calls: one call per entry, each failure kept on its entry.</summary>
    private static async Task<IReadOnlyList<BatchEntryResult>> OneByOneAsync<TItem>(IReadOnlyList<TItem> items, Func<TItem, CancellationToken, Task<(bool Current, string? MessageId)>> call, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(items);
        var results = new BatchEntryResult[items.Count];
        for (int i = 0; i < items.Count; i++)
        {
            try
            {
                (bool current, string? messageId) = await call(items[i], cancellationToken).ConfigureAwait(false);
                results[i] = current
                    ? BatchEntryResult.Success(i, messageId)
                    : new BatchEntryResult(i, null, "ReceiptHandleIsInvalid", "The receipt is no longer current.", SenderFault: true);
            }
            catch (MessageTransportException e)
            {
                results[i] = BatchEntryResult.Failure(i, e);
            }
        }

        return results;
    }
}
