using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.Diagnostics.HealthChecks;
using Missive.Bus;

namespace Missive.HealthChecks;

/// <summary>
/// The health of one queue poller, from its <see cref="PollerHealth"/>.
/// </summary>
/// <remarks>
/// <list type="bullet">
/// <item>Healthy: receiving (its last receive succeeded), and its heartbeat ran within half a visibility timeout.</item>
/// <item>Degraded: receives fail with failures that may clear (throttling, a server error, a timeout), or the host has not
/// started the pump yet.</item>
/// <item>Unhealthy: receives fail with a failure no retry clears (a missing queue, refused credentials or permissions),
/// the poller stopped, or its heartbeat has not run for half a visibility timeout (the messages it holds may be
/// delivered again).</item>
/// <item>The data a dashboard wants: the queue, the state, the last receive, the failures in a row, the last error code.</item>
/// </list>
/// </remarks>
public sealed class QueuePollerHealthCheck : IHealthCheck
{
    private readonly PollerHealth _poller;
    private readonly TimeProvider _clock;
    private readonly bool _liveness;

    /// <summary>Creates the readiness check of one poller.</summary>
    /// <param name="poller">The poller's health. Must not be null.</param>
    /// <param name="clock">The clock the bus runs on. Must not be null.</param>
    public QueuePollerHealthCheck(PollerHealth poller, TimeProvider clock)
        : this(poller, clock, liveness: false)
    {
    }

    /// <summary>Creates the readiness or the liveness check of one poller.</summary>
    /// <param name="poller">The poller's health. Must not be null.</param>
    /// <param name="clock">The clock the bus runs on. Must not be null.</param>
    /// <param name="liveness">
    /// <c>true</c>: whether the poller's loops are alive only (failing when it stopped or its heartbeat is late; receive
    /// failures, which a restart does not fix, leave it healthy). <c>false</c>: whether it can do its work.
    /// </param>
    public QueuePollerHealthCheck(PollerHealth poller, TimeProvider clock, bool liveness)
    {
        ArgumentNullException.ThrowIfNull(poller);
        ArgumentNullException.ThrowIfNull(clock);
        _poller = poller;
        _clock = clock;
        _liveness = liveness;
    }

    /// <inheritdoc />
    public Task<HealthCheckResult> CheckHealthAsync(HealthCheckContext context, CancellationToken cancellationToken = default)
    {
        PollerState state = _poller.State;
        var data = new Dictionary<string, object>(StringComparer.Ordinal)
        {
            ["queue"] = _poller.Queue,
            ["state"] = state.ToString(),
            ["consecutiveFailures"] = _poller.ConsecutiveFailures,
        };
        if (_poller.LastReceiveAt is { } received)
        {
            data["lastReceiveAt"] = received;
        }

        if (_poller.LastErrorCode is { } code)
        {
            data["lastErrorCode"] = code;
        }

        string queue = _poller.Queue;
        HealthStatus failed = context?.Registration?.FailureStatus ?? HealthStatus.Unhealthy;
        if (_liveness)
        {
            HealthCheckResult alive = state switch
            {
                PollerState.Stopped => new HealthCheckResult(failed, $"The poller of queue {queue} stopped.", data: data),
                _ when HeartbeatLate() is { } late => new HealthCheckResult(failed, $"The heartbeat of queue {queue} last ran {late.TotalSeconds:0} s ago, more than half the visibility timeout.", data: data),
                _ => HealthCheckResult.Healthy($"The poller of queue {queue} is alive ({state}).", data),
            };
            return Task.FromResult(alive);
        }

        HealthCheckResult result = state switch
        {
            PollerState.NotStarted => HealthCheckResult.Degraded($"The poller of queue {queue} has not started (the host has not started the pump).", data: data),
            PollerState.Stopped => new HealthCheckResult(failed, $"The poller of queue {queue} stopped.", data: data),
            PollerState.FailingPersistently => new HealthCheckResult(failed, $"Receiving from queue {queue} fails with an error no retry clears ({_poller.LastErrorCode}): {_poller.LastError}", data: data),
            PollerState.FailingTransiently => HealthCheckResult.Degraded($"Receiving from queue {queue} failed {_poller.ConsecutiveFailures} times in a row ({_poller.LastErrorCode}); the poller backs off and tries again.", data: data),
            _ when HeartbeatLate() is { } late => new HealthCheckResult(failed, $"The heartbeat of queue {queue} last ran {late.TotalSeconds:0} s ago, more than half the visibility timeout: the messages it holds may be delivered again.", data: data),
            _ => HealthCheckResult.Healthy($"Receiving from queue {queue}.", data),
        };
        return Task.FromResult(result);
    }

    /// <summary>How long ago the heartbeat ran, when that is more than half a visibility timeout (it ticks every eighth).</summary>
    private TimeSpan? HeartbeatLate()
    {
        if (_poller.HeartbeatRanAt is not { } ran)
        {
            return null;
        }

        TimeSpan since = _clock.GetUtcNow() - ran;
        return since > _poller.VisibilityTimeout / 2 ? since : null;
    }
}
