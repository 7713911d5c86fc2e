using System;
using System.Buffers;
using System.Collections.Generic;
using System.Text.Json;
using Microsoft.Extensions.Logging;
using Missive.Serialization;

namespace Missive.Json;

/// <summary>
/// The high-performance CloudEvents JSON serializer: <see cref="Utf8JsonWriter"/> straight into the
/// caller's <see cref="IBufferWriter{T}"/> and <see cref="Utf8JsonReader"/> straight over the
/// caller's <see cref="ReadOnlySequence{T}"/>, with no DOM and no intermediate string.
/// </summary>
/// <remarks>
/// <para>Encode rules (the same bytes as <see cref="StandardJsonEnvelopeSerializer"/>):</para>
/// <list type="bullet">
/// <item>Members in the order <c>id, source, specversion, type, time, datacontenttype, data</c> (or
/// <c>data_base64</c>), <c>dataschema</c>, <c>subject</c>, then extensions in insertion order;
/// absent optional attributes and a null message are left out.</item>
/// <item><c>time</c> in System.Text.Json's ISO 8601 form, with the envelope's offset (AWS.Messaging compatible).</item>
/// <item>Data by message type: see <see cref="MessageTypeMap"/>. The payload is written by
/// System.Text.Json into the same writer.</item>
/// <item>Extensions: Boolean and Integer as JSON literals, Binary as base64, Timestamp as ISO 8601, others as strings.</item>
/// </list>
/// <para>Decode rules:</para>
/// <list type="bullet">
/// <item>Members in any order; unknown lower-case members are extensions (booleans, 32-bit integers and
/// strings; strings of names declared in <see cref="SerializationOptions.ExtensionAttributeTypes"/> take that type).</item>
/// <item><c>null</c> optional attributes and extensions count as absent; <c>data</c> and
/// <c>data_base64</c> together, duplicate members, and invalid names are rejected.</item>
/// <item>Data that comes before <c>type</c> is skipped and read once the type is known.</item>
/// </list>
/// <para>On failure while writing, the destination may already hold part of the envelope.</para>
/// </remarks>
public sealed partial class Utf8JsonEnvelopeSerializer : EnvelopeSerializer
{
    private readonly JsonReaderOptions _readerOptions;

    /// <summary>Creates the serializer.</summary>
    /// <param name="messageTypes">The registered message types. Must not be null.</param>
    /// <param name="logger">A logger, or <c>null</c>.</param>
    public Utf8JsonEnvelopeSerializer(MessageTypeMap messageTypes, ILogger<Utf8JsonEnvelopeSerializer>? logger = null)
        : base(messageTypes, logger)
    {
        _readerOptions = JsonEnvelopeSettings.GetReaderOptions(Options);
        LogCreated();
    }

    /// <inheritdoc />
    public override string ContentType => ContentTypes.CloudEventsJson;

    /// <inheritdoc />
    public override string BatchContentType => ContentTypes.CloudEventsBatchJson;

    /// <inheritdoc />
    public override int Serialize<T>(IBufferWriter<byte> destination, MessageEnvelope<T> envelope)
    {
        ArgumentNullException.ThrowIfNull(destination);
        ArgumentNullException.ThrowIfNull(envelope);
        EnvelopeValidator.Validate(envelope, position: -1);
        MessageTypeInfo<T> info = MessageTypes.Get<T>();

        Utf8JsonWriter writer = RentJsonWriter(destination);
        try
        {
            WriteEnvelope(writer, envelope, info);
            writer.Flush();
            return checked((int)writer.BytesCommitted);
        }
        finally
        {
            ReturnJsonWriter(writer);
        }
    }

    /// <inheritdoc />
    public override int SerializeBatch(IBufferWriter<byte> destination, IReadOnlyList<MessageEnvelope> envelopes)
    {
        ArgumentNullException.ThrowIfNull(destination);
        ArgumentNullException.ThrowIfNull(envelopes);
        Utf8JsonWriter writer = RentJsonWriter(destination);
        try
        {
            writer.WriteStartArray();
            var visitor = new BatchWriter(writer);
            for (int i = 0; i < envelopes.Count; i++)
            {
                MessageEnvelope envelope = envelopes[i] ?? throw new ArgumentException("A batch cannot hold null envelopes.", nameof(envelopes));
                EnvelopeValidator.Validate(envelope, position: -1);
                MessageTypes.Get(envelope.MessageType).Accept(ref visitor, envelope);
            }

            writer.WriteEndArray();
            writer.Flush();
            return checked((int)writer.BytesCommitted);
        }
        finally
        {
            ReturnJsonWriter(writer);
        }
    }

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

        if (envelope.Message is not null)
        {
            info.Codec.WriteJsonMember(writer, envelope.Message);
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
