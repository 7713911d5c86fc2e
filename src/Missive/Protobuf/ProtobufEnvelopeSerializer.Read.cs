using System;
using System.Buffers;
using System.Collections.Generic;
using System.Text;
using Missive.Json;
using Missive.Serialization;

namespace Missive.Protobuf;

public sealed partial class ProtobufEnvelopeSerializer
{
    /// <summary>Longest type identifier looked up on the stack; longer ones are decoded to a string first.</summary>
    private const int MaxStackTypeLength = 256;

    private protected override MessageEnvelope DeserializeCore(in ReadOnlySequence<byte> source) => ReadEvent(source, basePosition: 0);

    private protected override IReadOnlyList<MessageEnvelope> DeserializeBatchCore(in ReadOnlySequence<byte> source)
    {
        var envelopes = new List<MessageEnvelope>();
        var reader = new ProtobufReader(source, 0);
        while (!reader.End)
        {
            reader.ReadTag(out int field, out WireType wireType);
            if (field == 1 && wireType == WireType.LengthDelimited)
            {
                if (envelopes.Count == Options.MaxBatchSize)
                {
                    ThrowHelper.ThrowInvalidEnvelope(InvalidEnvelopeReason.LimitExceeded, $"The batch holds more than {Options.MaxBatchSize} envelopes (SerializationOptions.MaxBatchSize).", reader.Position);
                }

                ReadOnlySequence<byte> item = reader.ReadLengthDelimited(out long start);
                envelopes.Add(ReadEvent(item, start));
            }
            else
            {
                reader.Skip(field, wireType);
            }
        }

        return envelopes;
    }

    private MessageEnvelope ReadEvent(in ReadOnlySequence<byte> source, long basePosition)
    {
        var reader = new ProtobufReader(source, basePosition);
        string? id = null, eventSource = null, contentType = null, schema = null, subject = null;
        DateTimeOffset? time = null;
        bool hasSpecVersion = false;
        ReadOnlySequence<byte> type = default;
        long typePosition = -1;
        ExtensionAttributeCollection? extensions = null;
        ReadOnlySequence<byte> data = default;
        int dataField = 0;
        long dataPosition = -1;

        while (!reader.End)
        {
            reader.ReadTag(out int field, out WireType wireType);
            if (wireType != WireType.LengthDelimited || field > CloudEventFields.ProtoDataField)
            {
                reader.Skip(field, wireType);
                continue;
            }

            ReadOnlySequence<byte> value = reader.ReadLengthDelimited(out long start);
            if (field < CloudEventFields.AttributeField)
            {
                ThrowHelper.CheckAttributeLength(value.Length, Options.MaxAttributeValueLength, FieldName(field), start);
            }

            switch (field)
            {
                case CloudEventFields.IdField:
                    id = DecodeString(value, start);
                    break;
                case CloudEventFields.SourceField:
                    eventSource = DecodeString(value, start);
                    break;
                case CloudEventFields.SpecVersionField:
                    if (!IsSpecVersion10(value))
                    {
                        ThrowHelper.ThrowInvalidEnvelope(value.IsEmpty ? InvalidEnvelopeReason.MissingAttribute : InvalidEnvelopeReason.UnsupportedFormat, "The 'specversion' attribute must be \"1.0\": only CloudEvents 1.0 is supported.", start, "specversion");
                    }

                    hasSpecVersion = true;
                    break;
                case CloudEventFields.TypeField:
                    type = value;
                    typePosition = start;
                    break;
                case CloudEventFields.AttributeField:
                    ReadAttribute(value, start, ref time, ref contentType, ref schema, ref subject, ref extensions);
                    break;
                default:
                    // binary_data, text_data or proto_data: a oneof, so the last one wins.
                    data = value;
                    dataField = field;
                    dataPosition = start;
                    break;
            }
        }

        if (string.IsNullOrEmpty(id) || string.IsNullOrEmpty(eventSource) || !hasSpecVersion || type.IsEmpty)
        {
            ThrowHelper.ThrowMissingAttributes(id, eventSource, hasSpecVersion, !type.IsEmpty, basePosition);
        }

        MessageTypeInfo info = LookUpType(type, typePosition);
        MessageEnvelope envelope = info.CreateEnvelope();
        envelope.SetAttributes(id, eventSource, info.Identifier, time, contentType, schema, subject, extensions);
        EnvelopeValidator.Validate(envelope, basePosition);

        if (dataField != 0)
        {
            ReadData(info, envelope, data, dataField, dataPosition);
        }

        return envelope;
    }

