using System.Buffers;
using System.Collections.Generic;
using System.Text.Json;
using Missive.Serialization;

namespace Missive.Json;

public sealed partial class Utf8JsonEnvelopeSerializer
{
    private protected override int SerializeCore<T>(IBufferWriter<byte> destination, MessageEnvelope<T> envelope, MessageTypeInfo<T> info)
    {
        int byParts = TryWriteByParts(destination, envelope, info);
        if (byParts >= 0)
        {
            return byParts;
        }

        using PoolLease<Utf8JsonWriter> lease = Pools.RentEnvelopeWriter(destination);
        Utf8JsonWriter writer = lease.Value;
        WriteEnvelope(writer, envelope, info);
        writer.Flush();
        return checked((int)writer.BytesCommitted);
    }

    private protected override int SerializeBatchCore(IBufferWriter<byte> destination, IReadOnlyList<MessageEnvelope> envelopes)
    {
        using PoolLease<Utf8JsonWriter> lease = Pools.RentEnvelopeWriter(destination);
        Utf8JsonWriter writer = lease.Value;
        writer.WriteStartArray();
        var visitor = new BatchWriter(writer);
        for (int i = 0; i < envelopes.Count; i++)
        {
            MessageEnvelope envelope = envelopes[i];
            MessageTypes.Get(envelope.MessageType).Accept(ref visitor, envelope);
        }

        writer.WriteEndArray();
        writer.Flush();
        return checked((int)writer.BytesCommitted);
    }

    /// <summary>Writes one envelope object: the single and the batch path both come here.</summary>
    internal static void WriteEnvelope<T>(Utf8JsonWriter writer, MessageEnvelope<T> envelope, MessageTypeInfo<T> info)
    {
        writer.WriteStartObject();
        writer.WriteString(JsonNames.Id, envelope.Id);
        writer.WriteString(JsonNames.Source, envelope.Source);
        writer.WriteString(JsonNames.SpecVersion, JsonNames.SpecVersion10);
        writer.WriteString(JsonNames.Type, envelope.Type);
        if (envelope.Time is { } time)
        {
            writer.WriteString(JsonNames.Time, time);
        }

        if (envelope.DataContentType is { } contentType)
        {
            if (ReferenceEquals(contentType, ContentTypes.ApplicationJson))
            {
                writer.WriteString(JsonNames.DataContentType, JsonNames.ApplicationJson);
            }
            else
            {
                writer.WriteString(JsonNames.DataContentType, contentType);
            }
        }

        if (envelope.Message is { } message)
        {
            writer.WritePropertyName(info.Codec.Kind == PayloadKind.Binary ? JsonNames.DataBase64 : JsonNames.Data);
            info.Codec.WriteJsonValue(writer, message);
        }

        if (envelope.DataSchema is { } schema)
        {
            writer.WriteString(JsonNames.DataSchema, schema);
        }

        if (envelope.Subject is { } subject)
        {
            writer.WriteString(JsonNames.Subject, subject);
        }

        if (envelope.ExtensionsOrNull is { Count: > 0 } extensions)
        {
            WriteExtensions(writer, extensions);
        }

        writer.WriteEndObject();
    }

    private static void WriteExtensions(Utf8JsonWriter writer, ExtensionAttributeCollection extensions)
    {
        for (int i = 0; i < extensions.Count; i++)
        {
            ref readonly KeyValuePair<string, CloudEventAttributeValue> item = ref extensions.ItemAt(i);
            CloudEventAttributeValue value = item.Value;
            switch (value.Type)
            {
                case CloudEventAttributeType.Boolean:
                    writer.WriteBoolean(item.Key, value.AsBoolean());
                    break;
                case CloudEventAttributeType.Integer:
                    writer.WriteNumber(item.Key, value.AsInteger());
                    break;
                case CloudEventAttributeType.Binary:
                    writer.WriteBase64String(item.Key, value.BinaryArray);
                    break;
                case CloudEventAttributeType.Timestamp:
                    writer.WriteString(item.Key, value.AsTimestamp());
                    break;
                default:
                    writer.WriteString(item.Key, value.AsString());
                    break;
            }
        }
    }

    private readonly struct BatchWriter : IEnvelopeVisitor
    {
        private readonly Utf8JsonWriter _writer;

        public BatchWriter(Utf8JsonWriter writer) => _writer = writer;

        public void Visit<T>(MessageEnvelope<T> envelope, MessageTypeInfo<T> info) => WriteEnvelope(_writer, envelope, info);
    }
}
