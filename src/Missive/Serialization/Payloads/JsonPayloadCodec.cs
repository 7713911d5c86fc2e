using System;
using System.Buffers;
using System.Text.Json;
using System.Text.Json.Nodes;
using System.Text.Json.Serialization.Metadata;

namespace Missive.Serialization.Payloads;

/// <summary>A message written as embedded JSON through System.Text.Json metadata (source-generated or reflection).</summary>
internal sealed class JsonPayloadCodec<T> : PayloadCodec<T>
{
    private readonly JsonTypeInfo<T> _typeInfo;

    /// <summary>Whether <typeparamref name="T"/> is <see cref="JsonNode"/> or one of its kinds, which a value node cannot wrap.</summary>
    private static readonly bool IsNode = typeof(JsonNode).IsAssignableFrom(typeof(T));

    public JsonPayloadCodec(JsonTypeInfo<T> typeInfo) => _typeInfo = typeInfo;

    public override PayloadKind Kind => PayloadKind.Json;

    public override void WriteJsonValue(Utf8JsonWriter writer, T message) => JsonSerializer.Serialize(writer, message, _typeInfo);

    /// <summary>
    /// A value node over the typed message: written by the same converter as the Utf8JsonWriter path,
    /// so both serializers emit the same bytes (re-parsing would re-escape strings). A <see cref="JsonNode"/>
    /// message is copied (a node has one parent), and a <see cref="JsonElement"/> object or array becomes a
    /// node of its own (a value node holds only a primitive element).
    /// </summary>
    public override JsonNode? ToNode(T message)
    {
        if (IsNode)
        {
            return ((JsonNode)(object)message!).DeepClone();
        }

        if (message is JsonElement { ValueKind: JsonValueKind.Object or JsonValueKind.Array } element)
        {
            return element.ValueKind == JsonValueKind.Object ? JsonObject.Create(element) : JsonArray.Create(element);
        }

        return JsonValue.Create(message, _typeInfo);
    }

    public override T ReadJsonData(ref Utf8JsonReader reader) => JsonSerializer.Deserialize(ref reader, _typeInfo)!;

    public override T ReadJsonData(JsonElement element) => element.Deserialize(_typeInfo)!;

    public override T ReadBinary(byte[] data) => JsonSerializer.Deserialize(data, _typeInfo)!;

    public override T ReadText(ReadOnlySpan<byte> utf8, string? contentType) => JsonSerializer.Deserialize(utf8, _typeInfo)!;

    public override void WritePayload(IBufferWriter<byte> destination, T message, string? contentType, Utf8JsonWriter? jsonWriter)
        => JsonSerializer.Serialize(jsonWriter!, message, _typeInfo);
}
