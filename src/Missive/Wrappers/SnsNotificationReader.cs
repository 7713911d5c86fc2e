using System;
using System.Collections.Generic;
using System.Collections.ObjectModel;
using System.Text.Json;
using Missive.Lexing;

namespace Missive.Transport;

/// <summary>
/// Reads the metadata of an SNS notification delivered to SQS without raw message delivery
/// (https://docs.aws.amazon.com/sns/latest/dg/sns-message-and-json-formats.html): its ids, subject,
/// timestamp and message attributes, each attribute as <c>{"Type": …, "Value": …}</c> with binary
/// values in base64.
/// </summary>
internal static class SnsNotificationReader
{
    /// <exception cref="FormatException">A binary attribute value is not base64.</exception>
    public static SnsMetadata ReadMetadata(ReadOnlySpan<byte> document, in WrapperMembers members, JsonReaderOptions options, KnownStrings strings)
    {
        IReadOnlyDictionary<string, MessageAttributeValue> attributes = members.MessageAttributes.IsPresent
            ? ReadAttributes(members.MessageAttributes.ValueIn(document), options, strings)
            : ReadOnlyDictionary<string, MessageAttributeValue>.Empty;
        return new SnsMetadata
        {
            MessageId = WrapperJson.StringOf(document, members.MessageId, options) ?? string.Empty,
            TopicArn = WrapperJson.RecurringStringOf(document, members.TopicArn, options, strings) ?? string.Empty,
            Subject = WrapperJson.StringOf(document, members.Subject, options),
            Timestamp = WrapperJson.TimeOf(document, members.Timestamp),
            UnsubscribeUrl = WrapperJson.RecurringStringOf(document, members.UnsubscribeUrl, options, strings),
            MessageAttributes = attributes,
        };
    }

    private static Dictionary<string, MessageAttributeValue> ReadAttributes(ReadOnlySpan<byte> json, JsonReaderOptions options, KnownStrings strings)
    {
        var attributes = new Dictionary<string, MessageAttributeValue>(StringComparer.Ordinal);
        var reader = new Utf8JsonReader(json, options);
        if (!reader.Read() || reader.TokenType != JsonTokenType.StartObject)
        {
            return attributes;
        }

        while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
        {
            string name = WrapperJson.RecurringString(ref reader, strings);
            reader.Read();
            if (reader.TokenType != JsonTokenType.StartObject)
            {
                reader.Skip();
                continue;
            }

            string type = "String";
            string? value = null;
            while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
            {
                bool isType = reader.ValueTextEquals("Type"u8);
                bool isValue = reader.ValueTextEquals("Value"u8);
                reader.Read();
                if (reader.TokenType == JsonTokenType.String && (isType || isValue))
                {
                    if (isType)
                    {
                        type = WrapperJson.RecurringString(ref reader, strings);
                    }
                    else
                    {
                        value = reader.GetString();
                    }
                }
                else
                {
                    reader.Skip();
                }
            }

            attributes[name] = type.StartsWith("Binary", StringComparison.Ordinal)
                ? new MessageAttributeValue { DataType = type, BinaryValue = Convert.FromBase64String(value ?? string.Empty) }
                : new MessageAttributeValue { DataType = type, StringValue = value };
        }

        return attributes;
    }
}
