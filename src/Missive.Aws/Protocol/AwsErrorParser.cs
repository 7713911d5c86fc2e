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
    public static AwsServiceFailure Parse(AwsProtocol protocol, HttpResponseMessage response, byte[] body)
    {
        int status = (int)response.StatusCode;
        string? requestId = Header(response, "x-amzn-RequestId") ?? Header(response, "x-amz-request-id");
        string? code = null, message = null, fault = null;
        try
        {
            if (protocol == AwsProtocol.Json)
            {
                ReadJson(body, ref code, ref message);
            }
            else
            {
                ReadXml(body, ref code, ref message, ref fault, ref requestId);
            }
        }
        catch (Exception e) when (e is JsonException or XmlException)
        {
            // Not the protocol's error shape (a proxy's page, a truncated body): the status says what it was.
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
        };
    }

    private static void ReadJson(byte[] body, ref string? code, ref string? message)
    {
        using JsonDocument document = JsonDocument.Parse(body);
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

    private static void ReadXml(byte[] body, ref string? code, ref string? message, ref string? fault, ref string? requestId)
    {
        string? c = null, m = null, f = null, r = requestId;
        AwsXml.Walk(body, reader =>
        {
            switch (reader.LocalName)
            {
                case "Code":
                    c = reader.ReadElementContentAsString();
                    return true;
                case "Message":
                    m = reader.ReadElementContentAsString();
                    return true;
                case "Type":
                    f = reader.ReadElementContentAsString();
                    return true;
                case "RequestId":
                    r = reader.ReadElementContentAsString();
                    return true;
                default:
                    return false;
            }
        });
        (code, message, fault, requestId) = (c, m, f, r);
    }

    /// <summary>The wait the service asked for, in milliseconds (<c>x-amz-retry-after</c>); invalid values are ignored.</summary>
    private static TimeSpan? RetryAfter(HttpResponseMessage response)
        => Header(response, "x-amz-retry-after") is { } text && long.TryParse(text, System.Globalization.NumberStyles.None, System.Globalization.CultureInfo.InvariantCulture, out long ms) && ms <= 3_600_000
            ? TimeSpan.FromMilliseconds(ms)
            : null;

    public static string? Header(HttpResponseMessage response, string name)
        => response.Headers.TryGetValues(name, out var values) || response.Content.Headers.TryGetValues(name, out values) ? values.FirstOrDefault() : null;
}
