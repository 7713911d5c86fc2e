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
}
