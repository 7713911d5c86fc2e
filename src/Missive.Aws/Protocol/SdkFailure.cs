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
    public bool IsTransient => Kind is SdkFailureKind.NoAnswer or SdkFailureKind.Connection or SdkFailureKind.Credentials
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
    /// The failure of <paramref name="call"/> as the transport's exception, in one wording for every SDK client: what
    /// failed, the service's code and what it said, the endpoint and signing region the client used (and which client),
    /// and what to check; transient, persistent or refused as <see cref="FailureKind"/> says.
    /// </summary>
    /// <param name="e">What the SDK threw.</param>
    /// <param name="call">The call, for example <c>SQS SendMessage on queue 'billing' (https://…)</c>.</param>
    /// <param name="site">Where the call went: its endpoint, signing region and credential source.</param>
    /// <param name="client">Which client, and what chose its endpoint (for example <c>the application's IAmazonSQS: its ServiceURL</c>).</param>
    /// <param name="hint">What to check for a service's error, or <c>null</c>.</param>
    /// <param name="alsoPersistent">A service's own codes no retry clears, or <c>null</c>.</param>
    public MessageTransportException ToTransportException(Exception e, string call, AwsCallSite site, string client, string? hint = null, Func<string, bool>? alsoPersistent = null)
    {
        string where = $"Endpoint {site.Endpoint.GetLeftPart(UriPartial.Authority)}, signing region {site.Region} ({client}).";
        string message = Kind switch
        {
            SdkFailureKind.Service => $"{call} failed: {Code}{(Status == 0 ? string.Empty : $" (HTTP {Status})")}: {e.Message} {where}{(hint is null ? string.Empty : " " + hint)}",
            SdkFailureKind.Credentials => $"{call} failed: the credentials could not be had ({e.Message}). {where} Credentials come from {site.CredentialSource}: if it repeats, check that source (the instance or task role's metadata endpoint, the SSO session, the profile).",
            SdkFailureKind.ClientConfiguration => $"{call}: the client failed before sending ({e.Message}). Check its credentials and region (the AWS section, the profile, AWS_REGION and the credential chain). {where}",
            SdkFailureKind.NoAnswer or SdkFailureKind.Connection => $"{call} failed: {(Kind == SdkFailureKind.NoAnswer ? "no answer in time" : e.Message)}. {where} If it repeats, check that endpoint and what chose it.",
            _ => $"{call} failed: {e.GetType().Name}: {e.Message} {where}",
        };
        return new MessageTransportException(message, e)
        {
            ErrorCode = Code,
            RequestId = RequestId,
            StatusCode = Kind == SdkFailureKind.Service && Status != 0 ? Status : null,
            FailureKind = FailureKind(alsoPersistent),
        };
    }

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

        if (IsCredentialFailure(e))
        {
            return new(SdkFailureKind.Credentials, AwsServiceFailure.CredentialsUnavailableCode, 0, null);
        }

        return e is AmazonClientException
            ? new(SdkFailureKind.ClientConfiguration, "ClientConfiguration", 0, null)
            : new(SdkFailureKind.Other, e.GetType().Name, 0, null);
    }

    /// <summary>
    /// Whether the SDK failed for want of credentials: its providers throw an <see cref="AmazonClientException"/>, or an
    /// <see cref="AmazonServiceException"/> without a code or status (the instance metadata provider's "Failed to retrieve
    /// credentials from EC2 Instance Metadata Service."), naming the credentials.
    /// </summary>
    private static bool IsCredentialFailure(Exception e)
    {
        for (Exception? at = e; at is not null; at = at.InnerException)
        {
            if (at is AmazonClientException or AmazonServiceException && at.Message.Contains("credential", StringComparison.OrdinalIgnoreCase))
            {
                return true;
            }
        }

        return false;
    }
}
