namespace Missive.Aws.Protocol;

/// <summary>What kind of failure an AWS SDK call ended in, by the project's rule for the built-in client.</summary>
internal enum SdkFailureKind
{
    /// <summary>The service answered with an error: <see cref="SdkFailure.Code"/> and <see cref="SdkFailure.Status"/> say which.</summary>
    Service,

    /// <summary>No answer came in time (the SDK's own timeout, or its cancellation of the attempt). Transient.</summary>
    NoAnswer,

    /// <summary>The connection failed or broke (refused, reset, name not resolved). Transient.</summary>
    Connection,

    /// <summary>
    /// The client's credential provider failed to give credentials (a refresh from the instance metadata service, SSO or
    /// STS). Transient: the credentials were there when the host started, and the provider recovers.
    /// </summary>
    Credentials,

    /// <summary>The client failed before sending anything: its configuration. Persistent: no retry clears it.</summary>
    ClientConfiguration,

    /// <summary>Anything else the SDK threw (its own answer checks among them); neither transient nor persistent.</summary>
    Other,
}
