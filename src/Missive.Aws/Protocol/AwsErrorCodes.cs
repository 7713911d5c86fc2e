using System;

namespace Missive.Aws.Protocol;

/// <summary>
/// Which service errors are worth another attempt, as AWS's standard retry mode classifies them
/// (https://docs.aws.amazon.com/sdkref/latest/guide/feature-retry-behavior.html): throttling errors, and
/// transient errors (HTTP 500, 502, 503, 504 and the timeout codes). Error codes are compared without a
/// namespace prefix (<c>com.amazonaws.sqs#RequestThrottled</c> is <c>RequestThrottled</c>).
/// </summary>
internal static class AwsErrorCodes
{
    public static bool IsThrottling(string? code, int? statusCode)
    {
        if (statusCode == 429)
        {
            return true;
        }

        return Bare(code) switch
        {
            "Throttling" or "ThrottlingException" or "ThrottledException" or "Throttled" or "RequestThrottledException"
                or "TooManyRequestsException" or "ProvisionedThroughputExceededException" or "TransactionInProgressException"
                or "RequestLimitExceeded" or "BandwidthLimitExceeded" or "LimitExceededException" or "RequestThrottled"
                or "SlowDown" or "PriorRequestNotComplete" or "EC2ThrottledException" or "KMSThrottlingException" => true,
            _ => false,
        };
    }

    public static bool IsTransient(string? code, int? statusCode)
    {
        if (statusCode is 500 or 502 or 503 or 504)
        {
            return true;
        }

        return Bare(code) switch
        {
            "RequestTimeout" or "RequestTimeoutException" or "InternalError" or "InternalFailure" or "ServiceUnavailable" => true,
            _ => false,
        };
    }

    /// <summary>The code without a namespace (<c>prefix#Code</c>) or a suffix (<c>Code:detail</c>).</summary>
    public static string Bare(string? code)
    {
        if (string.IsNullOrEmpty(code))
        {
            return string.Empty;
        }

        ReadOnlySpan<char> span = code;
        int hash = span.LastIndexOf('#');
        if (hash >= 0)
        {
            span = span[(hash + 1)..];
        }

        int colon = span.IndexOf(':');
        return (colon >= 0 ? span[..colon] : span).ToString();
    }
}
