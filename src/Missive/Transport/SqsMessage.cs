using System.Collections.Generic;

namespace Missive.Transport;

/// <summary>A message as SQS's ReceiveMessage returns it, with no dependency on the AWS SDK.</summary>
public sealed class SqsMessage
{
    private static readonly Dictionary<string, string> NoSystemAttributes = [];
    private static readonly Dictionary<string, MessageAttributeValue> NoMessageAttributes = [];
    private readonly IReadOnlyDictionary<string, string> _systemAttributes = NoSystemAttributes;
    private readonly IReadOnlyDictionary<string, MessageAttributeValue> _messageAttributes = NoMessageAttributes;

    /// <summary>Gets the body: text (SQS bodies are text; binary envelopes travel as base64).</summary>
    public required string Body { get; init; }

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