    private void ReadData(MessageTypeInfo info, MessageEnvelope envelope, in ReadOnlySequence<byte> data, int field, long position)
    {
        if (field == CloudEventFields.ProtoDataField)
        {
            ThrowHelper.ThrowInvalidEnvelope(InvalidEnvelopeReason.UnsupportedFormat, "The event carries proto_data, which is not supported: publish protobuf payloads as binary_data.", position, "data");
        }

        try
        {
            if (field == CloudEventFields.BinaryDataField)
            {
                info.ReadBinary(envelope, data.ToArray());
                return;
            }

            if (data.IsSingleSegment)
            {
                ReadText(info, envelope, data.FirstSpan, position);
                return;
            }

            byte[] rented = Options.BufferPool.Rent((int)data.Length);
            try
            {
                data.CopyTo(rented);
                ReadText(info, envelope, rented.AsSpan(0, (int)data.Length), position);
            }
            finally
            {
                if (Options.CleanRentedBuffers)
                {
                    rented.AsSpan(0, (int)data.Length).Clear();
                }

                Options.BufferPool.Return(rented);
            }
        }
        catch (Exception e) when (e is not InvalidEnvelopeException && JsonEnvelopeErrors.IsDataError(e))
        {
            throw JsonEnvelopeErrors.InvalidData(e, position, Options.LogMessageContent);
        }
    }

    private static void ReadText(MessageTypeInfo info, MessageEnvelope envelope, ReadOnlySpan<byte> utf8, long position)
    {
        if (!System.Text.Unicode.Utf8.IsValid(utf8))
        {
            ProtobufReader.ThrowMalformed("text_data is not valid UTF-8", position);
        }

        info.ReadText(envelope, utf8);
    }

    private void ReadAttribute(
        in ReadOnlySequence<byte> entry,
        long basePosition,
        ref DateTimeOffset? time,
        ref string? contentType,
        ref string? schema,
        ref string? subject,
        ref ExtensionAttributeCollection? extensions)
    {
        var reader = new ProtobufReader(entry, basePosition);
        string? name = null;
        ReadOnlySequence<byte> value = default;
        bool hasValue = false;
        long valuePosition = basePosition;
        while (!reader.End)
        {
            reader.ReadTag(out int field, out WireType wireType);
            if (wireType == WireType.LengthDelimited && field is 1 or 2)
            {
                ReadOnlySequence<byte> slice = reader.ReadLengthDelimited(out long start);
                if (field == 1)
                {
                    if (slice.Length > Options.MaxAttributeNameLength)
                    {
                        ThrowHelper.ThrowInvalidEnvelope(InvalidEnvelopeReason.LimitExceeded, $"An attribute name is longer than {Options.MaxAttributeNameLength} bytes (SerializationOptions.MaxAttributeNameLength).", start);
                    }

                    name = AttributeName(slice, start);
                }
                else
                {
                    value = slice;
                    hasValue = true;
                    valuePosition = start;
                }
            }
            else
            {
                reader.Skip(field, wireType);
            }
        }

        name ??= string.Empty;
        if (!CloudEventRules.IsValidAttributeName(name))
        {
            ThrowHelper.ThrowInvalidEnvelope(InvalidEnvelopeReason.InvalidAttribute, "An attribute name is not valid: CloudEvents attribute names are lower-case ASCII letters and digits.", basePosition);
        }

        CloudEventAttributeValue attribute = hasValue ? ReadAttributeValue(value, valuePosition, name) : default;
        if (attribute.Type == CloudEventAttributeType.None)
        {
            ThrowHelper.ThrowInvalidAttribute(name, "has no value (no case of CloudEventAttributeValue is set)", valuePosition);
        }

        switch (name)
        {
            case "time":
                time = Expect(attribute, CloudEventAttributeType.Timestamp, name, valuePosition).AsTimestamp();
                break;
            case "datacontenttype":
                contentType = Expect(attribute, CloudEventAttributeType.String, name, valuePosition).AsString();
                break;
            case "dataschema":
                schema = Expect(attribute, CloudEventAttributeType.Uri, name, valuePosition).AsString();
                break;
            case "subject":
                subject = Expect(attribute, CloudEventAttributeType.String, name, valuePosition).AsString();
                break;
            default:
                if (CloudEventRules.IsReservedAttributeName(name))
                {
                    ThrowHelper.ThrowInvalidAttribute(name, "is a required attribute or the data and cannot be in the attributes map", basePosition);
                }

                extensions ??= new ExtensionAttributeCollection();
                if (!extensions.Remove(name) // map semantics: the last entry for a key wins
                    && extensions.Count == Options.MaxExtensionAttributes)
                {
                    ThrowHelper.ThrowInvalidEnvelope(InvalidEnvelopeReason.LimitExceeded, $"The envelope has more than {Options.MaxExtensionAttributes} extension attributes (SerializationOptions.MaxExtensionAttributes).", basePosition);
                }

                extensions.AddTrusted(name, attribute);
                break;
        }
    }

