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
    /// Adds the bus's checks (of the bus registered with <c>AddMessageBus</c>), all reading its <see cref="MessageBusHealth"/>:
    /// <list type="bullet">
    /// <item>per queue poller, a readiness check <c>{prefix}-poller-{queue}</c> (tags <see cref="MessageBusHealthCheckOptions.ReadyTags"/>):
    /// can it do its work (receiving, or failing with a failure that may clear or one no retry clears);</item>
    /// <item>per queue poller, a liveness check <c>{prefix}-poller-{queue}-live</c> (tags <see cref="MessageBusHealthCheckOptions.LiveTags"/>):
    /// are its loops alive (not stopped, its heartbeat on time). Receive failures never fail it: a restart does not
    /// fix a permission or a missing queue;</item>
    /// <item>a readiness check of publishing, <c>{prefix}-publishing</c>: its failures in a row, each counting for
    /// <see cref="MessageBusHealthCheckOptions.PublishingFailureWindow"/>.</item>
    /// </list>
    /// </summary>
    /// <param name="builder">The health checks builder. Must not be null.</param>
    /// <param name="configure">Names, tags, failure status and timeout, or <c>null</c> for the defaults.</param>
    /// <returns>The builder.</returns>
    public static IHealthChecksBuilder AddMessageBusChecks(this IHealthChecksBuilder builder, Action<MessageBusHealthCheckOptions>? configure = null)
    {
        ArgumentNullException.ThrowIfNull(builder);
        var settings = new MessageBusHealthCheckOptions();
        configure?.Invoke(settings);
        string[] ready = [.. settings.ReadyTags], live = [.. settings.LiveTags];

        // The pollers are known once the bus is built: their checks are added when the health check options are.
        builder.Services.AddOptions<HealthCheckServiceOptions>().Configure<MessageBusHealth>((options, health) =>
        {
            foreach (PollerHealth poller in health.Pollers)
            {
                options.Registrations.Add(new HealthCheckRegistration(
                    $"{settings.NamePrefix}-poller-{poller.Queue}",
                    sp => new QueuePollerHealthCheck(poller, sp.GetService<TimeProvider>() ?? TimeProvider.System),
                    settings.FailureStatus,
                    ready,
                    settings.Timeout));
                options.Registrations.Add(new HealthCheckRegistration(
                    $"{settings.NamePrefix}-poller-{poller.Queue}-live",
                    sp => new QueuePollerHealthCheck(poller, sp.GetService<TimeProvider>() ?? TimeProvider.System, liveness: true),
                    settings.FailureStatus,
                    live,
                    settings.Timeout));
            }
        });
        builder.Add(new HealthCheckRegistration(
            $"{settings.NamePrefix}-publishing",
            sp => new PublishingHealthCheck(sp.GetRequiredService<MessageBusHealth>().Publishing, sp.GetService<TimeProvider>() ?? TimeProvider.System, settings.PublishingFailureWindow),
            settings.FailureStatus,
            ready,
            settings.Timeout));
        return builder;
    }
}
