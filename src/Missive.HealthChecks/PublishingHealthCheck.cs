using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.Diagnostics.HealthChecks;
using Missive.Bus;

namespace Missive.HealthChecks;

/// <summary>
/// The health of publishing, per destination, from the bus's <see cref="PublishingHealth"/>: healthy while no
/// destination's last publish failed (a failure counts for the window when no publish to that destination follows);
/// degraded while some fail, naming them; the registration's failure status (unhealthy by default) when every
/// destination published to fails with an error no retry clears (a missing topic, refused credentials or permissions).
/// One failing destination among working ones is degraded, not unhealthy: the service still does the rest of its work.
/// </summary>
public sealed class PublishingHealthCheck : IHealthCheck
{
    private readonly PublishingHealth _publishing;
    private readonly TimeProvider _clock;
    private readonly TimeSpan _window;

    /// <summary>Creates the check; a failure counts until a publish succeeds.</summary>
    /// <param name="publishing">The publisher's health. Must not be null.</param>
    public PublishingHealthCheck(PublishingHealth publishing)
        : this(publishing, TimeProvider.System, Timeout.InfiniteTimeSpan)
    {
    }

    /// <summary>Creates the check; a failure counts until a publish succeeds or <paramref name="window"/> passes without another.</summary>
    /// <param name="publishing">The publisher's health. Must not be null.</param>
    /// <param name="clock">The clock the bus runs on. Must not be null.</param>
    /// <param name="window">How long the last failure counts, or <see cref="Timeout.InfiniteTimeSpan"/> for as long as no publish succeeds.</param>
    public PublishingHealthCheck(PublishingHealth publishing, TimeProvider clock, TimeSpan window)
    {
        ArgumentNullException.ThrowIfNull(publishing);
        ArgumentNullException.ThrowIfNull(clock);
        _publishing = publishing;
        _clock = clock;
        _window = window;
    }

    /// <inheritdoc />
    public Task<HealthCheckResult> CheckHealthAsync(HealthCheckContext context, CancellationToken cancellationToken = default)
    {
        IReadOnlyList<PublishingDestinationHealth> destinations = _publishing.Destinations;
        DateTimeOffset now = _clock.GetUtcNow();
        var failing = new List<PublishingDestinationHealth>();
        int persistent = 0;
        foreach (PublishingDestinationHealth destination in destinations)
        {
            bool recent = _window == Timeout.InfiniteTimeSpan || destination.LastFailureAt is not { } at || now - at <= _window;
            if (destination.IsFailing && recent)
            {
                failing.Add(destination);
                persistent += destination.FailureKind == TransportFailureKind.Persistent ? 1 : 0;
            }
        }

        var data = new Dictionary<string, object>(StringComparer.Ordinal)
        {
            ["destinations"] = destinations.Count,
            ["failingDestinations"] = failing.Count,
        };
        foreach (PublishingDestinationHealth destination in failing)
        {
            data["failing:" + destination.Name] = $"{destination.ConsecutiveFailures} in a row, {destination.LastErrorCode ?? "error"} ({destination.FailureKind})";
        }

        if (failing.Count == 0)
        {
            List<string> stale = [.. destinations.Where(static d => d.IsFailing).Select(static d => $"'{d.Name}'")];
            return Task.FromResult(HealthCheckResult.Healthy(
                destinations.Count == 0 ? "Publishing: nothing published yet."
                    : stale.Count == 0 ? "Publishing: no destination's last publish failed."
                    : $"Publishing: the last failure to {string.Join(", ", stale)} is older than {_window}, with no publish there since.",
                data));
        }

        string described = string.Join("; ", failing.ConvertAll(static d => $"'{d.Name}' ({d.ConsecutiveFailures} in a row, {d.LastErrorCode ?? "error"}): {d.LastError}"));
        return Task.FromResult(persistent == destinations.Count
            ? new HealthCheckResult(context?.Registration?.FailureStatus ?? HealthStatus.Unhealthy, $"Publishing fails to every destination with an error no retry clears: {described}", data: data)
            : HealthCheckResult.Degraded($"Publishing fails to {failing.Count} of {destinations.Count} destinations: {described}", data: data));
    }
}
