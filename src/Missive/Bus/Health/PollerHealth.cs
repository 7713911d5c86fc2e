using System;

namespace Missive.Bus;

/// <summary>
/// What one queue poller reports about itself, for health checks and dashboards: its state, its last successful
/// receive, its failures in a row and the last one's error code, and when its heartbeat last ran. Read it any time;
/// the poller updates it as it goes. No message content is ever in it.
/// </summary>
public sealed class PollerHealth
{
    private readonly object _gate = new();
    private PollerState _state;
    private DateTimeOffset? _lastReceiveAt;
    private DateTimeOffset? _heartbeatRanAt;
    private int _consecutiveFailures;
    private string? _lastErrorCode;
    private string? _lastError;

    internal PollerHealth(string queue, TimeSpan visibilityTimeout)
    {
        Queue = queue;
        VisibilityTimeout = visibilityTimeout;
    }

    /// <summary>Gets the queue the poller receives from, as configured.</summary>
    public string Queue { get; }

    /// <summary>Gets the visibility timeout the poller asks for (its heartbeat ticks every eighth of it).</summary>
    public TimeSpan VisibilityTimeout { get; }

    /// <summary>Gets the poller's state.</summary>
    public PollerState State
    {
        get
        {
            lock (_gate)
            {
                return _state;
            }
        }
    }

    /// <summary>Gets when the last receive succeeded (with messages or without), or <c>null</c> before the first.</summary>
    public DateTimeOffset? LastReceiveAt
    {
        get
        {
            lock (_gate)
            {
                return _lastReceiveAt;
            }
        }
    }

    /// <summary>Gets when the poller's heartbeat last ran (it runs every eighth of a visibility timeout while the poller runs), or <c>null</c>.</summary>
    public DateTimeOffset? HeartbeatRanAt
    {
        get
        {
            lock (_gate)
            {
                return _heartbeatRanAt;
            }
        }
    }

    /// <summary>Gets how many receives in a row have failed (zero once one succeeds).</summary>
    public int ConsecutiveFailures
    {
        get
        {
            lock (_gate)
            {
                return _consecutiveFailures;
            }
        }
    }

    /// <summary>Gets the error code of the last failed receive (for example <c>AWS.SimpleQueueService.NonExistentQueue</c>), or <c>null</c>.</summary>
    public string? LastErrorCode
    {
        get
        {
            lock (_gate)
            {
                return _lastErrorCode;
            }
        }
    }

    /// <summary>Gets what the last failed receive said (the transport's message: never message content), or <c>null</c>.</summary>
    public string? LastError
    {
        get
        {
            lock (_gate)
            {
                return _lastError;
            }
        }
    }

    internal void Started()
    {
        lock (_gate)
        {
            _state = PollerState.Running;
        }
    }

    /// <summary>A receive succeeded; returns how many had failed in a row before it.</summary>
    internal int Received(DateTimeOffset at)
    {
        lock (_gate)
        {
            int failures = _consecutiveFailures;
            _lastReceiveAt = at;
            _consecutiveFailures = 0;
            _state = PollerState.Running;
            return failures;
        }
    }

    /// <summary>A receive failed; returns whether the poller's state changed with it.</summary>
    internal bool Failed(Exception error, bool persistent)
    {
        lock (_gate)
        {
            PollerState before = _state;
            _consecutiveFailures++;
            _lastErrorCode = (error as MessageTransportException)?.ErrorCode ?? error.GetType().Name;
            _lastError = error is MissiveException ? error.Message : error.GetType().Name;
            _state = persistent ? PollerState.FailingPersistently : PollerState.FailingTransiently;
            return before != _state;
        }
    }

    internal void HeartbeatRan(DateTimeOffset at)
    {
        lock (_gate)
        {
            _heartbeatRanAt = at;
        }
    }

    internal void Stopped()
    {
        lock (_gate)
        {
            _state = PollerState.Stopped;
        }
    }
}
