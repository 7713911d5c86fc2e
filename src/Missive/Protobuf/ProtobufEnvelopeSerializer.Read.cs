using System;
using System.Buffers;
using System.Collections.Generic;
using Missive.Buffers;
using Missive.Serialization;

namespace Missive.Protobuf;

public sealed partial class ProtobufEnvelopeSerializer
{
    /// <summary>Longest type identifier looked up on the stack; longer ones are decoded to a string first.</summary>
    private const int MaxStackTypeLength = 256;

    private protected override MessageEnvelope DeserializeCore(in ReadOnlySequence<byte> source)
    {
        if (source.IsSingleSegment)
        {
            return ReadEvent(source.FirstSpan, basePosition: 0);
        }

        // The wire data is read from one span: a multi-segment input is copied together first (its size was checked).
        using RentedBuffer contiguous = Contiguous(source);
        return ReadEvent(contiguous.Span[..(int)source.Length], basePosition: 0);
    }

    private protected override IReadOnlyList<MessageEnvelope> DeserializeBatchCore(in ReadOnlySequence<byte> source)
    {
        if (source.IsSingleSegment)
        {
            return ReadBatch(source.FirstSpan);
        }

        using RentedBuffer contiguous = Contiguous(source);
        return ReadBatch(contiguous.Span[..(int)source.Length]);
    }

    private RentedBuffer Contiguous(in ReadOnlySequence<byte> source)
    {
        RentedBuffer rented = Settings.Rent((int)source.Length);
        source.CopyTo(rented.Span);
        return rented;
    }

    private List<MessageEnvelope> ReadBatch(ReadOnlySpan<byte> source)
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

                ReadOnlySpan<byte> item = reader.ReadLengthDelimited(out long start);
                envelopes.Add(ReadEvent(item, start));
            }
            else
            {
                reader.Skip(field, wireType);
            }
        }

        return envelopes;
    }

    private MessageEnvelope ReadEvent(ReadOnlySpan<byte> source, long basePosition)
    {
        var reader = new ProtobufReader(source, basePosition);
        string? id = null, eventSource = null, contentType = null, schema = null, subject = null;
        DateTimeOffset? time = null;
        bool hasSpecVersion = false;
        ReadOnlySpan<byte> type = default;
        long typePosition = -1;
        ExtensionAttributeCollection? extensions = null;
        ReadOnlySpan<byte> data = default;
        int dataField = 0;
        long dataPosition = -1;
        bool newStrings = false;

        while (!reader.End)
        {
            reader.ReadTag(out int field, out WireType wireType);
            if (wireType != WireType.LengthDelimited || field > CloudEventProto.CloudEvent.ProtoDataField)
            {
                reader.Skip(field, wireType);
                continue;
            }

            ReadOnlySpan<byte> value = reader.ReadLengthDelimited(out long start);
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
                    eventSource = RecurringString(value, start, ref newStrings);
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
                    ReadAttribute(value, start, ref time, ref contentType, ref schema, ref subject, ref extensions, ref newStrings);
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

        MessageTypeInfo info = LookUpType(type, typePosition, out string typeIdentifier);
        MessageEnvelope envelope = info.CreateEnvelope();
        envelope.SetAttributes(id, eventSource, typeIdentifier, time, contentType, schema, subject, extensions);
        EnvelopeValidator.Validate(envelope, basePosition);
        if (newStrings)
        {
            Settings.KeepRecurringStrings(envelope);
        }

        if (dataField != 0)
        {
            ReadData(info, envelope, data, dataField, dataPosition);
        }

        return envelope;
    }

    private void ReadData(MessageTypeInfo info, MessageEnvelope envelope, ReadOnlySpan<byte> data, int field, long position)
    {
        if (field == CloudEventProto.CloudEvent.ProtoDataField)
        {
            ThrowHelper.ThrowInvalidEnvelope(InvalidEnvelopeReason.UnsupportedFormat, "The event carries proto_data, which is not supported: publish protobuf payloads as binary_data", position, CloudEventAttributeNames.Data);
        }

        try
        {
            if (field == CloudEventProto.CloudEvent.BinaryDataField)
            {
                info.ReadBinary(envelope, data.ToArray());
                return;
            }

            ReadText(info, envelope, data, position);
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
}
