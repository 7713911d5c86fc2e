using System;
using System.Buffers;
using System.Text.Json;
using System.Text.Json.Nodes;
using System.Text.Json.Serialization;
using System.Text.Json.Serialization.Metadata;
using Missive.Lexing;

namespace Missive.Serialization.Payloads;

/// <summary>A message written as embedded JSON through System.Text.Json metadata (source-generated or reflection).</summary>
internal sealed class JsonPayloadCodec<T> : PayloadCodec<T>
{
    private readonly JsonTypeInfo<T> _typeInfo;

    /// <summary>Whether <typeparamref name="T"/> is <see cref="JsonNode"/> or one of its kinds, which a value node cannot wrap.</summary>
    private static readonly bool IsNode = typeof(JsonNode).IsAssignableFrom(typeof(T));

    /// <summary>The type's converter when System.Text.Json built it (not an application's converter), else <c>null</c>.</summary>
    private readonly JsonConverter<T>? _builtInConverter;

    public JsonPayloadCodec(JsonTypeInfo<T> typeInfo)
    {
        _typeInfo = typeInfo;
        _builtInConverter = typeInfo.Converter is JsonConverter<T> converter && converter.GetType().Assembly == typeof(JsonSerializer).Assembly
            ? converter
            : null;
    }

    public override PayloadKind Kind => PayloadKind.Json;

    /// <summary>Gets the metadata this codec reads and writes through.</summary>
    public JsonTypeInfo<T> TypeInfo => _typeInfo;

    /// <summary>
    /// The same metadata over a new copy of its options that also reads numbers from strings and names in any case, with
    /// a metadata cache of its own. The copy keeps the resolver (a source-generated context stays the source of metadata,
    /// nothing is reflected that was not before) behind a wrapper that only passes calls on: System.Text.Json shares one
    /// cache among options whose settings and resolver are equal, and the metadata in it learns the spelling of the member
    /// names it reads (MassTransit's camelCase, NServiceBus's names as declared), so that two buses sharing it made the
    /// second look up every name the slow way (11-13% on a one-line read, measured).
    /// </summary>
    public override PayloadCodec<T> Lenient()
    {
        JsonSerializerOptions current = _typeInfo.Options;
        var options = new JsonSerializerOptions(current)
        {
            NumberHandling = current.NumberHandling | JsonNumberHandling.AllowReadingFromString,
            PropertyNameCaseInsensitive = true,
            TypeInfoResolver = current.TypeInfoResolver is { } resolver ? new OwnCache(resolver) : null,
        };
        return new JsonPayloadCodec<T>((JsonTypeInfo<T>)options.GetTypeInfo(typeof(T)));
    }

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

    /// <summary>
    /// Reads the value in one pass through the type's own converter where System.Text.Json built it: the
    /// reader overload of <see cref="JsonSerializer"/> first skips the value to find its end and then reads
    /// it again. On failure the value is read again that way from where it started, so errors carry the
    /// serializer's path and checks exactly as before (a converter of the application's inside the value runs again
    /// then); application converters of the type itself always go that way, since only the serializer verifies that
    /// they read exactly one value.
    /// </summary>
    public override T ReadJsonData(ref Utf8JsonReader reader)
    {
        if (reader.TokenType != JsonTokenType.Null && !typeof(T).IsValueType)
        {
            return NotNull(ReadValue(ref reader));
        }

        return ReadValue(ref reader);
    }

    private T ReadValue(ref Utf8JsonReader reader)
    {
        if (_builtInConverter is { } converter && reader.TokenType is JsonTokenType.StartObject or JsonTokenType.StartArray)
        {
            Utf8JsonReader start = reader;
            try
            {
                return converter.Read(ref reader, typeof(T), _typeInfo.Options)!;
            }
            catch (Exception e) when (PayloadErrors.IsDataError(e))
            {
                reader = start;
            }
        }

        return JsonSerializer.Deserialize(ref reader, _typeInfo)!;
    }

    public override T ReadJsonData(JsonElement element)
    {
        T value = element.Deserialize(_typeInfo)!;
        return element.ValueKind == JsonValueKind.Null ? value : NotNull(value);
    }

    public override T ReadBinary(byte[] data) => ReadText(data, null);

    public override T ReadText(ReadOnlySpan<byte> utf8, string? contentType)
    {
        T value = JsonSerializer.Deserialize(utf8, _typeInfo)!;
        return value is null && !IsJsonNull(utf8) ? NotNull(value) : value;
    }

    /// <summary>Whether the JSON text is the literal <c>null</c>, with whitespace around it.</summary>
    private static bool IsJsonNull(ReadOnlySpan<byte> utf8)
    {
        int start = JsonWhitespace.Skip(utf8, 0);
        return start >= 0 && utf8[start..].TrimEnd(" \t\r\n"u8).SequenceEqual("null"u8);
    }

    /// <summary>Data that is not <c>null</c> read as null: an application converter's answer the handler could not use, refused as the data's failure.</summary>
    private static T NotNull(T value)
        => value is null && !typeof(T).IsValueType ? throw new InvalidOperationException($"The converter of {typeof(T).Name} answered null for data that is not null.") : value;

    public override void WritePayload(IBufferWriter<byte> destination, T message, string? contentType, Utf8JsonWriter? jsonWriter)
        => JsonSerializer.Serialize(jsonWriter!, message, _typeInfo);

    /// <summary>A resolver that passes every call to another: options over it share no metadata cache with any other options.</summary>
    private sealed class OwnCache(IJsonTypeInfoResolver resolver) : IJsonTypeInfoResolver
    {
        public JsonTypeInfo? GetTypeInfo(Type type, JsonSerializerOptions options) => resolver.GetTypeInfo(type, options);
    }
}
