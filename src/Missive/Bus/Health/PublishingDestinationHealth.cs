using System;

namespace Missive.Bus;

/// <summary>How publishing to one destination (a queue, topic or event bus) fares, as of when it was taken.</summary>
public sealed class PublishingDestinationHealth
{
    internal PublishingDestinationHealth(string name, int consecutiveFailures, TransportFailureKind failureKind, string? lastErrorCode, string? lastError, DateTimeOffset? lastFailureAt)
    {
        Name = name;
        ConsecutiveFailures = consecutiveFailures;
        FailureKind = failureKind;
        LastErrorCode = lastErrorCode;
        LastError = lastError;
        LastFailureAt = lastFailureAt;
    }

    /// <summary>Gets the destination as the route names it (a queue name or URL, a topic ARN, an event bus name).</summary>
    public string Name { get; }

    /// <summary>Gets how many publishes to it in a row have failed in the transport (zero once one succeeds).</summary>
    public int ConsecutiveFailures { get; }

    /// <summary>Gets whether the failures are ones that may clear (<see cref="TransportFailureKind.Transient"/>) or ones an operator must act on (<see cref="TransportFailureKind.Persistent"/>); meaningful while <see cref="ConsecutiveFailures"/> is above zero.</summary>
    public TransportFailureKind FailureKind { get; }

    /// <summary>Gets the error code of the last failed publish, or <c>null</c>.</summary>
    public string? LastErrorCode { get; }

    /// <summary>Gets what the transport said of the last failed publish (never message content), or <c>null</c>.</summary>
    public string? LastError { get; }

    /// <summary>Gets when the last publish to it failed, or <c>null</c> if none has.</summary>
    public DateTimeOffset? LastFailureAt { get; }

    /// <summary>Gets whether its last publish failed.</summary>
    public bool IsFailing => ConsecutiveFailures > 0;
}
