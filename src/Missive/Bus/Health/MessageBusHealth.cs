using System;
using System.Collections.Generic;

namespace Missive.Bus;

/// <summary>
/// What the bus reports about itself: one <see cref="PollerHealth"/> per queue poller and the publisher's
/// <see cref="PublishingHealth"/>. It is in the service container of every bus; the health checks of the
/// Missive.HealthChecks package read it, and a dashboard may too.
/// </summary>
public sealed class MessageBusHealth
{
    internal MessageBusHealth(IReadOnlyList<PollerHealth> pollers)
    {
        Pollers = pollers;
    }

    /// <summary>Gets the pollers' health, one per configured queue poller, in the order they were added.</summary>
    public IReadOnlyList<PollerHealth> Pollers { get; }

    /// <summary>Gets the publisher's health.</summary>
    public PublishingHealth Publishing { get; } = new();

    /// <summary>Gets the health of the poller of <paramref name="queue"/>.</summary>
    internal PollerHealth PollerOf(string queue)
    {
        foreach (PollerHealth poller in Pollers)
        {
            if (string.Equals(poller.Queue, queue, StringComparison.Ordinal))
            {
                return poller;
            }
        }

        throw new InvalidOperationException($"No poller is configured for queue '{queue}'.");
    }
}
