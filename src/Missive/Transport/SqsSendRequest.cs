using System;
using System.Collections.Generic;

namespace Missive.Transport;

/// <summary>What an SQS SendMessage call carries.</summary>
public sealed class SqsSendRequest
{
    /// <summary>Gets the queue name (the in-memory broker) or URL (a real transport).</summary>
    public required string QueueName { get; init; }

    /// <summary>Gets the body.</summary>
    public required string MessageBody { get; init; }

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
    public long ComputeSize() => SqsRules.MessageSize(MessageBody, MessageAttributes);
}
