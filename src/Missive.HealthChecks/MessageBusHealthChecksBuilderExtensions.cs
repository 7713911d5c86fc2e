using System;
using Microsoft.Extensions.Diagnostics.HealthChecks;
using Missive.Bus;
using Missive.HealthChecks;

namespace Microsoft.Extensions.DependencyInjection;

/// <summary>Registers the Missive bus's health checks with <c>services.AddHealthChecks()</c>.</summary>
public static class MessageBusHealthChecksBuilderExtensions
{
    /// <summary>The tag of the checks a readiness probe asks: every poller's and publishing's.</summary>
    public const string ReadyTag = "ready";

    /// <summary>The tag of the checks a liveness probe asks: the pollers' (a stopped poller, a heartbeat that no longer runs).</summary>
    public const string LiveTag = "live";

    /// <summary>
    /// Adds one check per queue poller of the bus registered with <c>AddMessageBus</c> (<c>missive-poller-{queue}</c>,
    /// tagged <see cref="ReadyTag"/>, <see cref="LiveTag"/> and <c>missive</c>) and one for publishing
    /// (<c>missive-publishing</c>, tagged <see cref="ReadyTag"/> and <c>missive</c>), all reading the bus's
    /// <see cref="MessageBusHealth"/>.
    /// </summary>
    /// <param name="builder">The health checks builder. Must not be null.</param>
    /// <returns>The builder.</returns>
    public static IHealthChecksBuilder AddMessageBusChecks(this IHealthChecksBuilder builder)
    {
        ArgumentNullException.ThrowIfNull(builder);

        // The pollers are known once the bus is built: their checks are added when the health check options are.
        builder.Services.AddOptions<HealthCheckServiceOptions>().Configure<MessageBusHealth>((options, health) =>
        {
            foreach (PollerHealth poller in health.Pollers)
            {
                options.Registrations.Add(new HealthCheckRegistration(
                    "missive-poller-" + poller.Queue,
                    sp => new QueuePollerHealthCheck(poller, sp.GetService<TimeProvider>() ?? TimeProvider.System),
                    HealthStatus.Unhealthy,
                    [ReadyTag, LiveTag, "missive"]));
            }
        });
        builder.Add(new HealthCheckRegistration(
            "missive-publishing",
            sp => new PublishingHealthCheck(sp.GetRequiredService<MessageBusHealth>().Publishing),
            HealthStatus.Unhealthy,
            [ReadyTag, "missive"]));
        return builder;
    }
}
