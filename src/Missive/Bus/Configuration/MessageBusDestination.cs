using System;
using System.Collections.Generic;

namespace Missive.Bus;

/// <summary>Where a message type is published.</summary>
/// <param name="MessageType">The message type.</param>
/// <param name="Kind">The kind of destination.</param>
/// <param name="Name">The destination as configured: a queue name or URL, a topic name or ARN, an event bus name or ARN.</param>
public readonly record struct MessageBusDestination(Type MessageType, MessageBusDestinationKind Kind, string Name)
{
    /// <summary>
    /// Gets whether every message of this type gets a deduplication id from <c>AddFifoIds</c>; when <c>false</c>, a
    /// FIFO destination must deduplicate by content, or each publish must set <see cref="PublishOptions.MessageDeduplicationId"/>.
    /// </summary>
    public bool HasDeduplicationIds { get; init; }
}
