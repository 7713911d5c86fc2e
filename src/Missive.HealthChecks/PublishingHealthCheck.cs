using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.Diagnostics.HealthChecks;
using Missive.Bus;

namespace Missive.HealthChecks;

/// <summary>
/// The health of publishing, from the bus's <see cref="PublishingHealth"/>: healthy until a publish fails in the
/// transport; degraded while publishes fail with failures that may clear; unhealthy when the last failure is one no
/// retry clears (a missing topic, refused credentials or permissions). A successful publish makes it healthy again.
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
        int failures = _publishing.ConsecutiveFailures;
        var data = new Dictionary<string, object>(StringComparer.Ordinal) { ["consecutiveFailures"] = failures };
        if (_publishing.LastErrorCode is { } code && failures > 0)
        {
            data["lastErrorCode"] = code;
        }

        bool stale = failures > 0 && _window != Timeout.InfiniteTimeSpan && _publishing.LastFailureAt is { } at && _clock.GetUtcNow() - at > _window;
        HealthCheckResult result = failures == 0
            ? HealthCheckResult.Healthy("Publishing: the last publish succeeded, or none failed.", data)
            : stale
                ? HealthCheckResult.Healthy($"Publishing: the last failure ({_publishing.LastErrorCode}) is older than {_window}, with no publish since.", data)
                : _publishing.IsFailingPersistently
                    ? new HealthCheckResult(context?.Registration?.FailureStatus ?? HealthStatus.Unhealthy, $"Publishing fails with an error no retry clears ({_publishing.LastErrorCode}): {_publishing.LastError}", data: data)
                    : HealthCheckResult.Degraded($"The last {failures} publishes failed ({_publishing.LastErrorCode}).", data: data);
        return Task.FromResult(result);
    }
}
