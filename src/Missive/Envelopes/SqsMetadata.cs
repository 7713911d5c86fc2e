using System;
using System.Collections.Generic;

namespace Missive;

/// <summary>What SQS said of a received message.</summary>
public sealed class SqsMetadata
{
    /// <summary>Gets the SQS message id.</summary>
    public required string MessageId { get; init; }

    /// <summary>Gets the receipt handle of this receipt.</summary>
    public required string ReceiptHandle { get; init; }

    /// <summary>Gets how many times the message has been received, this receipt included (0 when unknown).</summary>
    public int ApproximateReceiveCount { get; init; }

    /// <summary>Gets the FIFO message group id, or <c>null</c>.</summary>
    public string? MessageGroupId { get; init; }

    /// <summary>Gets the FIFO deduplication id, or <c>null</c>.</summary>
    public string? MessageDeduplicationId { get; init; }

    /// <summary>Gets the SQS message attributes.</summary>
    public required IReadOnlyDictionary<string, MessageAttributeValue> MessageAttributes { get; init; }
}
