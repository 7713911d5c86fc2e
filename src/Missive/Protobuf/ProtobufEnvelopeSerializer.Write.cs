using System.Buffers;
using System.Collections.Generic;
using System.Diagnostics;
using System.Text;
using System.Text.Json;
using Missive.Buffers;
using Missive.Serialization;

namespace Missive.Protobuf;

public sealed partial class ProtobufEnvelopeSerializer
{
    private protected override int SerializeCore<T>(IBufferWriter<byte> destination, MessageEnvelope<T> envelope, MessageTypeInfo<T> info)
    {
        var writer = new ProtobufWriter(destination);
        WriteEvent(ref writer, envelope, info, lengthPrefixed: false);
        writer.Flush();
        return checked((int)writer.BytesWritten);
    }

    private protected override int SerializeBatchCore(IBufferWriter<byte> destination, IReadOnlyList<MessageEnvelope> envelopes)
    {
        var writer = new ProtobufWriter(destination);
        for (int i = 0; i < envelopes.Count; i++)
        {
            MessageEnvelope envelope = envelopes[i];
            writer.WriteByte(CloudEventProto.Batch.EventsTag);
            var visitor = new BatchItemWriter(this, writer);
            MessageTypes.Get(envelope.MessageType).Accept(ref visitor, envelope);
            writer = visitor.Writer;
        }

        writer.Flush();
        return checked((int)writer.BytesWritten);
    }

    /// <summary>Writes one event; with <paramref name="lengthPrefixed"/> its size comes first (batch items).</summary>
    private void WriteEvent<T>(ref ProtobufWriter writer, MessageEnvelope<T> envelope, MessageTypeInfo<T> info, bool lengthPrefixed)
    {
        T message = envelope.Message;
        int payloadSize = message is null ? -1 : info.Codec.GetKnownPayloadSize(message, envelope.DataContentType);
        using PoolLease<PooledBufferWriter> staged = message is not null && payloadSize < 0 ? Pools.RentBuffer() : default;
        if (!staged.IsEmpty)
        {
            Stage(info, message!, envelope.DataContentType, staged.Value);
            payloadSize = staged.Value.WrittenCount;
        }

        if (lengthPrefixed)
        {
            writer.WriteVarint((uint)ComputeEventSize(envelope, payloadSize));
        }

        long start = writer.BytesWritten;
        WriteString(ref writer, CloudEventProto.CloudEvent.IdTag, envelope.Id);
        WriteString(ref writer, CloudEventProto.CloudEvent.SourceTag, envelope.Source);
        writer.WriteByte(CloudEventProto.CloudEvent.SpecVersionTag);
        writer.WriteString(CloudEventRules.SpecVersion10, CloudEventRules.SpecVersion10.Length);
        WriteString(ref writer, CloudEventProto.CloudEvent.TypeTag, envelope.Type);
        WriteAttributes(ref writer, envelope);

        if (payloadSize >= 0)
        {
            writer.WriteByte(info.Codec.Kind == PayloadKind.Binary ? CloudEventProto.CloudEvent.BinaryDataTag : CloudEventProto.CloudEvent.TextDataTag);
            writer.WriteVarint((uint)payloadSize);

            // The payload goes to the output directly: a staged copy, or the codec writing its known-size bytes.
            writer.Flush();
            if (!staged.IsEmpty)
            {
                writer.Output.Write(staged.Value.WrittenSpan);
            }
            else
            {
                info.Codec.WritePayload(writer.Output, message!, envelope.DataContentType, jsonWriter: null);
            }

            writer.AddDirectlyWritten(payloadSize);
        }

        AssertComputedSize(ComputeEventSize(envelope, payloadSize), writer.BytesWritten - start);
    }

    /// <summary>Writes a payload of unknown size into a pooled buffer (the only staging this format does).</summary>
    private void Stage<T>(MessageTypeInfo<T> info, T message, string? contentType, PooledBufferWriter staged)
    {
        using PoolLease<Utf8JsonWriter> json = Pools.RentEnvelopeWriter(staged);
        info.Codec.WritePayload(staged, message, contentType, json.Value);
        json.Value.Flush();
    }

    private static void WriteAttributes<T>(ref ProtobufWriter writer, MessageEnvelope<T> envelope)
    {
        if (envelope.Time is { } time)
        {
            ProtobufPrimitives.ToTimestamp(time, out long seconds, out int nanos);
            int body = ProtobufPrimitives.TimestampSize(seconds, nanos);
            WriteEntryHeader(ref writer, CloudEventAttributeNames.Time, 1 + ProtobufPrimitives.LengthDelimitedSize(body));
            writer.WriteByte(CloudEventProto.AttributeValue.CeTimestampTag);
            writer.WriteVarint((uint)body);
            writer.WriteTimestampBody(seconds, nanos);
        }

        WriteStringAttribute(ref writer, CloudEventAttributeNames.DataContentType, CloudEventProto.AttributeValue.CeStringTag, envelope.DataContentType);
        WriteStringAttribute(ref writer, CloudEventAttributeNames.DataSchema, CloudEventProto.AttributeValue.CeUriTag, envelope.DataSchema);
        WriteStringAttribute(ref writer, CloudEventAttributeNames.Subject, CloudEventProto.AttributeValue.CeStringTag, envelope.Subject);

        if (envelope.ExtensionsOrNull is { Count: > 0 } extensions)
        {
            for (int i = 0; i < extensions.Count; i++)
            {
                ref readonly KeyValuePair<string, CloudEventAttributeValue> item = ref extensions.ItemAt(i);
                WriteExtension(ref writer, item.Key, item.Value);
            }
        }
    }

