using System;
using System.Buffers;
using System.Globalization;
using System.Text;
using System.Text.Encodings.Web;
using System.Text.Json;
using Missive.Transport;

namespace Missive.InMemory;

/// <summary>
/// Writes EventBridge events the way a rule with an SQS target delivers them (https://docs.aws.amazon.com/eventbridge/latest/ref/overiew-event-structure.html): compact
/// JSON, <c>version, id, detail-type, source, account, time, region, resources, detail</c>, time to the
/// second with <c>Z</c>.
/// </summary>
internal static class EventBridgeEventFormat
{
    private static readonly JsonWriterOptions WriterOptions = new() { Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping, SkipValidation = false };

    public static string Write(string id, EventBridgeEntry entry, string account, string region, DateTimeOffset time)
    {
        var buffer = new ArrayBufferWriter<byte>(entry.Detail.Length + 512);
        using (var writer = new Utf8JsonWriter(buffer, WriterOptions))
        {
            writer.WriteStartObject();
            writer.WriteString("version", "0");
            writer.WriteString("id", id);
            writer.WriteString("detail-type", entry.DetailType);
            writer.WriteString("source", entry.Source);
            writer.WriteString("account", account);
            writer.WriteString("time", time.UtcDateTime.ToString("yyyy-MM-dd'T'HH:mm:ss'Z'", CultureInfo.InvariantCulture));
            writer.WriteString("region", region);
            writer.WriteStartArray("resources");
            foreach (string resource in entry.Resources)
            {
                writer.WriteStringValue(resource);
            }

            writer.WriteEndArray();
            writer.WritePropertyName("detail");
            writer.WriteRawValue(entry.Detail, skipInputValidation: true); // validated as a JSON object on put
            writer.WriteEndObject();
        }

        return Encoding.UTF8.GetString(buffer.WrittenSpan);
    }

    /// <summary>Tells whether a detail is one JSON object, as PutEvents requires.</summary>
    public static bool IsJsonObject(string detail)
    {
        try
        {
            byte[] utf8 = Encoding.UTF8.GetBytes(detail);
            var reader = new Utf8JsonReader(utf8);
            if (!reader.Read() || reader.TokenType != JsonTokenType.StartObject)
            {
                return false;
            }

            reader.Skip();
            return !reader.Read();
        }
        catch (JsonException)
        {
            return false;
        }
    }
}
