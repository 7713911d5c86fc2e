using System;
using System.Collections.Generic;

namespace Missive.Transport;

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
