using System;
using System.Buffers;
using System.Collections.Generic;
using System.Text;
using System.Text.Json;
using Microsoft.Extensions.Logging;
using Missive.Buffers;
using Missive.Serialization;

namespace Missive.Protobuf;

/// <summary>
/// The CloudEvents protobuf format (<c>io.cloudevents.v1.CloudEvent</c>), written by hand into the
/// caller's <see cref="IBufferWriter{T}"/> and read from a <see cref="ReadOnlySequence{T}"/>, with no
/// intermediate message objects.
/// </summary>
/// <remarks>
/// <para>Encode rules (canonical: the bytes Google.Protobuf writes for the same event and attribute order):</para>
/// <list type="bullet">
/// <item>Fields in number order: <c>id</c> (1), <c>source</c> (2), <c>spec_version</c> (3), <c>type</c> (4),
/// then one <c>attributes</c> (5) map entry per attribute, then the data.</item>
/// <item>Map entries in this order: <c>time</c> (<c>ce_timestamp</c>), <c>datacontenttype</c> (<c>ce_string</c>),
/// <c>dataschema</c> (<c>ce_uri</c>), <c>subject</c> (<c>ce_string</c>), then extensions in insertion order,
/// each with the case of its type.</item>
/// <item>JSON and text messages as <c>text_data</c> (7): the UTF-8 JSON the message serializer writes,
/// or the text; binary messages as <c>binary_data</c> (6). A null message writes no data field.</item>
/// <item>Length prefixes are minimal varints; sizes are computed up front, and only a payload whose size is
/// unknown until written (JSON) is staged in a pooled buffer, cleared as <c>CleanRentedBuffers</c> says.</item>
/// </list>
/// <para>Decode rules:</para>
/// <list type="bullet">
/// <item>Fields in any order; for repeated scalar fields and map keys the last one wins, as in protobuf.
/// Unknown fields of every wire type are skipped; over-long varints are accepted.</item>
/// <item>Rejected: lengths past the end, wire types 6 and 7, truncated input, missing <c>id</c>, <c>source</c>,
/// <c>spec_version</c> or <c>type</c>, a <c>spec_version</c> other than <c>1.0</c>, invalid UTF-8, integers out of
/// the int32 range, attribute values with no case set, core attributes with the wrong case, reserved or invalid
/// extension names.</item>
/// <item><c>proto_data</c> (8) is not supported: an event carrying it is rejected with
/// <see cref="InvalidEnvelopeReason.UnsupportedFormat"/> (publish protobuf payloads as <c>binary_data</c>).</item>
/// </list>
/// <para>Protobuf envelopes travel in SQS and SNS bodies as base64 text; the text conveniences
/// (<c>SerializeToString</c>, <c>Deserialize(string)</c>) use base64 for this format.</para>
/// </remarks>
public sealed partial class ProtobufEnvelopeSerializer : EnvelopeSerializer
{
    private static readonly UTF8Encoding StrictUtf8 = new(encoderShouldEmitUTF8Identifier: false, throwOnInvalidBytes: true);

    /// <summary>Creates the serializer.</summary>
    /// <param name="messageTypes">The registered message types. Must not be null.</param>
    /// <param name="logger">A logger, or <c>null</c>.</param>
    public ProtobufEnvelopeSerializer(MessageTypeMap messageTypes, ILogger<ProtobufEnvelopeSerializer>? logger = null)
        : base(messageTypes, logger)
    {
        LogCreated();
    }

    /// <inheritdoc />
    public override string ContentType => ContentTypes.CloudEventsProtobuf;

    /// <inheritdoc />
    public override string BatchContentType => ContentTypes.CloudEventsBatchProtobuf;

    /// <inheritdoc />
    public override bool IsBinaryFormat => true;

    /// <inheritdoc />
    public override int Serialize<T>(IBufferWriter<byte> destination, MessageEnvelope<T> envelope)
    {
        ArgumentNullException.ThrowIfNull(destination);
        ArgumentNullException.ThrowIfNull(envelope);
        EnvelopeValidator.Validate(envelope, position: -1);
        MessageTypeInfo<T> info = MessageTypes.Get<T>();
        var writer = new ProtobufWriter(destination);
        WriteEvent(ref writer, envelope, info, lengthPrefixed: false);
        writer.Flush();
        return checked((int)writer.BytesWritten);
    }

