using System.Collections.Generic;

namespace Missive.Transport;

/// <summary>What an SNS Publish call carries.</summary>
public sealed class SnsPublishRequest
{
    /// <summary>Gets the topic name (the in-memory broker) or ARN (a real transport).</summary>
    public required string TopicArn { get; init; }

    /// <summary>Gets the message.</summary>
    public required string Message { get; init; }

    /// <summary>Gets the subject, or <c>null</c>.</summary>
    public string? Subject { get; init; }

    /// <summary>Gets the message attributes.</summary>
    public IReadOnlyDictionary<string, MessageAttributeValue> MessageAttributes { get; init; } = new Dictionary<string, MessageAttributeValue>();

    /// <summary>Gets the FIFO message group id, or <c>null</c>.</summary>
    public string? MessageGroupId { get; init; }

    /// <summary>Gets the FIFO deduplication id, or <c>null</c>.</summary>
    public string? MessageDeduplicationId { get; init; }

    /// <summary>Computes the size SNS counts for this message against its limits (a publish's and a batch's): the message plus every attribute's name, type and value, in UTF-8 bytes.</summary>
    /// <returns>The size in bytes.</returns>
    public long ComputeSize() => SqsRules.MessageSize(Message, MessageAttributes);
}
