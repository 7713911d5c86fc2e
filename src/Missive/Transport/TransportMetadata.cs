using System;
using System.Collections.Generic;

namespace Missive.Transport;

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

/// <summary>What the SNS notification around a received message said.</summary>
public sealed class SnsMetadata
{
    /// <summary>Gets the SNS message id.</summary>
    public required string MessageId { get; init; }

    /// <summary>Gets the topic ARN.</summary>
    public required string TopicArn { get; init; }

    /// <summary>Gets the subject, or <c>null</c>.</summary>
    public string? Subject { get; init; }

    /// <summary>Gets when SNS published the notification.</summary>
    public DateTimeOffset? Timestamp { get; init; }

    /// <summary>Gets the unsubscribe URL, or <c>null</c>.</summary>
    public string? UnsubscribeUrl { get; init; }

    /// <summary>Gets the SNS message attributes.</summary>
    public required IReadOnlyDictionary<string, MessageAttributeValue> MessageAttributes { get; init; }
}

/// <summary>What the EventBridge event around a received message said.</summary>
public sealed class EventBridgeMetadata
{
    /// <summary>Gets the EventBridge event id.</summary>
    public required string EventId { get; init; }

    /// <summary>Gets the detail type.</summary>
    public required string DetailType { get; init; }

    /// <summary>Gets the event source.</summary>
    public required string Source { get; init; }

    /// <summary>Gets the account id, or <c>null</c>.</summary>
    public string? Account { get; init; }

    /// <summary>Gets the region, or <c>null</c>.</summary>
    public string? Region { get; init; }

    /// <summary>Gets the event time.</summary>
    public DateTimeOffset? Time { get; init; }

    /// <summary>Gets the resources.</summary>
    public required IReadOnlyList<string> Resources { get; init; }
}
