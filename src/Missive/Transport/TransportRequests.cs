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

    /// <summary>Gets the delivery delay.</summary>
    public TimeSpan DelaySeconds { get; init; }
}

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
}

/// <summary>What an EventBridge PutEvents entry carries.</summary>
public sealed class EventBridgeEntry
{
    /// <summary>Gets the event bus name.</summary>
    public required string EventBusName { get; init; }

    /// <summary>Gets the event source.</summary>
    public required string Source { get; init; }

    /// <summary>Gets the detail type.</summary>
    public required string DetailType { get; init; }

    /// <summary>Gets the detail: the text of a JSON object.</summary>
    public required string Detail { get; init; }

    /// <summary>Gets the resources.</summary>
    public IReadOnlyList<string> Resources { get; init; } = [];

    /// <summary>Gets the event time, or <c>null</c> for the time it is put.</summary>
    public DateTimeOffset? Time { get; init; }
}