    /// <inheritdoc />
    public override int SerializeBatch(IBufferWriter<byte> destination, IReadOnlyList<MessageEnvelope> envelopes)
    {
        ArgumentNullException.ThrowIfNull(destination);
        ArgumentNullException.ThrowIfNull(envelopes);
        var writer = new ProtobufWriter(destination);
        for (int i = 0; i < envelopes.Count; i++)
        {
            MessageEnvelope envelope = envelopes[i] ?? throw new ArgumentException("A batch cannot hold null envelopes.", nameof(envelopes));
            EnvelopeValidator.Validate(envelope, position: -1);
            writer.WriteByte(CloudEventFields.Events);
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
        PooledBufferWriter? staged = null;
        try
        {
            int payloadSize = -1;
            T message = envelope.Message;
            if (message is not null)
            {
                payloadSize = info.Codec.GetKnownPayloadSize(message, envelope.DataContentType);
                if (payloadSize < 0)
                {
                    staged = Stage(info, message, envelope.DataContentType);
                    payloadSize = staged.WrittenCount;
                }
            }

            if (lengthPrefixed)
            {
                writer.WriteVarint((uint)ComputeEventSize(envelope, payloadSize));
            }

            WriteString(ref writer, CloudEventFields.Id, envelope.Id);
            WriteString(ref writer, CloudEventFields.Source, envelope.Source);
            writer.WriteByte(CloudEventFields.SpecVersion);
            writer.WriteString(CloudEventRules.SpecVersion10, 3);
            WriteString(ref writer, CloudEventFields.Type, envelope.Type);
            WriteAttributes(ref writer, envelope);

            if (payloadSize >= 0)
            {
                writer.WriteByte(info.Codec.Kind == PayloadKind.Binary ? CloudEventFields.BinaryData : CloudEventFields.TextData);
                writer.WriteVarint((uint)payloadSize);

                // The payload goes to the output directly: a staged copy, or the codec writing its known-size bytes.
                writer.Flush();
                if (staged is not null)
                {
                    writer.Output.Write(staged.WrittenSpan);
                }
                else
                {
                    info.Codec.WritePayload(writer.Output, message!, envelope.DataContentType, jsonWriter: null);
                }

                writer.AddDirectlyWritten(payloadSize);
            }
        }
        finally
        {
            if (staged is not null)
            {
                ReturnBuffer(staged);
            }
        }
    }

    /// <summary>Writes a payload of unknown size into a pooled buffer (the only staging this format does).</summary>
    private PooledBufferWriter Stage<T>(MessageTypeInfo<T> info, T message, string? contentType)
    {
        PooledBufferWriter staged = RentBuffer();
        Utf8JsonWriter json = RentJsonWriter(staged);
        try
        {
            info.Codec.WritePayload(staged, message, contentType, json);
            json.Flush();
            return staged;
        }
        catch
        {
            ReturnBuffer(staged);
            throw;
        }
        finally
        {
            ReturnJsonWriter(json);
        }
    }

    private static void WriteAttributes<T>(ref ProtobufWriter writer, MessageEnvelope<T> envelope)
    {
        if (envelope.Time is { } time)
        {
            ProtobufPrimitives.ToTimestamp(time, out long seconds, out int nanos);
            int body = ProtobufPrimitives.TimestampSize(seconds, nanos);
            WriteEntryHeader(ref writer, "time", 4, 1 + ProtobufPrimitives.LengthDelimitedSize(body));
            writer.WriteByte(CloudEventFields.CeTimestamp);
            writer.WriteVarint((uint)body);
            writer.WriteTimestampBody(seconds, nanos);
        }

        WriteStringAttribute(ref writer, "datacontenttype", 15, CloudEventFields.CeString, envelope.DataContentType);
        WriteStringAttribute(ref writer, "dataschema", 10, CloudEventFields.CeUri, envelope.DataSchema);
        WriteStringAttribute(ref writer, "subject", 7, CloudEventFields.CeString, envelope.Subject);

        if (envelope.ExtensionsOrNull is { Count: > 0 } extensions)
        {
            for (int i = 0; i < extensions.Count; i++)
            {
                ref readonly KeyValuePair<string, CloudEventAttributeValue> item = ref extensions.ItemAt(i);
                WriteExtension(ref writer, item.Key, item.Value);
            }
        }
    }

    private static void WriteStringAttribute(ref ProtobufWriter writer, string name, int nameLength, byte valueTag, string? value)
    {
        if (value is null)
        {
            return;
        }

        int length = Encoding.UTF8.GetByteCount(value);
        WriteEntryHeader(ref writer, name, nameLength, 1 + ProtobufPrimitives.LengthDelimitedSize(length));
        writer.WriteByte(valueTag);
        writer.WriteString(value, length);
    }

    private static void WriteExtension(ref ProtobufWriter writer, string name, CloudEventAttributeValue value)
    {
        int nameLength = name.Length; // extension names are ASCII
        switch (value.Type)
        {
            case CloudEventAttributeType.Boolean:
                WriteEntryHeader(ref writer, name, nameLength, 2);
                writer.WriteByte(CloudEventFields.CeBoolean);
                writer.WriteByte(value.AsBoolean() ? (byte)1 : (byte)0);
                break;
            case CloudEventAttributeType.Integer:
                int integer = value.AsInteger();
                WriteEntryHeader(ref writer, name, nameLength, 1 + ProtobufPrimitives.Int32Size(integer));
                writer.WriteByte(CloudEventFields.CeInteger);
                writer.WriteInt32(integer);
                break;
            case CloudEventAttributeType.Binary:
                byte[] bytes = value.BinaryArray;
                WriteEntryHeader(ref writer, name, nameLength, 1 + ProtobufPrimitives.LengthDelimitedSize(bytes.Length));
                writer.WriteByte(CloudEventFields.CeBytes);
                writer.WriteBytes(bytes);
                break;
            case CloudEventAttributeType.Timestamp:
                ProtobufPrimitives.ToTimestamp(value.AsTimestamp(), out long seconds, out int nanos);
                int body = ProtobufPrimitives.TimestampSize(seconds, nanos);
                WriteEntryHeader(ref writer, name, nameLength, 1 + ProtobufPrimitives.LengthDelimitedSize(body));
                writer.WriteByte(CloudEventFields.CeTimestamp);
                writer.WriteVarint((uint)body);
                writer.WriteTimestampBody(seconds, nanos);
                break;
            default:
                string text = value.AsString();
                int length = Encoding.UTF8.GetByteCount(text);
                WriteEntryHeader(ref writer, name, nameLength, 1 + ProtobufPrimitives.LengthDelimitedSize(length));
                writer.WriteByte(StringTag(value.Type));
                writer.WriteString(text, length);
                break;
        }
    }

    /// <summary>Writes a map entry's tag and length, its key, and the tag and length of its value message.</summary>
    private static void WriteEntryHeader(ref ProtobufWriter writer, string name, int nameLength, int valueSize)
    {
        writer.WriteByte(CloudEventFields.Attribute);
        writer.WriteVarint((uint)(1 + ProtobufPrimitives.LengthDelimitedSize(nameLength) + 1 + ProtobufPrimitives.LengthDelimitedSize(valueSize)));
        writer.WriteByte(CloudEventFields.EntryKey);
        writer.WriteString(name, nameLength);
        writer.WriteByte(CloudEventFields.EntryValue);
        writer.WriteVarint((uint)valueSize);
    }

    private static void WriteString(ref ProtobufWriter writer, byte tag, string value)
    {
        writer.WriteByte(tag);
        writer.WriteString(value, Encoding.UTF8.GetByteCount(value));
    }

    private static byte StringTag(CloudEventAttributeType type) => type switch
    {
        CloudEventAttributeType.Uri => CloudEventFields.CeUri,
        CloudEventAttributeType.UriReference => CloudEventFields.CeUriRef,
        _ => CloudEventFields.CeString,
    };

    /// <summary>The size of an event message body, computed the way it is written.</summary>
    private static int ComputeEventSize<T>(MessageEnvelope<T> envelope, int payloadSize)
    {
        int size = StringFieldSize(envelope.Id) + StringFieldSize(envelope.Source) + 1 + ProtobufPrimitives.LengthDelimitedSize(3) + StringFieldSize(envelope.Type);
        if (envelope.Time is { } time)
        {
            ProtobufPrimitives.ToTimestamp(time, out long seconds, out int nanos);
            size += EntrySize(4, 1 + ProtobufPrimitives.LengthDelimitedSize(ProtobufPrimitives.TimestampSize(seconds, nanos)));
        }

        size += StringAttributeSize(15, envelope.DataContentType) + StringAttributeSize(10, envelope.DataSchema) + StringAttributeSize(7, envelope.Subject);
        if (envelope.ExtensionsOrNull is { Count: > 0 } extensions)
        {
            for (int i = 0; i < extensions.Count; i++)
            {
                ref readonly KeyValuePair<string, CloudEventAttributeValue> item = ref extensions.ItemAt(i);
                size += EntrySize(item.Key.Length, ExtensionValueSize(item.Value));
            }
        }

        if (payloadSize >= 0)
        {
            size += 1 + ProtobufPrimitives.LengthDelimitedSize(payloadSize);
        }

        return size;
    }

    private static int ExtensionValueSize(CloudEventAttributeValue value)
    {
        switch (value.Type)
        {
            case CloudEventAttributeType.Boolean:
                return 2;
            case CloudEventAttributeType.Integer:
                return 1 + ProtobufPrimitives.Int32Size(value.AsInteger());
            case CloudEventAttributeType.Binary:
                return 1 + ProtobufPrimitives.LengthDelimitedSize(value.BinaryArray.Length);
            case CloudEventAttributeType.Timestamp:
                ProtobufPrimitives.ToTimestamp(value.AsTimestamp(), out long seconds, out int nanos);
                return 1 + ProtobufPrimitives.LengthDelimitedSize(ProtobufPrimitives.TimestampSize(seconds, nanos));
            default:
                return 1 + ProtobufPrimitives.LengthDelimitedSize(Encoding.UTF8.GetByteCount(value.AsString()));
        }
    }

    private static int StringFieldSize(string value) => 1 + ProtobufPrimitives.LengthDelimitedSize(Encoding.UTF8.GetByteCount(value));

    private static int StringAttributeSize(int nameLength, string? value)
        => value is null ? 0 : EntrySize(nameLength, 1 + ProtobufPrimitives.LengthDelimitedSize(Encoding.UTF8.GetByteCount(value)));

    private static int EntrySize(int nameLength, int valueSize)
        => 1 + ProtobufPrimitives.LengthDelimitedSize(1 + ProtobufPrimitives.LengthDelimitedSize(nameLength) + 1 + ProtobufPrimitives.LengthDelimitedSize(valueSize));

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
