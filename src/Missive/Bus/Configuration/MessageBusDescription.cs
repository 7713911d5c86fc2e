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
