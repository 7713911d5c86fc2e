using System;
using System.Buffers;
using System.Text;
using System.Text.Json;
using System.Text.Json.Nodes;
using Missive.Lexing;

namespace Missive.Serialization.Payloads;

/// <summary>
/// A <see cref="string"/> message: a JSON string in <c>data</c> whatever the content type (a JSON
/// string value and a text value are written the same way); protobuf <c>text_data</c> holds the
/// text itself, or its JSON form when the content type is JSON.
/// </summary>
internal sealed class StringPayloadCodec : PayloadCodec<string>
{
    public override PayloadKind Kind => PayloadKind.Text;

    public override string DefaultContentType => ContentTypes.TextPlain;

    public override void WriteJsonValue(Utf8JsonWriter writer, string message) => writer.WriteStringValue(message);

    public override JsonNode? ToNode(string message) => JsonValue.Create(message);

    public override string ReadJsonData(ref Utf8JsonReader reader)
        => reader.TokenType == JsonTokenType.String ? reader.GetString()! : throw NotAString();

    public override string ReadJsonData(JsonElement element)
        => element.ValueKind == JsonValueKind.String ? element.GetString()! : throw NotAString();

    public override string ReadBinary(byte[] data) => StrictUtf8.GetString(data);

    public override string ReadText(ReadOnlySpan<byte> utf8, string? contentType)
        => CloudEventRules.IsJsonContentType(contentType)
            ? JsonSerializer.Deserialize(utf8, MissiveJsonContext.Default.String) ?? throw NotAString()
            : StrictUtf8.GetString(utf8);

    public override void WritePayload(IBufferWriter<byte> destination, string message, string? contentType, Utf8JsonWriter? jsonWriter)
    {
        if (jsonWriter is not null)
        {
            jsonWriter.WriteStringValue(message);
        }
        else
        {
            Encoding.UTF8.GetBytes(message, destination);
        }
    }

    /// <summary>Plain text has a known size; text declared as JSON is written as a JSON string, staged.</summary>
    public override int GetKnownPayloadSize(string message, string? contentType)
        => CloudEventRules.IsJsonContentType(contentType) ? -1 : Encoding.UTF8.GetByteCount(message);

    private static InvalidOperationException NotAString() => new("The data of a string message type must be a JSON string.");
}
