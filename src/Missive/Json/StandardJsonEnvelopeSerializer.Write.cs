using System.Buffers;
using System.Collections.Generic;
using System.Text.Json;
using System.Text.Json.Nodes;
using Missive.Serialization;

namespace Missive.Json;

public sealed partial class StandardJsonEnvelopeSerializer
{
    private protected override int SerializeCore<T>(IBufferWriter<byte> destination, MessageEnvelope<T> envelope, MessageTypeInfo<T> info)
        => WriteNode(destination, ToNode(envelope, info));

    private protected override int SerializeBatchCore(IBufferWriter<byte> destination, IReadOnlyList<MessageEnvelope> envelopes)
    {
        var array = new JsonArray();
        foreach (MessageEnvelope envelope in envelopes)
        {
            var visitor = new NodeBuilder();
            MessageTypes.Get(envelope.MessageType).Accept(ref visitor, envelope);
            array.Add((JsonNode?)visitor.Result);
        }

        return WriteNode(destination, array);
    }

    /// <summary>
    /// Writes the DOM straight into the destination through a pooled writer with the configured encoder and no
    /// serializer options, so every data node is written by its own metadata. The conventional path builds a DOM,
    /// but allocates nothing on top of it: no block buffer, no intermediate string.
    /// </summary>
    private int WriteNode(IBufferWriter<byte> destination, JsonNode node)
    {
        using PoolLease<Utf8JsonWriter> lease = Pools.RentEnvelopeWriter(destination);
        Utf8JsonWriter writer = lease.Value;
        node.WriteTo(writer);
        writer.Flush();
        return checked((int)writer.BytesCommitted);
    }

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
