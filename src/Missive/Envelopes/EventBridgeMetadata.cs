using System;
using System.Collections.Generic;

namespace Missive;

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
