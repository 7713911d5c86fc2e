namespace Missive;

/// <summary>What a <see cref="MessageTransportException"/> says about trying again.</summary>
public enum TransportFailureKind
{
    /// <summary>
    /// This call was refused, or failed for a reason of its own: a message over its limits, a parameter the service
    /// rejects, a stored payload that is not there. The same call fails the same way; other calls are not affected, and
    /// nothing about the configuration is wrong.
    /// </summary>
    Refused = 0,

    /// <summary>Throttling, a server error, a timeout or a lost connection: the same call may succeed later.</summary>
    Transient = 1,

    /// <summary>
    /// No retry clears it until an operator acts: a queue, topic or bus that does not exist, credentials the service
    /// refuses, a permission or a KMS key missing.
    /// </summary>
    Persistent = 2,
}
