using System;
using System.Linq;
using System.Net.Http;
using System.Text.Json;
using System.Xml;

namespace Missive.Aws.Protocol;

/// <summary>
/// Reads a service's error answer into an <see cref="AwsServiceFailure"/>. AWS JSON protocols answer
/// <c>{"__type": "namespace#Code", "message": …}</c>, and SQS adds the Query-compatible code in the
/// <c>x-amzn-query-error</c> header (<c>AWS.SimpleQueueService.NonExistentQueue;Sender</c>), which is preferred
/// because it is the code SQS documents. The Query protocol answers
/// <c>&lt;ErrorResponse&gt;&lt;Error&gt;&lt;Type/&gt;&lt;Code/&gt;&lt;Message/&gt;&lt;/Error&gt;&lt;RequestId/&gt;&lt;/ErrorResponse&gt;</c>.
/// An answer that is neither still gives a failure, classified by its status.
/// </summary>
internal static class AwsErrorParser
{
    /// <summary>
    /// The failure an error answer describes. <paramref name="bodyTooLarge"/>: the body was over <see cref="AwsAnswer.ErrorLimit"/>
    /// and was not read; the status and headers still tell the code and whether it is worth another attempt.
    /// </summary>
    public static AwsServiceFailure Parse(AwsProtocol protocol, HttpResponseMessage response, ReadOnlyMemory<byte> body, bool bodyTooLarge)
    {
        int status = (int)response.StatusCode;
        string? requestId = Header(response, "x-amzn-RequestId") ?? Header(response, "x-amz-request-id");
        string? code = null, message = null, fault = null;
        try
        {
            if (bodyTooLarge)
            {
                message = $"The error answer was over the {AwsAnswer.ErrorLimit / 1024} KiB an AWS error answer takes; it was not read.";
            }
            else if (protocol == AwsProtocol.Json)
            {
                ReadJson(body, ref code, ref message);
            }
            else
            {
                ReadXml(body, ref code, ref message, ref fault, ref requestId);
            }
        }
        catch (Exception e) when (e is JsonException or XmlException or InvalidOperationException or ArgumentException)
        {
            // Not the protocol's error shape (a proxy's page, a truncated body, text that is not UTF-8): the status says what it was.
        }

        if (Header(response, "x-amzn-query-error") is { } queryError)
        {
            int semicolon = queryError.IndexOf(';', StringComparison.Ordinal);
            code = semicolon >= 0 ? queryError[..semicolon] : queryError;
            fault = semicolon >= 0 ? queryError[(semicolon + 1)..] : fault;
        }

        code ??= Header(response, "x-amzn-ErrorType") is { } errorType ? AwsErrorCodes.Bare(errorType) : $"Http{status}";
        bool senderFault = fault is not null ? fault.Equals("Sender", StringComparison.OrdinalIgnoreCase) : status is >= 400 and < 500;
        return new AwsServiceFailure(message ?? response.ReasonPhrase ?? "The service refused the request.", code, requestId, status, senderFault)
        {
            RetryAfter = RetryAfter(response),
            ServiceTime = IsClockError(code, message) ? response.Headers.Date : null,
        };
    }

    /// <summary>
    /// Whether a refusal says the request's signing time is off the service's clock: the codes AWS services use for it
    /// (<c>RequestTimeTooSkewed</c>, <c>RequestExpired</c>, <c>RequestInTheFuture</c>), and SQS's, SNS's and EventBridge's
    /// <c>SignatureDoesNotMatch</c> / <c>InvalidSignatureException</c> when their message says the signature expired or
    /// is not yet current (any other signature mismatch is a wrong key, which no clock fixes).
    /// </summary>
    internal static bool IsClockError(string? code, string? message) => AwsErrorCodes.Bare(code) switch
    {
        "RequestTimeTooSkewed" or "RequestExpired" or "RequestInTheFuture" => true,
        "SignatureDoesNotMatch" or "InvalidSignatureException" or "AuthFailure"
            => message is not null && (message.Contains("Signature expired", StringComparison.OrdinalIgnoreCase) || message.Contains("Signature not yet current", StringComparison.OrdinalIgnoreCase)),
        _ => false,
    };

    private static void ReadJson(ReadOnlyMemory<byte> body, ref string? code, ref string? message)
    {
        var reader = new Utf8JsonReader(body.Span);
        using JsonDocument document = JsonDocument.ParseValue(ref reader);
        if (document.RootElement.ValueKind != JsonValueKind.Object)
        {
            return;
        }

        foreach (JsonProperty property in document.RootElement.EnumerateObject())
        {
            if (property.Value.ValueKind != JsonValueKind.String)
            {
                continue;
            }

            if (property.NameEquals("__type") || property.NameEquals("code"))
            {
                code ??= AwsErrorCodes.Bare(property.Value.GetString());
            }
            else if (property.NameEquals("message") || property.NameEquals("Message"))
            {
                message = property.Value.GetString();
            }
        }
    }

    private static void ReadXml(ReadOnlyMemory<byte> body, ref string? code, ref string? message, ref string? fault, ref string? requestId)
    {
        var found = (Code: (string?)null, Message: (string?)null, Fault: (string?)null, RequestId: requestId);
        AwsXml.Walk(body.Span, ref found, static (ref XmlScan scan, ref (string? Code, string? Message, string? Fault, string? RequestId) found) =>
        {
            ReadOnlySpan<byte> name = scan.LocalName;
            if (name.SequenceEqual("Code"u8))
            {
                found.Code = scan.ReadText();
            }
            else if (name.SequenceEqual("Message"u8))
            {
                found.Message = scan.ReadText();
            }
            else if (name.SequenceEqual("Type"u8))
            {
                found.Fault = scan.ReadText();
            }
            else if (name.SequenceEqual("RequestId"u8))
            {
                found.RequestId = scan.ReadText();
            }
            else
            {
                return false;
            }

            return true;
        });
        (code, message, fault, requestId) = found;
    }

    /// <summary>The wait the service asked for, in milliseconds (<c>x-amz-retry-after</c>); invalid values are ignored.</summary>
    private static TimeSpan? RetryAfter(HttpResponseMessage response)
        => Header(response, "x-amz-retry-after") is { } text && long.TryParse(text, System.Globalization.NumberStyles.None, System.Globalization.CultureInfo.InvariantCulture, out long ms) && ms <= 3_600_000
            ? TimeSpan.FromMilliseconds(ms)
            : null;

    public static string? Header(HttpResponseMessage response, string name)
        => response.Headers.TryGetValues(name, out var values) || response.Content.Headers.TryGetValues(name, out values) ? values.FirstOrDefault() : null;
}
