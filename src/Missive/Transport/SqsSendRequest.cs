using System;
using System.Collections.Generic;

namespace Missive.Transport;

/// <summary>What an SQS SendMessage call carries.</summary>
/// <remarks>
/// The body is given either as text (<see cref="Body"/>) or as its UTF-8 bytes (<see cref="Utf8Body"/>), with the
/// names <see cref="SqsMessage"/> uses for what is received: <see cref="OutboundMessageWriter"/> gives the bytes the
/// serializer wrote, which a transport sends as they are, without a string ever being made; <see cref="Body"/> is
/// decoded from them only when something asks for it.
/// </remarks>
public sealed class SqsSendRequest
{
    private MessageBody _body;

    /// <summary>Gets the queue name (the in-memory broker) or URL (a real transport).</summary>
    public required string QueueName { get; init; }

    /// <summary>Gets the body (SQS's <c>MessageBody</c>). Given as <see cref="Utf8Body"/>, it is decoded on first use. Empty when neither was given.</summary>
    public string Body
    {
        get => _body.Text;
        init => _body.Text = value;
    }

    /// <summary>
    /// Gets the body as UTF-8 bytes (valid UTF-8). Given as <see cref="Body"/>, it is encoded on each use: read
    /// <see cref="HasUtf8Body"/> to tell which was given (give one or the other).
    /// </summary>
    public ReadOnlyMemory<byte> Utf8Body
    {
        get => _body.Utf8;
        init => _body.Utf8 = value;
    }

    /// <summary>Gets whether the body was given as UTF-8 bytes (<see cref="Utf8Body"/>) rather than as text.</summary>
    public bool HasUtf8Body => _body.HasUtf8;

    /// <summary>Gets the body: the former name of <see cref="Body"/>.</summary>
    [Obsolete("Use Body, the name SqsMessage uses for the same thing. MessageBody will be removed in a later release.")]
    public string MessageBody
    {
        get => Body;
        init => Body = value;
    }

    /// <summary>Gets the body as UTF-8 bytes: the former name of <see cref="Utf8Body"/>.</summary>
    [Obsolete("Use Utf8Body. Utf8MessageBody will be removed in a later release.")]
    public ReadOnlyMemory<byte> Utf8MessageBody
    {
        get => Utf8Body;
        init => Utf8Body = value;
    }

    /// <summary>Gets whether the body was given as UTF-8 bytes: the former name of <see cref="HasUtf8Body"/>.</summary>
    [Obsolete("Use HasUtf8Body. HasUtf8MessageBody will be removed in a later release.")]
    public bool HasUtf8MessageBody => HasUtf8Body;

    /// <summary>The body's length in UTF-8 bytes, without decoding or encoding it when it can be helped.</summary>
    internal long Utf8Length => _body.Utf8Length;

    /// <summary>Gets or sets the body in the form it was given (text or bytes): a request made from another keeps its form.</summary>
    internal MessageBody GivenBody
    {
        get => _body;
        init => _body = value;
    }

    /// <summary>
    /// Gets or sets the pooled array the body lies in, when the bus rented it for this send (<c>null</c> otherwise): a batch
    /// call holds it while it runs, so that it goes back to the pool only when nothing can read it.
    /// </summary>
    internal Buffers.RentedBody? RentedBody { get; set; }

    /// <summary>Gets the message attributes (at most 10).</summary>
    public IReadOnlyDictionary<string, MessageAttributeValue> MessageAttributes { get; init; } = new Dictionary<string, MessageAttributeValue>();

    /// <summary>Gets the FIFO message group id, or <c>null</c>.</summary>
    public string? MessageGroupId { get; init; }

    /// <summary>Gets the FIFO deduplication id, or <c>null</c>.</summary>
    public string? MessageDeduplicationId { get; init; }

    /// <summary>Gets how long SQS keeps the message invisible after it is sent (SQS's <c>DelaySeconds</c>: 0 to 15 minutes, whole seconds). Default none.</summary>
    public TimeSpan Delay { get; init; }

    /// <summary>
    /// Computes the size SQS counts for this message against its size limits (one message, and a batch's total):
    /// the body plus every attribute's name, type and value, in UTF-8 bytes.
    /// </summary>
    /// <returns>The size in bytes.</returns>
    public long ComputeSize() => SqsRules.MessageSize(Utf8Length, MessageAttributes);
}
