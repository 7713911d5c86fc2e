using System;
using System.Buffers;
using System.Text;
using System.Text.Json;
using System.Text.Json.Nodes;

namespace Missive.Serialization.Payloads;

/// <summary>
/// Binary messages (<c>byte[]</c> or <see cref="ReadOnlyMemory{T}"/> of bytes): written as
/// <c>data_base64</c> and protobuf <c>binary_data</c>. On read, a text <c>data</c> string becomes its
/// UTF-8 bytes and embedded JSON becomes the bytes of its JSON text.
/// </summary>
internal abstract class BinaryPayloadCodec<T> : PayloadCodec<T>
{
    public override PayloadKind Kind => PayloadKind.Binary;

    public override string DefaultContentType => ContentTypes.ApplicationOctetStream;

    public override void WriteJsonValue(Utf8JsonWriter writer, T message) => writer.WriteBase64StringValue(GetBytes(message).Span);

    public override JsonNode? ToNode(T message) => JsonValue.Create(GetBytes(message).ToArray(), MissiveJsonContext.Default.ByteArray);

    public override T ReadJsonData(ref Utf8JsonReader reader)
    {
        if (reader.TokenType == JsonTokenType.String)
        {
            return FromArray(Encoding.UTF8.GetBytes(reader.GetString()!));
        }

        using JsonDocument document = JsonDocument.ParseValue(ref reader);
        return FromArray(Encoding.UTF8.GetBytes(document.RootElement.GetRawText()));
    }

    public override T ReadJsonData(JsonElement element)
        => element.ValueKind == JsonValueKind.String
            ? FromArray(Encoding.UTF8.GetBytes(element.GetString()!))
            : FromArray(Encoding.UTF8.GetBytes(element.GetRawText()));

    public override T ReadBinary(byte[] data) => FromArray(data);

    public override T ReadText(ReadOnlySpan<byte> utf8, string? contentType) => FromArray(utf8.ToArray());

    public override void WritePayload(IBufferWriter<byte> destination, T message, string? contentType, Utf8JsonWriter? jsonWriter) => destination.Write(GetBytes(message).Span);

    public override int GetKnownPayloadSize(T message, string? contentType) => GetBytes(message).Length;

    protected abstract ReadOnlyMemory<byte> GetBytes(T message);

    protected abstract T FromArray(byte[] data);
}
