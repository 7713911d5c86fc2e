using System;
using System.Collections.Generic;
using System.Globalization;
using System.Text;

namespace Missive.InMemory;

/// <summary>
/// Writes SNS notifications the way SNS delivers them to SQS subscribers without raw delivery
/// (https://docs.aws.amazon.com/sns/latest/dg/sns-message-and-json-formats.html): pretty-printed with two-space indent and <c>"Key" : "Value"</c>, fields in SNS's order,
/// <c>"</c> and <c>\</c> escaped in <c>Message</c> while <c>/</c> and non-ASCII stay as they are.
/// FIFO topics add <c>SequenceNumber</c> after <c>MessageId</c> and are not signed (no <c>SignatureVersion</c>, <c>Signature</c>
/// or <c>SigningCertURL</c>), but carry <c>UnsubscribeURL</c> like standard topics; it names the subscription, not the message.
/// </summary>
internal static class SnsNotificationFormat
{
    /// <summary>A placeholder signature: the in-memory broker does not sign.</summary>
    private const string Signature = "EXAMPLEpH+DcEwjAPg8O9mY8dReBSwksfg2S7WKQcikcNKWLQjwu6A4VbeS0QHVCkhRS7fUQvi2egU3N858fiTDN6bkkOxYDVrY0Ad8L10Hs3zH81mtnPk5uvvolIC1CXGu43obcgFxeL3khZl8IKvO61GWB6jI9b5+gLPoBc1Q=";

    public static string Write(string messageId, string topicArn, string subscriptionArn, string? subject, string message, DateTimeOffset timestamp, IReadOnlyDictionary<string, MessageAttributeValue> attributes, string region, bool fifo, long sequenceNumber)
    {
        var json = new StringBuilder(message.Length + 1024);
        json.Append("{\n");
        Field(json, "Type", "Notification");
        Field(json, "MessageId", messageId);
        if (fifo)
        {
            Field(json, "SequenceNumber", sequenceNumber.ToString("D20", CultureInfo.InvariantCulture));
        }

        Field(json, "TopicArn", topicArn);
        if (subject is not null)
        {
            Field(json, "Subject", subject);
        }

        Field(json, "Message", message);
        Field(json, "Timestamp", timestamp.UtcDateTime.ToString("yyyy-MM-dd'T'HH:mm:ss.fff'Z'", CultureInfo.InvariantCulture));
        if (!fifo)
        {
            Field(json, "SignatureVersion", "1");
            Field(json, "Signature", Signature);
            Field(json, "SigningCertURL", $"https://sns.{region}.amazonaws.com/SimpleNotificationService-0000000000000000000000.pem");
        }

        Field(json, "UnsubscribeURL", $"https://sns.{region}.amazonaws.com/?Action=Unsubscribe&SubscriptionArn={subscriptionArn}", last: attributes.Count == 0);

        if (attributes.Count > 0)
        {
            json.Append("  \"MessageAttributes\" : {");
            bool first = true;
            foreach (KeyValuePair<string, MessageAttributeValue> attribute in attributes)
            {
                json.Append(first ? "\n" : ",\n");
                first = false;
                string value = attribute.Value.IsBinary ? Convert.ToBase64String(attribute.Value.BinaryValue.Span) : attribute.Value.StringValue ?? string.Empty;
                json.Append("    ");
                AppendString(json, attribute.Key);
                json.Append(" : {\"Type\":");
                AppendString(json, attribute.Value.DataType);
                json.Append(",\"Value\":");
                AppendString(json, value);
                json.Append('}');
            }

            json.Append("\n  }\n");
        }

        json.Append('}');
        return json.ToString();
    }

    private static void Field(StringBuilder json, string name, string value, bool last = false)
    {
        json.Append("  \"").Append(name).Append("\" : ");
        AppendString(json, value);
        json.Append(last ? "\n" : ",\n");
    }

    /// <summary>SNS's escaping: quote and backslash, and the control characters JSON forbids; nothing else.</summary>
    private static void AppendString(StringBuilder json, string value)
    {
        json.Append('"');
        foreach (char c in value)
        {
            switch (c)
            {
                case '"':
                    json.Append("\\\"");
                    break;
                case '\\':
                    json.Append("\\\\");
                    break;
                case '\n':
                    json.Append("\\n");
                    break;
                case '\r':
                    json.Append("\\r");
                    break;
                case '\t':
                    json.Append("\\t");
                    break;
                case < ' ':
                    json.Append("\\u").Append(((int)c).ToString("x4", CultureInfo.InvariantCulture));
                    break;
                default:
                    json.Append(c);
                    break;
            }
        }

        json.Append('"');
    }
}