    private static CloudEventAttributeValue Expect(CloudEventAttributeValue value, CloudEventAttributeType type, string name, long position)
    {
        if (value.Type != type)
        {
            ThrowHelper.ThrowInvalidAttribute(name, $"must be given as {type}, not {value.Type}", position);
        }

        return value;
    }

    private static string FieldName(int field) => field switch
    {
        CloudEventFields.IdField => "id",
        CloudEventFields.SourceField => "source",
        CloudEventFields.SpecVersionField => "specversion",
        _ => "type",
    };

    private CloudEventAttributeValue ReadAttributeValue(in ReadOnlySequence<byte> source, long basePosition, string name)
    {
        var reader = new ProtobufReader(source, basePosition);
        CloudEventAttributeValue result = default;
        while (!reader.End)
        {
            reader.ReadTag(out int field, out WireType wireType);
            if (wireType == WireType.LengthDelimited && field is >= 3 and <= 6)
            {
                // A copy of the reader peeks at the length, so an over-long value is refused before it is decoded.
                ProtobufReader peek = reader;
                ThrowHelper.CheckAttributeLength(peek.ReadLengthDelimited(out long valueStart).Length, Options.MaxAttributeValueLength, name, valueStart);
            }

            switch (field)
            {
                case 1 when wireType == WireType.Varint:
                    result = CloudEventAttributeValue.FromBoolean(reader.ReadVarint() != 0);
                    break;
                case 2 when wireType == WireType.Varint:
                    result = CloudEventAttributeValue.FromInteger(reader.ReadInt32(name));
                    break;
                case 3 or 5 or 6 when wireType == WireType.LengthDelimited:
                    ReadOnlySequence<byte> bytes = reader.ReadLengthDelimited(out long start);
                    string text = field == 3 && name == "datacontenttype" && bytes.IsSingleSegment && bytes.FirstSpan.SequenceEqual("application/json"u8)
                        ? ContentTypes.ApplicationJson // the common case shares the constant, as the JSON reader does
                        : DecodeString(bytes, start);
                    if (field == 5 && !CloudEventRules.IsAbsoluteUri(text))
                    {
                        ThrowHelper.ThrowInvalidAttribute(name, "is not an absolute URI", start);
                    }

                    if (field == 6 && !CloudEventRules.IsUriReference(text))
                    {
                        ThrowHelper.ThrowInvalidAttribute(name, "is not a URI reference", start);
                    }

                    result = field switch
                    {
                        5 => CloudEventAttributeValue.FromUri(text),
                        6 => CloudEventAttributeValue.FromUriReference(text),
                        _ => CloudEventAttributeValue.FromString(text),
                    };
                    break;
                case 4 when wireType == WireType.LengthDelimited:
                    result = CloudEventAttributeValue.FromBinary(reader.ReadLengthDelimited(out _).ToArray());
                    break;
                case 7 when wireType == WireType.LengthDelimited:
                    ReadOnlySequence<byte> timestamp = reader.ReadLengthDelimited(out long timestampStart);
                    result = CloudEventAttributeValue.FromTimestamp(ReadTimestamp(timestamp, timestampStart, name));
                    break;
                default:
                    reader.Skip(field, wireType);
                    break;
            }
        }

        return result;
    }

