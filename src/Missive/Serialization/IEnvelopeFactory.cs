namespace Missive.Serialization;

/// <summary>Wraps application messages in envelopes: a new id, the configured source, the registered type identifier and content type, and the current time.</summary>
public interface IEnvelopeFactory
{
    /// <summary>Creates an envelope around a message.</summary>
    /// <typeparam name="T">The message type; it must be registered.</typeparam>
    /// <param name="message">The message. May be null (an event without data).</param>
    /// <returns>A new envelope.</returns>
    /// <exception cref="MessageBusConfigurationException"><typeparamref name="T"/> is not registered.</exception>
    MessageEnvelope<T> CreateEnvelope<T>(T message);

    /// <summary>Creates an envelope around a message, with one of the type identifiers its type is registered under.</summary>
    /// <typeparam name="T">The message type.</typeparam>
    /// <param name="message">The message. May be null (an event without data).</param>
    /// <param name="typeIdentifier">The envelope <c>type</c>: an identifier registered for <typeparamref name="T"/>. Must not be null.</param>
    /// <returns>A new envelope, with the content type registered for that identifier.</returns>
    /// <exception cref="MessageBusConfigurationException">The identifier is not registered for <typeparamref name="T"/>.</exception>
    MessageEnvelope<T> CreateEnvelope<T>(T message, string typeIdentifier);
}
