using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;

namespace Missive.Transport;

/// <summary>
/// The operations the bus needs from SQS, SNS and EventBridge. The in-memory broker implements it;
/// an AWS SDK adapter can implement it for the real services.
/// </summary>
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
}
