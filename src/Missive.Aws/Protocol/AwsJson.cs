using System;
using System.Buffers;
using System.Collections.Generic;
using System.Text.Json;

namespace Missive.Aws.Protocol;

/// <summary>Writes AWS JSON request bodies and reads the members of their answers, with no reflection (trimming and AOT safe).</summary>
internal static class AwsJson
{
    /// <summary>
    /// Escapes only what JSON requires (quotes, backslashes, control characters), as the AWS SDKs do: the default
    /// encoder would spell every quote in a JSON message body as <c>\u0022</c>, six bytes for one.
    /// </summary>
    private static readonly JsonWriterOptions WriterOptions = new() { Encoder = System.Text.Encodings.Web.JavaScriptEncoder.UnsafeRelaxedJsonEscaping };

    public static byte[] Write<TState>(TState state, Action<Utf8JsonWriter, TState> write)
    {
        var buffer = new ArrayBufferWriter<byte>(512);
        using (var writer = new Utf8JsonWriter(buffer, WriterOptions))
        {
            writer.WriteStartObject();
            write(writer, state);
            writer.WriteEndObject();
        }

        return buffer.WrittenSpan.ToArray();
    }

    /// <summary>Writes a message attribute map in the SQS JSON shape: <c>{"name": {"DataType": …, "StringValue" | "BinaryValue": …}}</c>.</summary>
    public static void WriteAttributes(Utf8JsonWriter writer, string propertyName, IReadOnlyDictionary<string, MessageAttributeValue>? attributes)
    {
        if (attributes is null || attributes.Count == 0)
        {
            return;
        }

        writer.WriteStartObject(propertyName);
        foreach (KeyValuePair<string, MessageAttributeValue> attribute in attributes)
        {
            writer.WriteStartObject(attribute.Key);
            writer.WriteString("DataType", attribute.Value.DataType);
            if (attribute.Value.IsBinary)
            {
                writer.WriteBase64String("BinaryValue", attribute.Value.BinaryValue.Span);
            }
            else
            {
                writer.WriteString("StringValue", attribute.Value.StringValue);
            }

            writer.WriteEndObject();
        }

        writer.WriteEndObject();
    }

    /// <summary>Reads an SQS message attribute map; <c>null</c> or absent gives an empty map.</summary>
    public static Dictionary<string, MessageAttributeValue> ReadAttributes(JsonElement element)
    {
        var attributes = new Dictionary<string, MessageAttributeValue>(StringComparer.Ordinal);
        if (element.ValueKind != JsonValueKind.Object)
        {
            return attributes;
        }

        foreach (JsonProperty property in element.EnumerateObject())
        {
            string type = String(property.Value, "DataType") ?? "String";
            attributes[property.Name] = type.StartsWith("Binary", StringComparison.Ordinal)
                ? new MessageAttributeValue { DataType = type, BinaryValue = property.Value.TryGetProperty("BinaryValue", out JsonElement binary) && binary.ValueKind == JsonValueKind.String ? binary.GetBytesFromBase64() : ReadOnlyMemory<byte>.Empty }
                : new MessageAttributeValue { DataType = type, StringValue = String(property.Value, "StringValue") };
        }

        return attributes;
    }

    public static string? String(JsonElement element, string name)
        => element.ValueKind == JsonValueKind.Object && element.TryGetProperty(name, out JsonElement value) && value.ValueKind == JsonValueKind.String ? value.GetString() : null;

    public static JsonElement Property(JsonElement element, string name)
        => element.ValueKind == JsonValueKind.Object && element.TryGetProperty(name, out JsonElement value) ? value : default;
}
