using System;
using System.Globalization;
using System.IO;
using System.Net.Http;
using Amazon.Runtime;

namespace Missive.Aws.Protocol;

/// <summary>
/// An AWS SDK exception classified once for every service Missive.Aws calls through the SDK (SQS, S3): each caller writes
/// its own message and hint from this, and the transient and persistent flags follow the same rule as the built-in client's.
/// </summary>
internal readonly record struct SdkFailure(SdkFailureKind Kind, string Code, int Status, string? RequestId)
{
    /// <summary>5xx, a throttling or transient code, no answer, or a broken connection: a later try may succeed.</summary>
    public bool IsTransient => Kind is SdkFailureKind.NoAnswer or SdkFailureKind.Connection
        || (Kind == SdkFailureKind.Service && (Status >= 500 || AwsErrorCodes.IsTransient(Code, Status) || AwsErrorCodes.IsThrottling(Code, Status)));

    /// <summary>
    /// Transient as <see cref="IsTransient"/> says; persistent when an operator must act (permissions, configuration,
    /// credentials; <paramref name="alsoPersistent"/> adds a service's own codes); else this call was refused.
    /// </summary>
    public TransportFailureKind FailureKind(Func<string, bool>? alsoPersistent = null)
        => IsTransient ? TransportFailureKind.Transient
            : Kind == SdkFailureKind.ClientConfiguration || (Kind == SdkFailureKind.Service && (AwsErrorHints.IsPersistent(Code) || alsoPersistent?.Invoke(Code) == true)) ? TransportFailureKind.Persistent
            : TransportFailureKind.Refused;

    /// <summary>
    /// Classifies <paramref name="e"/>. A service error without a code (an answer without a body) gets
    /// <paramref name="codeForStatus"/>'s code, else <c>HTTPnnn</c>.
    /// </summary>
    public static SdkFailure Of(Exception e, Func<int, string?>? codeForStatus = null)
    {
        if (e is AmazonServiceException service && (service.ErrorCode is { Length: > 0 } || service.StatusCode != 0))
        {
            int status = (int)service.StatusCode;
            string code = service.ErrorCode is { Length: > 0 } given ? given
                : codeForStatus?.Invoke(status) ?? "HTTP" + status.ToString(CultureInfo.InvariantCulture);
            return new(SdkFailureKind.Service, code, status, service.RequestId);
        }

        if (e is OperationCanceledException or TimeoutException || e.InnerException is OperationCanceledException or TimeoutException)
        {
            return new(SdkFailureKind.NoAnswer, "RequestTimeout", 0, null);
        }

        if (e is HttpRequestException or IOException || e.InnerException is HttpRequestException or IOException or System.Net.Sockets.SocketException)
        {
            return new(SdkFailureKind.Connection, "ConnectionFailure", 0, null); // the built-in client's code for the same failure
        }

        return e is AmazonClientException
            ? new(SdkFailureKind.ClientConfiguration, "ClientConfiguration", 0, null)
            : new(SdkFailureKind.Other, e.GetType().Name, 0, null);
    }
}
