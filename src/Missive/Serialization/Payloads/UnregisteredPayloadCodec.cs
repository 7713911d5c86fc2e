using System;
using System.Buffers;
using System.Text;
using System.Text.Json;
using System.Text.Json.Nodes;

namespace Missive.Serialization.Payloads;

/// <summary>Reads the data of an envelope of a type nobody registered as it arrived (see <see cref="UnregisteredMessage"/>); it writes nothing.</summary>
internal sealed class UnregisteredPayloadCodec : PayloadCodec<UnregisteredMessage>
{
    public override PayloadKind Kind => PayloadKind.Json;

    public override UnregisteredMessage ReadJsonData(ref Utf8JsonReader reader)
        => new(Encoding.UTF8.GetBytes(JsonElement.ParseValue(ref reader).GetRawText()), isJson: true);

    public override UnregisteredMessage ReadJsonData(JsonElement element) => new(Encoding.UTF8.GetBytes(element.GetRawText()), isJson: true);

    public override UnregisteredMessage ReadBinary(byte[] data) => new(data, isJson: false);

    public override UnregisteredMessage ReadText(ReadOnlySpan<byte> utf8, string? contentType)
        => new(utf8.ToArray(), CloudEventRules.IsJsonContentType(contentType));

    public override void WriteJsonValue(Utf8JsonWriter writer, UnregisteredMessage message) => throw NotWritable();

    public override JsonNode? ToNode(UnregisteredMessage message) => throw NotWritable();

    public override void WritePayload(IBufferWriter<byte> destination, UnregisteredMessage message, string? contentType, Utf8JsonWriter? jsonWriter) => throw NotWritable();

    private static NotSupportedException NotWritable() => new("An UnregisteredMessage is what was received for a type nobody registered; it cannot be written. Register the type to publish it.");
}
