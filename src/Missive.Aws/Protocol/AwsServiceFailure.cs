using System;

namespace Missive.Aws.Protocol;

/// <summary>
/// One failed attempt, as the retry strategy sees it: what the service answered (or that nothing came
/// back), whether it is worth another attempt, and how long the service asked the caller to wait.
/// It never leaves the transport: the last one becomes a <see cref="MessageTransportException"/>.
/// </summary>
internal sealed class AwsServiceFailure : Exception
{
    public AwsServiceFailure(string message, string? errorCode, string? requestId, int? statusCode, bool senderFault, Exception? inner = null)
        : base(message, inner)
    {
        ErrorCode = errorCode;
        RequestId = requestId;
        StatusCode = statusCode;
        SenderFault = senderFault;
        IsThrottling = AwsErrorCodes.IsThrottling(errorCode, statusCode);
        IsTransient = IsThrottling || AwsErrorCodes.IsTransient(errorCode, statusCode);
    }

    public string? ErrorCode { get; }

    public string? RequestId { get; }

    public int? StatusCode { get; }

    public bool SenderFault { get; }

    public bool IsThrottling { get; }

    /// <summary>Gets whether another attempt may succeed: throttling, a server error, a timeout, a lost connection.</summary>
    public bool IsTransient { get; init; }

    /// <summary>Gets the wait the service asked for (<c>x-amz-retry-after</c>), or <c>null</c>.</summary>
    public TimeSpan? RetryAfter { get; init; }

    /// <summary>Gets the service's time (its <c>Date</c> header) when it refused the request as signed at the wrong time, else <c>null</c>.</summary>
    public DateTimeOffset? ServiceTime { get; init; }

    /// <summary>A failure with no answer from the service: the connection failed or the attempt timed out.</summary>
    public static AwsServiceFailure NoResponse(string operation, Exception cause, bool timedOut)
        => new(timedOut ? $"{operation} timed out before the service answered." : $"{operation} failed before the service answered: {cause.Message}", timedOut ? "RequestTimeout" : "ConnectionFailure", null, null, senderFault: false, cause)
        {
            IsTransient = true,
        };

    /// <summary>The error code of a call whose credentials could not be had (their provider failed to refresh them).</summary>
    public const string CredentialsUnavailableCode = "CredentialsUnavailable";

    /// <summary>The credential provider failed before anything was sent: worth another attempt (a refresh that failed once).</summary>
    public static AwsServiceFailure CredentialsUnavailable(Exception cause)
        => new($"The credentials could not be had: their provider failed ({cause.GetType().Name}: {cause.Message}).", CredentialsUnavailableCode, null, null, senderFault: false, cause)
        {
            IsTransient = true,
        };

    /// <summary>What chooses a service's endpoint, for a failure that did not reach it (refused, not resolved, no answer).</summary>
    internal static string EndpointChoice(string service)
    {
        string variable = service switch { "SNS" => "AWS_ENDPOINT_URL_SNS", "EventBridge" => "AWS_ENDPOINT_URL_EVENTBRIDGE", _ => "AWS_ENDPOINT_URL_SQS" };
        return $"If it repeats, check that endpoint and what chose it: {service}ServiceUrl or ServiceUrl in the Missive.Aws options, the {variable} and AWS_ENDPOINT_URL variables, else the Region.";
    }

    /// <summary>A successful answer larger than the service can send for the call (<see cref="AwsAnswer"/>): not read, not retried.</summary>
    public static AwsServiceFailure TooLarge(string operation, int limit, string? requestId)
        => new($"{operation} answered with a body over the {limit:N0} bytes the service can send for it; it was not read.", "AnswerTooLarge", requestId, 200, senderFault: false);

    /// <summary>A successful answer that is not what the service sends: not JSON or XML, not UTF-8, an id over its length.</summary>
    public static AwsServiceFailure Malformed(string operation, string what, string? requestId, Exception? inner = null)
        => new($"{operation} answered with {what}.", "MalformedResponse", requestId, 200, senderFault: false, inner);

    /// <summary>
    /// The failure as the transport's exception: the operation, the resource as configured and resolved, the endpoint
    /// and signing region, what the service answered, and, for a failure no retry clears, what to check.
    /// </summary>
    public MessageTransportException ToTransportException(AwsCallSite site, string operation, int attempts)
    {
        string? hint = AwsErrorHints.For(ErrorCode, site, operation, Message);
        string where = site.Resource is null ? string.Empty : $" on {site.Resource}";
        string unreached = ErrorCode switch
        {
            "ConnectionFailure" or "RequestTimeout" => " " + EndpointChoice(site.Service),
            CredentialsUnavailableCode => $" Credentials come from {site.CredentialSource}: if it repeats, check that source (the instance or task role's metadata endpoint, the SSO session, the profile).",
            _ => string.Empty,
        };
        return new($"{site.Service} {operation}{where} failed{(attempts > 1 ? $" after {attempts} attempts" : string.Empty)}: {ErrorCode ?? "error"}{(StatusCode is { } status ? $" (HTTP {status})" : string.Empty)}: {Message} Endpoint {site.Endpoint}, signing region {site.Region}.{(RequestId is null ? string.Empty : $" Request id {RequestId}.")}{(hint is null ? string.Empty : " " + hint)}{unreached}", this)
        {
            ErrorCode = ErrorCode,
            RequestId = RequestId,
            StatusCode = StatusCode,
            FailureKind = IsTransient ? TransportFailureKind.Transient : hint is not null ? TransportFailureKind.Persistent : TransportFailureKind.Refused,
        };
    }
}
