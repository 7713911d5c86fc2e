using System;
using System.Buffers;
using System.Collections.Generic;
using System.Text;
using System.Text.Json;
using System.Text.Json.Nodes;
using Missive.Serialization;

namespace Missive.Json;

public sealed partial class StandardJsonEnvelopeSerializer
{
    private protected override int SerializeCore<T>(IBufferWriter<byte> destination, MessageEnvelope<T> envelope, MessageTypeInfo<T> info)
        => WriteText(destination, ToJsonString(ToNode(envelope, info)));

    private protected override int SerializeBatchCore(IBufferWriter<byte> destination, IReadOnlyList<MessageEnvelope> envelopes)
    {
        var array = new JsonArray();
        foreach (MessageEnvelope envelope in envelopes)
        {
            var visitor = new NodeBuilder();
            MessageTypes.Get(envelope.MessageType).Accept(ref visitor, envelope);
            array.Add((JsonNode?)visitor.Result);
        }

        return WriteText(destination, ToJsonString(array));
    }

    /// <summary>
    /// The DOM as a string, the way DOM-based serializers hand envelopes to a transport. Written
    /// through a writer with the configured encoder and no serializer options, so every data node
    /// is written by its own metadata.
    /// </summary>
    private string ToJsonString(JsonNode node)
    {
        var buffer = new ArrayBufferWriter<byte>();
        using (var writer = new Utf8JsonWriter(buffer, Settings.JsonWriterOptions))
        {
            node.WriteTo(writer);
        }

        return Encoding.UTF8.GetString(buffer.WrittenSpan);
    }

    private static int WriteText(IBufferWriter<byte> destination, string json)
        => checked((int)Encoding.UTF8.GetBytes(json.AsSpan(), destination));

    private static JsonObject ToNode<T>(MessageEnvelope<T> envelope, MessageTypeInfo<T> info)
    {
        var node = new JsonObject
        {
            [CloudEventAttributeNames.Id] = envelope.Id,
            [CloudEventAttributeNames.Source] = envelope.Source,
            [CloudEventAttributeNames.SpecVersion] = CloudEventRules.SpecVersion10,
            [CloudEventAttributeNames.Type] = envelope.Type,
        };
        if (envelope.Time is { } time)
        {
            node[CloudEventAttributeNames.Time] = JsonValue.Create(time);
        }

        if (envelope.DataContentType is { } contentType)
        {
            node[CloudEventAttributeNames.DataContentType] = contentType;
        }

        if (envelope.Message is { } message)
        {
            node[info.Codec.Kind == PayloadKind.Binary ? CloudEventAttributeNames.DataBase64 : CloudEventAttributeNames.Data] = info.Codec.ToNode(message);
        }

        if (envelope.DataSchema is { } schema)
        {
            node[CloudEventAttributeNames.DataSchema] = schema;
        }

        if (envelope.Subject is { } subject)
        {
            node[CloudEventAttributeNames.Subject] = subject;
        }

        if (envelope.ExtensionsOrNull is { } extensions)
        {
            foreach (KeyValuePair<string, CloudEventAttributeValue> extension in extensions)
            {
                CloudEventAttributeValue value = extension.Value;
                node[extension.Key] = value.Type switch
                {
                    CloudEventAttributeType.Boolean => JsonValue.Create(value.AsBoolean()),
                    CloudEventAttributeType.Integer => JsonValue.Create(value.AsInteger()),
                    CloudEventAttributeType.Binary => JsonValue.Create(value.AsBinary().ToArray(), MissiveJsonContext.Default.ByteArray),
                    CloudEventAttributeType.Timestamp => JsonValue.Create(value.AsTimestamp()),
                    _ => JsonValue.Create(value.AsString()),
                };
            }
        }

        return node;
    }

    private struct NodeBuilder : IEnvelopeVisitor
    {
        public JsonObject? Result { get; private set; }

        public void Visit<T>(MessageEnvelope<T> envelope, MessageTypeInfo<T> info) => Result = ToNode(envelope, info);
    }
}
