using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;

namespace Missive.Bus;

/// <summary>Publishes application messages, wrapped in envelopes, to the queue, topic or event bus their type is routed to.</summary>
public interface IMessagePublisher
{
    /// <summary>Wraps a message in an envelope and sends it where its type is routed.</summary>
    /// <typeparam name="T">The message type; it must be registered and routed.</typeparam>
    /// <param name="message">The message. Must not be null.</param>
    /// <param name="options">Per-message settings, or <c>null</c>.</param>
    /// <param name="cancellationToken">Cancels the send.</param>
    /// <returns>The envelope that was sent.</returns>
    /// <exception cref="System.ArgumentNullException"><paramref name="message"/> is null.</exception>
    /// <exception cref="MessageBusConfigurationException">The type is not registered (the message says to add <c>AddMessageType</c>) or has no route.</exception>
    /// <exception cref="MessageTransportException">The transport refused the message.</exception>
    Task<MessageEnvelope<T>> PublishAsync<T>(T message, PublishOptions? options = null, CancellationToken cancellationToken = default);

    /// <summary>
    /// Publishes many messages of one type in the service's batch calls (SQS <c>SendMessageBatch</c>, SNS
    /// <c>PublishBatch</c>, EventBridge <c>PutEvents</c>: up to 10 entries and the service's size limit per call). Each
    /// message goes through what a single publish does (its envelope, the publish middleware, the checks, its own span and
    /// metrics); one result per message comes back, in the order given, and a message refused (by a check, its
    /// serializer, a middleware or the service) is that entry's error and stops no other.
    /// </summary>
    /// <typeparam name="T">The message type; it must be registered and routed.</typeparam>
    /// <param name="messages">The messages. Must not be null.</param>
    /// <param name="options">Per-message settings, from the message (or <c>null</c> for none).</param>
    /// <param name="cancellationToken">Cancels the publish.</param>
    /// <returns>One result per message, in the order given.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="messages"/> is null.</exception>
    /// <exception cref="MessageBusConfigurationException">The type is not registered or has no route.</exception>
    /// <remarks>
    /// Retrying failed entries is the transport's (the AWS transport sends an entry the service failed on its side again
    /// under AWS's standard retry mode, not on a FIFO destination, where a later message of its group may already be
    /// sent). Nothing is reported sent that the service did not accept. This default publishes one message after
    /// another; the bus's own publisher makes the batch calls.
    /// </remarks>
    async Task<IReadOnlyList<PublishResult<T>>> PublishBatchAsync<T>(IReadOnlyList<T> messages, Func<T, PublishOptions?>? options = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(messages);
        var results = new PublishResult<T>[messages.Count];
        for (int i = 0; i < messages.Count; i++)
        {
            try
            {
                results[i] = new PublishResult<T>(i, messages[i], await PublishAsync(messages[i], options?.Invoke(messages[i]), cancellationToken).ConfigureAwait(false), null);
            }
            catch (Exception e) when (e is not (OutOfMemoryException or MessageBusConfigurationException))
            {
                results[i] = new PublishResult<T>(i, messages[i], null, e);
            }
        }

        return results;
    }
}
