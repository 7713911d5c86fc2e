using System;
using System.Collections.Generic;

namespace Missive.Bus;

/// <summary>What the bus was configured with, as the checks of <see cref="IMessageBusConfigurationCheck"/> and <see cref="IMessageBusResourceCheck"/> see it.</summary>
public sealed class MessageBusDescription
{
    internal MessageBusDescription(IServiceProvider services, IReadOnlyList<MessageBusDestination> publishers, IReadOnlyList<string> polledQueues, IReadOnlyList<string> deadLetterQueues)
    {
        Services = services;
        Publishers = publishers;
        PolledQueues = polledQueues;
        DeadLetterQueues = deadLetterQueues;
    }

    /// <summary>Gets the application's services.</summary>
    public IServiceProvider Services { get; }

    /// <summary>Gets where each published message type goes, as configured.</summary>
    public IReadOnlyList<MessageBusDestination> Publishers { get; }

    /// <summary>Gets the queues the pollers receive from, as configured.</summary>
    public IReadOnlyList<string> PolledQueues { get; }

    /// <summary>Gets the dead-letter queues the pollers and the Lambda processor move messages to, as configured, each once.</summary>
    public IReadOnlyList<string> DeadLetterQueues { get; }
}

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

/// <summary>The kinds of destination a message type is published to.</summary>
public enum MessageBusDestinationKind
{
    /// <summary>An SQS queue.</summary>
    Queue,

    /// <summary>An SNS topic.</summary>
    Topic,

    /// <summary>An EventBridge event bus.</summary>
    EventBus,
}
