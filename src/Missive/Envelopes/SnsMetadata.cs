using System;
using System.Collections.Generic;

namespace Missive;

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
