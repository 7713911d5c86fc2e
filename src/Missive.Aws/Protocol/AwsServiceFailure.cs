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

    /// <summary>A failure with no answer from the service: the connection failed or the attempt timed out.</summary>
    public static AwsServiceFailure NoResponse(string operation, Exception cause, bool timedOut)
        => new(timedOut ? $"{operation} timed out before the service answered." : $"{operation} failed before the service answered: {cause.Message}", timedOut ? "RequestTimeout" : "ConnectionFailure", null, null, senderFault: false, cause)
        {
            IsTransient = true,
        };

    public MessageTransportException ToTransportException(string operation, int attempts)
        => new($"{operation} failed{(attempts > 1 ? $" after {attempts} attempts" : string.Empty)}: {ErrorCode ?? "error"}{(StatusCode is { } status ? $" (HTTP {status})" : string.Empty)}: {Message}{(RequestId is null ? string.Empty : $" Request id {RequestId}.")}", this)
        {
            ErrorCode = ErrorCode,
            RequestId = RequestId,
            StatusCode = StatusCode,
            IsTransient = IsTransient,
        };
}
