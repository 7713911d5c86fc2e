using System;
using System.Buffers;
using System.Collections.Generic;
using System.Text;
using Missive.Buffers;
using Missive.Serialization;

namespace Missive.Protobuf;

public sealed partial class ProtobufEnvelopeSerializer
{
    private static readonly UTF8Encoding StrictUtf8 = new(encoderShouldEmitUTF8Identifier: false, throwOnInvalidBytes: true);

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
            if (field == CloudEventProto.Batch.EventsField && wireType == WireType.LengthDelimited)
            {
                if (envelopes.Count == Settings.MaxBatchSize)
                {
                    ThrowHelper.ThrowBatchTooLarge(Settings.MaxBatchSize, reader.Position);
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
            if (wireType != WireType.LengthDelimited || field > CloudEventProto.CloudEvent.ProtoDataField)
            {
                reader.Skip(field, wireType);
                continue;
            }

            ReadOnlySequence<byte> value = reader.ReadLengthDelimited(out long start);
            if (field < CloudEventProto.CloudEvent.AttributesField)
            {
                ThrowHelper.CheckAttributeLength(value.Length, Settings.MaxAttributeValueLength, FieldName(field), start);
            }

            switch (field)
            {
                case CloudEventProto.CloudEvent.IdField:
                    id = DecodeString(value, start);
                    break;
                case CloudEventProto.CloudEvent.SourceField:
                    eventSource = DecodeString(value, start);
                    break;
                case CloudEventProto.CloudEvent.SpecVersionField:
                    if (value.IsEmpty)
                    {
                        ThrowHelper.ThrowMissingAttributes(CloudEventAttributeNames.SpecVersion, start);
                    }

                    if (!IsSpecVersion10(value))
                    {
                        ThrowHelper.ThrowUnsupportedSpecVersion(start);
                    }

                    hasSpecVersion = true;
                    break;
                case CloudEventProto.CloudEvent.TypeField:
                    type = value;
                    typePosition = start;
                    break;
                case CloudEventProto.CloudEvent.AttributesField:
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
        if (field == CloudEventProto.CloudEvent.ProtoDataField)
        {
            ThrowHelper.ThrowInvalidEnvelope(InvalidEnvelopeReason.UnsupportedFormat, "The event carries proto_data, which is not supported: publish protobuf payloads as binary_data.", position, "data");
        }

        try
        {
            if (field == CloudEventProto.CloudEvent.BinaryDataField)
            {
                info.ReadBinary(envelope, data.ToArray());
                return;
            }

            if (data.IsSingleSegment)
            {
                ReadText(info, envelope, data.FirstSpan, position);
                return;
            }

            using RentedBuffer rented = Settings.Rent((int)data.Length);
            data.CopyTo(rented.Span);
            ReadText(info, envelope, rented.Span, position);
        }
        catch (Exception e) when (e is not InvalidEnvelopeException && PayloadErrors.IsDataError(e))
        {
            throw PayloadErrors.InvalidData(e, position, Settings.LogMessageContent);
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
            if (wireType == WireType.LengthDelimited && field is CloudEventProto.AttributeEntry.KeyField or CloudEventProto.AttributeEntry.ValueField)
            {
                ReadOnlySequence<byte> slice = reader.ReadLengthDelimited(out long start);
                if (field == CloudEventProto.AttributeEntry.KeyField)
                {
                    if (slice.Length > Settings.MaxAttributeNameLength)
                    {
                        ThrowHelper.ThrowAttributeNameTooLong(Settings.MaxAttributeNameLength, start);
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
            ThrowHelper.ThrowInvalidAttributeName(basePosition);
        }

        CloudEventAttributeValue attribute = hasValue ? ReadAttributeValue(value, valuePosition, name) : default;
        if (attribute.Type == CloudEventAttributeType.None)
        {
            ThrowHelper.ThrowInvalidAttribute(name, "has no value (no case of CloudEventAttributeValue is set)", valuePosition);
        }

        switch (name)
        {
            case CloudEventAttributeNames.Time:
                time = Expect(attribute, CloudEventAttributeType.Timestamp, name, valuePosition).AsTimestamp();
                break;
            case CloudEventAttributeNames.DataContentType:
                contentType = Expect(attribute, CloudEventAttributeType.String, name, valuePosition).AsString();
                break;
            case CloudEventAttributeNames.DataSchema:
                schema = Expect(attribute, CloudEventAttributeType.Uri, name, valuePosition).AsString();
                break;
            case CloudEventAttributeNames.Subject:
                subject = Expect(attribute, CloudEventAttributeType.String, name, valuePosition).AsString();
                break;
            default:
                if (CloudEventAttributeNames.IsReserved(name))
                {
                    ThrowHelper.ThrowInvalidAttribute(name, "is a required attribute or the data and cannot be in the attributes map", basePosition);
                }

                extensions ??= new ExtensionAttributeCollection();
                if (!extensions.Remove(name) // map semantics: the last entry for a key wins
                    && extensions.Count == Settings.MaxExtensionAttributes)
                {
                    ThrowHelper.ThrowTooManyExtensions(Settings.MaxExtensionAttributes, basePosition);
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
        CloudEventProto.CloudEvent.IdField => CloudEventAttributeNames.Id,
        CloudEventProto.CloudEvent.SourceField => CloudEventAttributeNames.Source,
        CloudEventProto.CloudEvent.SpecVersionField => CloudEventAttributeNames.SpecVersion,
        _ => CloudEventAttributeNames.Type,
    };

    private CloudEventAttributeValue ReadAttributeValue(in ReadOnlySequence<byte> source, long basePosition, string name)
    {
        var reader = new ProtobufReader(source, basePosition);
        CloudEventAttributeValue result = default;
        while (!reader.End)
        {
            reader.ReadTag(out int field, out WireType wireType);
            if (wireType == WireType.LengthDelimited && field is >= CloudEventProto.AttributeValue.CeStringField and <= CloudEventProto.AttributeValue.CeUriRefField)
            {
                // A copy of the reader peeks at the length, so an over-long value is refused before it is decoded.
                ProtobufReader peek = reader;
                ThrowHelper.CheckAttributeLength(peek.ReadLengthDelimited(out long valueStart).Length, Settings.MaxAttributeValueLength, name, valueStart);
            }

            switch (field)
            {
                case CloudEventProto.AttributeValue.CeBooleanField when wireType == WireType.Varint:
                    result = CloudEventAttributeValue.FromBoolean(reader.ReadVarint() != 0);
                    break;
                case CloudEventProto.AttributeValue.CeIntegerField when wireType == WireType.Varint:
                    result = CloudEventAttributeValue.FromInteger(reader.ReadInt32(name));
                    break;
                case CloudEventProto.AttributeValue.CeStringField or CloudEventProto.AttributeValue.CeUriField or CloudEventProto.AttributeValue.CeUriRefField
                    when wireType == WireType.LengthDelimited:
                    ReadOnlySequence<byte> bytes = reader.ReadLengthDelimited(out long start);
                    string text = field == CloudEventProto.AttributeValue.CeStringField && name == CloudEventAttributeNames.DataContentType
                        && bytes.IsSingleSegment && bytes.FirstSpan.SequenceEqual(ContentTypes.ApplicationJsonUtf8)
                        ? ContentTypes.ApplicationJson // the common case shares the constant, as the JSON reader does
                        : DecodeString(bytes, start);
                    if (field == CloudEventProto.AttributeValue.CeUriField && !CloudEventRules.IsAbsoluteUri(text))
                    {
                        ThrowHelper.ThrowNotAbsoluteUri(name, start);
                    }

                    if (field == CloudEventProto.AttributeValue.CeUriRefField && !CloudEventRules.IsUriReference(text))
                    {
                        ThrowHelper.ThrowNotUriReference(name, start);
                    }

                    result = field switch
                    {
                        CloudEventProto.AttributeValue.CeUriField => CloudEventAttributeValue.FromUri(text),
                        CloudEventProto.AttributeValue.CeUriRefField => CloudEventAttributeValue.FromUriReference(text),
                        _ => CloudEventAttributeValue.FromString(text),
                    };
                    break;
                case CloudEventProto.AttributeValue.CeBytesField when wireType == WireType.LengthDelimited:
                    result = CloudEventAttributeValue.FromBinary(reader.ReadLengthDelimited(out _).ToArray());
                    break;
                case CloudEventProto.AttributeValue.CeTimestampField when wireType == WireType.LengthDelimited:
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
            if (field == CloudEventProto.Timestamp.SecondsField && wireType == WireType.Varint)
            {
                seconds = (long)reader.ReadVarint();
            }
            else if (field == CloudEventProto.Timestamp.NanosField && wireType == WireType.Varint)
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
            ThrowHelper.ThrowTimestampOutOfRange(name, basePosition);
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
            ThrowHelper.ThrowUnknownMessageType(name, Settings.LogMessageContent, position);
        }

        return info;
    }

    /// <summary>Decodes an attribute name, sharing the constant strings of the core attribute names.</summary>
    private static string AttributeName(in ReadOnlySequence<byte> value, long position)
    {
        if (value.IsSingleSegment && CloudEventAttributeNames.Classify(value.FirstSpan) is var attribute and not CloudEventAttribute.Extension)
        {
            return CloudEventAttributeNames.NameOf(attribute);
        }

        return DecodeString(value, position);
    }

    private static bool IsSpecVersion10(in ReadOnlySequence<byte> value)
    {
        ReadOnlySpan<byte> expected = CloudEventRules.SpecVersion10Utf8;
        if (value.Length != expected.Length)
        {
            return false;
        }

        Span<byte> bytes = stackalloc byte[expected.Length];
        value.CopyTo(bytes);
        return bytes.SequenceEqual(expected);
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
