using System;

namespace Missive;

/// <summary>A CloudEvents envelope around a message of type <typeparamref name="T"/>.</summary>
/// <typeparam name="T">The message type.</typeparam>
public sealed class MessageEnvelope<T> : MessageEnvelope
{
    /// <summary>Gets or sets the message (the <c>data</c> of the event).</summary>
    public T Message { get; set; } = default!;

    /// <inheritdoc />
    public override Type MessageType => typeof(T);

    /// <inheritdoc />
    public override object? GetMessage() => Message;
}