    private static void WriteStringAttribute(ref ProtobufWriter writer, string name, byte valueTag, string? value)
    {
        if (value is null)
        {
            return;
        }

        int length = Encoding.UTF8.GetByteCount(value);
        WriteEntryHeader(ref writer, name, 1 + ProtobufPrimitives.LengthDelimitedSize(length));
        writer.WriteByte(valueTag);
        writer.WriteString(value, length);
    }

    private static void WriteExtension(ref ProtobufWriter writer, string name, CloudEventAttributeValue value)
    {
        switch (value.Type)
        {
            case CloudEventAttributeType.Boolean:
                WriteEntryHeader(ref writer, name, 2);
                writer.WriteByte(CloudEventProto.AttributeValue.CeBooleanTag);
                writer.WriteByte(value.AsBoolean() ? (byte)1 : (byte)0);
                break;
            case CloudEventAttributeType.Integer:
                int integer = value.AsInteger();
                WriteEntryHeader(ref writer, name, 1 + ProtobufPrimitives.Int32Size(integer));
                writer.WriteByte(CloudEventProto.AttributeValue.CeIntegerTag);
                writer.WriteInt32(integer);
                break;
            case CloudEventAttributeType.Binary:
                byte[] bytes = value.BinaryArray;
                WriteEntryHeader(ref writer, name, 1 + ProtobufPrimitives.LengthDelimitedSize(bytes.Length));
                writer.WriteByte(CloudEventProto.AttributeValue.CeBytesTag);
                writer.WriteBytes(bytes);
                break;
            case CloudEventAttributeType.Timestamp:
                ProtobufPrimitives.ToTimestamp(value.AsTimestamp(), out long seconds, out int nanos);
                int body = ProtobufPrimitives.TimestampSize(seconds, nanos);
                WriteEntryHeader(ref writer, name, 1 + ProtobufPrimitives.LengthDelimitedSize(body));
                writer.WriteByte(CloudEventProto.AttributeValue.CeTimestampTag);
                writer.WriteVarint((uint)body);
                writer.WriteTimestampBody(seconds, nanos);
                break;
            default:
                string text = value.AsString();
                int length = Encoding.UTF8.GetByteCount(text);
                WriteEntryHeader(ref writer, name, 1 + ProtobufPrimitives.LengthDelimitedSize(length));
                writer.WriteByte(StringTag(value.Type));
                writer.WriteString(text, length);
                break;
        }
    }

    /// <summary>
    /// Writes a map entry's tag and length, its key, and the tag and length of its value message. Every
    /// attribute name is ASCII (core names, and extension names by the CloudEvents naming rule), so its
    /// UTF-8 length is its length.
    /// </summary>
    private static void WriteEntryHeader(ref ProtobufWriter writer, string name, int valueSize)
    {
        writer.WriteByte(CloudEventProto.CloudEvent.AttributesTag);
        writer.WriteVarint((uint)EntryBodySize(name, valueSize));
        writer.WriteByte(CloudEventProto.AttributeEntry.KeyTag);
        writer.WriteString(name, name.Length);
        writer.WriteByte(CloudEventProto.AttributeEntry.ValueTag);
        writer.WriteVarint((uint)valueSize);
    }

    private static void WriteString(ref ProtobufWriter writer, byte tag, string value)
    {
        writer.WriteByte(tag);
        writer.WriteString(value, Encoding.UTF8.GetByteCount(value));
    }

    private static byte StringTag(CloudEventAttributeType type) => type switch
    {
        CloudEventAttributeType.Uri => CloudEventProto.AttributeValue.CeUriTag,
        CloudEventAttributeType.UriReference => CloudEventProto.AttributeValue.CeUriRefTag,
        _ => CloudEventProto.AttributeValue.CeStringTag,
    };

    /// <summary>Checks, in debug builds, that the size computed up front (and written as a length prefix) is what was written.</summary>
    [Conditional("DEBUG")]
    private static void AssertComputedSize(int computed, long written)
        => Debug.Assert(computed == written, $"Computed protobuf size {computed} differs from the {written} bytes written.");

    /// <summary>Writes one batch item through the generic path, carrying the writer and handing it back.</summary>
    private ref struct BatchItemWriter : IEnvelopeVisitor
    {
        private readonly ProtobufEnvelopeSerializer _owner;

        public BatchItemWriter(ProtobufEnvelopeSerializer owner, ProtobufWriter writer)
        {
            _owner = owner;
            Writer = writer;
        }

        public ProtobufWriter Writer;

        public void Visit<T>(MessageEnvelope<T> envelope, MessageTypeInfo<T> info) => _owner.WriteEvent(ref Writer, envelope, info, lengthPrefixed: true);
    }
}
