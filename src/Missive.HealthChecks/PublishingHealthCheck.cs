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

    /// <summary>Creates the check.</summary>
    /// <param name="publishing">The publisher's health. Must not be null.</param>
    public PublishingHealthCheck(PublishingHealth publishing)
    {
        ArgumentNullException.ThrowIfNull(publishing);
        _publishing = publishing;
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

        HealthCheckResult result = failures == 0
            ? HealthCheckResult.Healthy("Publishing: the last publish succeeded, or none failed.", data)
            : _publishing.IsFailingPersistently
                ? HealthCheckResult.Unhealthy($"Publishing fails with an error no retry clears ({_publishing.LastErrorCode}): {_publishing.LastError}", data: data)
                : HealthCheckResult.Degraded($"The last {failures} publishes failed ({_publishing.LastErrorCode}).", data: data);
        return Task.FromResult(result);
    }
}
