using System;
using System.Buffers;
using System.Text;
using System.Text.Json;
using System.Text.Json.Nodes;

namespace Missive.Serialization.Payloads;

/// <summary>
/// Adapts an <see cref="IStringMessageSerializer"/>: its text is embedded as JSON when its content
/// type is JSON (and must then be valid JSON), otherwise written as a JSON string.
/// </summary>
internal sealed class StringSerializerPayloadCodec<T> : PayloadCodec<T>
{
    private readonly IStringMessageSerializer _serializer;
    private readonly bool _isJson;

    public StringSerializerPayloadCodec(IStringMessageSerializer serializer)
    {
        _serializer = serializer;
        _isJson = CloudEventRules.IsJsonContentType(serializer.ContentType);
    }

    public IStringMessageSerializer Serializer => _serializer;

    public override PayloadKind Kind => _isJson ? PayloadKind.Json : PayloadKind.Text;

    public override string DefaultContentType => _serializer.ContentType;

    public override void WriteJsonValue(Utf8JsonWriter writer, T message)
    {
        string text = Serialize(message);
        if (_isJson)
        {
            // Parsed and re-emitted (not copied raw) so the text is validated and normalized exactly
            // as the DOM-based serializer does it.
            using JsonDocument document = JsonDocument.Parse(text);
            document.RootElement.WriteTo(writer);
        }
        else
        {
            writer.WriteStringValue(text);
        }
    }

    public override JsonNode? ToNode(T message)
    {
        string text = Serialize(message);
        return _isJson ? JsonNode.Parse(text) : JsonValue.Create(text);
    }

    public override T ReadJsonData(ref Utf8JsonReader reader)
    {
        if (reader.TokenType == JsonTokenType.String)
        {
            return FromText(reader.GetString()!);
        }

        using JsonDocument document = JsonDocument.ParseValue(ref reader);
        return FromText(document.RootElement.GetRawText());
    }

    public override T ReadJsonData(JsonElement element)
        => FromText(element.ValueKind == JsonValueKind.String ? element.GetString()! : element.GetRawText());

    public override T ReadBinary(byte[] data) => FromText(Encoding.UTF8.GetString(data));

    public override T ReadText(ReadOnlySpan<byte> utf8, string? contentType) => FromText(Encoding.UTF8.GetString(utf8));

    public override void WritePayload(IBufferWriter<byte> destination, T message, string? contentType, Utf8JsonWriter? jsonWriter)
        => Encoding.UTF8.GetBytes(Serialize(message), destination);

    /// <summary>The serializer's text, which its contract says is never null: a null is refused, not published as no data.</summary>
    private string Serialize(T message)
        => _serializer.Serialize(message!) ?? throw ThrowHelper.Create(InvalidEnvelopeReason.InvalidData, $"The message serializer {_serializer.GetType().Name} returned null for a {typeof(T).Name}; it must return the data's text", attribute: CloudEventAttributeNames.Data);

    private T FromText(string text)
    {
        object result = _serializer.Deserialize(text, typeof(T));
        return result is T typed ? typed : throw new InvalidOperationException("The message serializer returned an object of another type than the registered message type.");
    }
}
