using System;

namespace Missive.Bus;

/// <summary>What became of one message of a batch publish.</summary>
/// <typeparam name="T">The message type.</typeparam>
public sealed class PublishResult<T>
{
    internal PublishResult(int index, T message, MessageEnvelope<T>? envelope, Exception? error)
    {
        Index = index;
        Message = message;
        Envelope = envelope;
        Error = error;
    }

    /// <summary>Gets the message's position in the list given.</summary>
    public int Index { get; }

    /// <summary>Gets the message.</summary>
    public T Message { get; }

    /// <summary>
    /// Gets the envelope, when the publish succeeded: it was sent (its transport message id is not kept here; a publish
    /// middleware that returned without its next step sent nothing, as for a single publish), else <c>null</c>.
    /// </summary>
    public MessageEnvelope<T>? Envelope { get; }

    /// <summary>
    /// Gets why the message was not sent, or <c>null</c>: the exception a single publish of it would have thrown
    /// (<see cref="MessageTransportException"/> for an entry the service refused, with its code and
    /// <see cref="MessageTransportException.IsTransient"/>; <see cref="ArgumentException"/>,
    /// <see cref="InvalidEnvelopeException"/> or <see cref="UserCodeException"/> for one refused before sending).
    /// </summary>
    public Exception? Error { get; }

    /// <summary>Gets whether the message was published.</summary>
    public bool Succeeded => Error is null;
}
