namespace Missive.Bus;

/// <summary>Where a queue poller stands, as its health check reports it.</summary>
public enum PollerState
{
    /// <summary>The host has not started the pump yet.</summary>
    NotStarted,

    /// <summary>Receiving: the last receive succeeded.</summary>
    Running,

    /// <summary>Receives fail with failures that may clear (throttling, a server error, a timeout); the poller backs off and tries again.</summary>
    FailingTransiently,

    /// <summary>Receives fail with a failure no retry clears (a missing queue, refused credentials or permissions): an operator must act; the poller keeps trying at its longest interval.</summary>
    FailingPersistently,

    /// <summary>The poller stopped (the host is stopping, or the pump ended).</summary>
    Stopped,
}
