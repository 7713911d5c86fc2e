using System;

namespace Missive.Bus;

/// <summary>
/// What the publisher reports about its sends, for health checks and dashboards: its failures in a row, the last one's
/// error code and whether no retry clears it. A successful send resets it. No message content is ever in it.
/// </summary>
public sealed class PublishingHealth
{
    private readonly object _gate = new();
    private int _consecutiveFailures;
    private string? _lastErrorCode;
    private string? _lastError;
    private bool _persistent;
    private DateTimeOffset? _lastFailureAt;

    internal PublishingHealth()
    {
    }

    /// <summary>Gets how many publishes in a row have failed in the transport (zero once one succeeds).</summary>
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

    /// <summary>Gets whether the last failure is one no retry clears (a missing topic, refused credentials or permissions).</summary>
    public bool IsFailingPersistently
    {
        get
        {
            lock (_gate)
            {
                return _consecutiveFailures > 0 && _persistent;
            }
        }
    }

    /// <summary>Gets the error code of the last failed publish, or <c>null</c>.</summary>
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

    /// <summary>Gets what the last failed publish's transport said (never message content), or <c>null</c>.</summary>
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

    /// <summary>Gets when the last publish failed in the transport, or <c>null</c>.</summary>
    public DateTimeOffset? LastFailureAt
    {
        get
        {
            lock (_gate)
            {
                return _lastFailureAt;
            }
        }
    }

    /// <summary>A send succeeded: cheap when nothing failed before (one read).</summary>
    internal void Succeeded()
    {
        if (System.Threading.Volatile.Read(ref _consecutiveFailures) == 0)
        {
            return;
        }

        lock (_gate)
        {
            _consecutiveFailures = 0;
            _persistent = false;
        }
    }

    /// <summary>
    /// A send failed in the transport at <paramref name="at"/>. A failure of the message itself (over the destination's
    /// size limit) says nothing of the service or its configuration and is not counted.
    /// </summary>
    internal void Failed(MessageTransportException error, DateTimeOffset at)
    {
        if (error.ErrorCode == "EntryTooLarge")
        {
            return;
        }

        lock (_gate)
        {
            _consecutiveFailures++;
            _lastErrorCode = error.ErrorCode;
            _lastError = error.Message;
            _persistent = error.IsPersistent;
            _lastFailureAt = at;
        }
    }
}