    private static DateTimeOffset ReadTimestamp(in ReadOnlySequence<byte> source, long basePosition, string name)
    {
        var reader = new ProtobufReader(source, basePosition);
        long seconds = 0;
        int nanos = 0;
        while (!reader.End)
        {
            reader.ReadTag(out int field, out WireType wireType);
            if (field == 1 && wireType == WireType.Varint)
            {
                seconds = (long)reader.ReadVarint();
            }
            else if (field == 2 && wireType == WireType.Varint)
            {
                nanos = reader.ReadInt32(name);
            }
            else
            {
                reader.Skip(field, wireType);
            }
        }

        if (!ProtobufPrimitives.TryFromTimestamp(seconds, nanos, out DateTimeOffset value))
        {
            ThrowHelper.ThrowInvalidAttribute(name, "is a timestamp out of range (years 1 to 9999, nanos 0 to 999,999,999)", basePosition);
        }

        return value;
    }

    private MessageTypeInfo LookUpType(in ReadOnlySequence<byte> type, long position)
    {
        if (type.Length <= MaxStackTypeLength)
        {
            Span<byte> utf8 = stackalloc byte[MaxStackTypeLength];
            Span<char> chars = stackalloc char[MaxStackTypeLength];
            type.CopyTo(utf8);
            if (System.Text.Unicode.Utf8.ToUtf16(utf8[..(int)type.Length], chars, out _, out int written, replaceInvalidSequences: false) == OperationStatus.Done
                && MessageTypes.TryGet(chars[..written], out MessageTypeInfo? found))
            {
                return found;
            }
        }

        string name = DecodeString(type, position);
        if (!MessageTypes.TryGet(name, out MessageTypeInfo? info))
        {
            ThrowHelper.ThrowUnknownMessageType(name, Options.LogMessageContent, position);
        }

        return info;
    }

    /// <summary>Decodes an attribute name, sharing the constant strings of the core attribute names.</summary>
    private static string AttributeName(in ReadOnlySequence<byte> value, long position)
    {
        if (value.IsSingleSegment)
        {
            ReadOnlySpan<byte> span = value.FirstSpan;
            if (span.SequenceEqual("time"u8))
            {
                return "time";
            }

            if (span.SequenceEqual("datacontenttype"u8))
            {
                return "datacontenttype";
            }

            if (span.SequenceEqual("dataschema"u8))
            {
                return "dataschema";
            }

            if (span.SequenceEqual("subject"u8))
            {
                return "subject";
            }
        }

        return DecodeString(value, position);
    }

    private static bool IsSpecVersion10(in ReadOnlySequence<byte> value)
    {
        if (value.Length != 3)
        {
            return false;
        }

        Span<byte> bytes = stackalloc byte[3];
        value.CopyTo(bytes);
        return bytes.SequenceEqual("1.0"u8);
    }

    private static string DecodeString(in ReadOnlySequence<byte> value, long position)
    {
        try
        {
            return value.IsSingleSegment ? StrictUtf8.GetString(value.FirstSpan) : StrictUtf8.GetString(value);
        }
        catch (DecoderFallbackException)
        {
            ProtobufReader.ThrowMalformed("A string field is not valid UTF-8", position);
            return null!;
        }
    }
}
