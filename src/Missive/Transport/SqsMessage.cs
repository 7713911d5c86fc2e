using System;
using System.Collections.Generic;

namespace Missive.Transport;

/// <summary>A message as SQS's ReceiveMessage returns it, with no dependency on the AWS SDK.</summary>
/// <remarks>
/// The body is given either as text (<see cref="Body"/>) or as its UTF-8 bytes (<see cref="Utf8Body"/>), as a transport
/// has it: a transport that reads SQS's answer as bytes hands the bytes over, and <see cref="InboundMessageReader"/>
/// reads the envelope from them without a string ever being made; <see cref="Body"/> is decoded from them only when
/// something asks for it.
/// </remarks>
public sealed class SqsMessage
{
    private MessageBody _body;

    private static readonly Dictionary<string, string> NoSystemAttributes = [];
    private static readonly Dictionary<string, MessageAttributeValue> NoMessageAttributes = [];
    private readonly IReadOnlyDictionary<string, string> _systemAttributes = NoSystemAttributes;
    private readonly IReadOnlyDictionary<string, MessageAttributeValue> _messageAttributes = NoMessageAttributes;

    /// <summary>
    /// Gets the body: text (SQS bodies are text; binary envelopes travel as base64). Given as <see cref="Utf8Body"/>, it
    /// is decoded on first use. Empty when neither was given.
    /// </summary>
    public string Body
    {
        get => _body.Text;
        init => _body.Text = value;
    }

    /// <summary>
    /// Gets the body as UTF-8 bytes (valid UTF-8: a transport that sets it has checked). Given as <see cref="Body"/>,
    /// it is encoded on each use: read <see cref="HasUtf8Body"/> to tell which a transport gave.
    /// </summary>
    public ReadOnlyMemory<byte> Utf8Body
    {
        get => _body.Utf8;
        init => _body.Utf8 = value;
    }

    /// <summary>Gets whether the body was given as UTF-8 bytes (<see cref="Utf8Body"/>) rather than as text (give one or the other).</summary>
    public bool HasUtf8Body => _body.HasUtf8;

    /// <summary>The body's length in UTF-8 bytes, without decoding or encoding it when it can be helped.</summary>
    internal int Utf8Length => _body.Utf8Length;

    /// <summary>Gets the body in the form it was given (text or bytes), to send it on as it is.</summary>
    internal MessageBody GivenBody => _body;

    /// <summary>Gets the SQS message id.</summary>
    public string MessageId { get; init; } = string.Empty;

    /// <summary>Gets the receipt handle that deletes or changes the visibility of this receipt of the message.</summary>
    public string ReceiptHandle { get; init; } = string.Empty;

    /// <summary>Gets the system attributes (<c>ApproximateReceiveCount</c>, <c>SentTimestamp</c>, <c>MessageGroupId</c>, …). <c>null</c> (what the AWS SDK for .NET gives when none were asked for) means none.</summary>
    public IReadOnlyDictionary<string, string> SystemAttributes
    {
        get => _systemAttributes;
        init => _systemAttributes = value ?? NoSystemAttributes;
    }

    /// <summary>Gets the message attributes. <c>null</c> means none.</summary>
    public IReadOnlyDictionary<string, MessageAttributeValue> MessageAttributes
    {
        get => _messageAttributes;
        init => _messageAttributes = value ?? NoMessageAttributes;
    }

    /// <summary>The <c>ApproximateReceiveCount</c> system attribute, or 0 when absent or not a number.</summary>
    internal int ReceiveCount => SqsMetadata.ReceiveCountOf(SystemAttributes);
}
