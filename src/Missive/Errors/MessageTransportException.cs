using System;

namespace Missive;

/// <summary>
/// Thrown when a transport refuses or fails a call: an unknown queue, topic or bus, a message over its
/// limits or rules, or a service error that retrying did not cure.
/// </summary>
/// <remarks>
/// For a service error, <see cref="ErrorCode"/>, <see cref="RequestId"/> and <see cref="StatusCode"/> say
/// what the service answered. The message never holds a message body.
/// </remarks>
public sealed class MessageTransportException : MissiveException
{
    /// <summary>Creates the exception.</summary>
    /// <param name="message">What was refused and why.</param>
    public MessageTransportException(string message)
        : base(message)
    {
    }

    /// <summary>Creates the exception with a cause.</summary>
    /// <param name="message">What was refused and why.</param>
    /// <param name="innerException">The cause.</param>
    public MessageTransportException(string message, Exception? innerException)
        : base(message, innerException)
    {
    }

    /// <summary>Gets the service's error code (for example <c>AWS.SimpleQueueService.NonExistentQueue</c> or <c>ThrottlingException</c>), or <c>null</c>.</summary>
    public string? ErrorCode { get; init; }

    /// <summary>Gets the id the service gave the failed request, for its support and logs, or <c>null</c>.</summary>
    public string? RequestId { get; init; }

    /// <summary>Gets the HTTP status of the service's answer, or <c>null</c> when there was none (a connection failure or a local refusal).</summary>
    public int? StatusCode { get; init; }

    /// <summary>
    /// Gets what the failure says about trying again: the same call may succeed later
    /// (<see cref="TransportFailureKind.Transient"/>), no retry clears it until an operator acts
    /// (<see cref="TransportFailureKind.Persistent"/>), or this call alone was refused
    /// (<see cref="TransportFailureKind.Refused"/>, the default). A poller facing a persistent failure logs it once at
    /// Error, keeps trying at its longest interval, and reports it to its health check.
    /// </summary>
    public TransportFailureKind FailureKind { get; init; }

    /// <summary>Gets whether <see cref="FailureKind"/> is <see cref="TransportFailureKind.Transient"/>: the same call may succeed later.</summary>
    public bool IsTransient => FailureKind == TransportFailureKind.Transient;

    /// <summary>Gets whether <see cref="FailureKind"/> is <see cref="TransportFailureKind.Persistent"/>: an operator must act; the message says what to check.</summary>
    public bool IsPersistent => FailureKind == TransportFailureKind.Persistent;
}
