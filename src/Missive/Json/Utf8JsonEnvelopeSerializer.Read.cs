using System;
using System.Buffers;
using System.Collections.Generic;
using System.Diagnostics.CodeAnalysis;
using System.Runtime.CompilerServices;
using System.Text.Json;
using Missive.Serialization;

namespace Missive.Json;

public sealed partial class Utf8JsonEnvelopeSerializer
{
    /// <summary>Scratch space for unescaping member names and short values: a name is at most 256 bytes, a timestamp 64.</summary>
    private const int ScratchSize = 256;

    /// <summary>Stack scratch passed by reference, so spans over it cannot be captured by the reader.</summary>
    [InlineArray(ScratchSize)]
    private struct Scratch
    {
        private byte _element0;
    }

    private protected override MessageEnvelope DeserializeCore(in ReadOnlySequence<byte> source)
    {
        if (source.IsSingleSegment && TryReadCommon(source.FirstSpan, leading: false, out _) is { } common)
        {
            return common;
        }

        var reader = new Utf8JsonReader(source, Settings.JsonReaderOptions);
        try
        {
            ReadToken(ref reader);
            if (reader.TokenType != JsonTokenType.StartObject)
            {
                ThrowHelper.ThrowNotAJsonObject(reader.TokenStartIndex);
            }

            MessageEnvelope envelope = ReadEnvelope(ref reader, source);
            if (reader.Read())
            {
                ThrowHelper.ThrowInvalidEnvelope(InvalidEnvelopeReason.Malformed, "Unexpected content after the envelope object.", reader.TokenStartIndex);
            }

            return envelope;
        }
        catch (Exception e) when (e is JsonException or InvalidOperationException)
        {
            throw ReadFailure(e, source);
        }
    }

    private protected override IReadOnlyList<MessageEnvelope> DeserializeBatchCore(in ReadOnlySequence<byte> source)
    {
        var reader = new Utf8JsonReader(source, Settings.JsonReaderOptions);
        try
        {
            ReadToken(ref reader);
            if (reader.TokenType != JsonTokenType.StartArray)
            {
                ThrowHelper.ThrowNotAJsonArray(reader.TokenStartIndex);
            }

            var envelopes = new List<MessageEnvelope>();
            while (true)
            {
                ReadToken(ref reader);
                if (reader.TokenType == JsonTokenType.EndArray)
                {
                    break;
                }

                if (reader.TokenType != JsonTokenType.StartObject)
                {
                    ThrowHelper.ThrowBatchItemNotAJsonObject(envelopes.Count, reader.TokenStartIndex);
                }

                if (envelopes.Count == Settings.MaxBatchSize)
                {
                    ThrowHelper.ThrowBatchTooLarge(Settings.MaxBatchSize, reader.TokenStartIndex);
                }

                envelopes.Add(ReadEnvelope(ref reader, source));
            }

            if (reader.Read())
            {
                ThrowHelper.ThrowInvalidEnvelope(InvalidEnvelopeReason.Malformed, "Unexpected content after the batch array.", reader.TokenStartIndex);
            }

            return envelopes;
        }
        catch (Exception e) when (e is JsonException or InvalidOperationException)
        {
            throw ReadFailure(e, source);
        }
    }

    /// <inheritdoc />
    bool ILeadingEnvelopeReader.TryReadLeadingEnvelope(ReadOnlyMemory<byte> document, [NotNullWhen(true)] out MessageEnvelope? envelope, out int length)
    {
        envelope = TryReadCommon(document.Span, leading: true, out length);
        if (envelope is not null && length <= Settings.MaxEnvelopeSize)
        {
            return true;
        }

        try
        {
            // The envelope alone, so that a failure of its data is diagnosed in it and not in what follows it.
            var extent = new Utf8JsonReader(document.Span, Settings.JsonReaderOptions);
            if (extent.Read() && extent.TokenType == JsonTokenType.StartObject && extent.TrySkip() && extent.BytesConsumed <= Settings.MaxEnvelopeSize)
            {
                var source = new ReadOnlySequence<byte>(document[..(int)extent.BytesConsumed]);
                var reader = new Utf8JsonReader(source, Settings.JsonReaderOptions);
                reader.Read();
                envelope = ReadEnvelope(ref reader, source);
                length = (int)reader.BytesConsumed;
                return true;
            }
        }
        catch (Exception e) when (e is not InvalidEnvelopeException { DataReadFailed: true } && !ContentSafety.IsFatal(e))
        {
            // The ordinary read that follows reports the failure; but not one of the data, which would call the
            // application's serializer or converter again.
        }

        envelope = null;
        length = 0;
        return false;
    }

    /// <summary>
    /// Turns a failure of the reader into the typed exception: malformed JSON (classified by a diagnostic
    /// re-read), or a string System.Text.Json could not decode. Payload failures were converted in <see cref="ReadData"/>.
    /// </summary>
    private InvalidEnvelopeException ReadFailure(Exception e, in ReadOnlySequence<byte> source)
        => e is JsonException json
            ? JsonEnvelopeErrors.Diagnose(source, Settings.JsonReaderOptions, Settings.LogMessageContent) ?? JsonEnvelopeErrors.FromJsonException(json, Settings.LogMessageContent)
            : InvalidText((InvalidOperationException)e);

    /// <summary>Reads one envelope object; the reader is on its <c>{</c> and ends on its <c>}</c>.</summary>
    private MessageEnvelope ReadEnvelope(ref Utf8JsonReader reader, in ReadOnlySequence<byte> source)
    {
        long objectStart = reader.TokenStartIndex;
        Scratch scratch = default;
        EnvelopeFields fields = default;
        long deferredStart = -1, deferredEnd = -1;

        while (true)
        {
            ReadToken(ref reader);
            if (reader.TokenType == JsonTokenType.EndObject)
            {
                break;
            }

            long position = reader.TokenStartIndex;
            ReadOnlySpan<byte> name = GetName(ref reader, ref scratch);
            CloudEventAttribute attribute = CloudEventAttributeNames.Classify(name);
            string? extensionName = null;
            if (attribute == CloudEventAttribute.Extension)
            {
                extensionName = GetExtensionName(name, fields.Extensions, position, ref fields.NewStrings);
            }
            else
            {
                if ((fields.Seen & attribute) != 0)
                {
                    ThrowHelper.ThrowDuplicateAttribute(CloudEventAttributeNames.NameOf(attribute), position);
                }

                fields.Seen |= attribute;
            }

            ReadToken(ref reader);
            position = reader.TokenStartIndex;
            switch (attribute)
            {
                case CloudEventAttribute.Id:
                    fields.Id = GetRequiredString(ref reader, CloudEventAttributeNames.Id);
                    break;
                case CloudEventAttribute.Source:
                    fields.Source = GetRecurringString(ref reader, CloudEventAttributeNames.Source, ref fields.NewStrings);
                    break;
                case CloudEventAttribute.SpecVersion:
                    ReadSpecVersion(ref reader);
                    break;
                case CloudEventAttribute.Type:
                    fields.Info = ReadType(ref reader, out fields.TypeIdentifier);
                    fields.Envelope = fields.Info.CreateEnvelope();
                    break;
                case CloudEventAttribute.Time:
                    fields.Time = ReadTime(ref reader, ref scratch);
                    break;
                case CloudEventAttribute.DataContentType:
                    fields.ContentType = reader.TokenType == JsonTokenType.String && reader.ValueTextEquals(ContentTypes.ApplicationJsonUtf8)
                        ? ContentTypes.ApplicationJson
                        : GetOptionalString(ref reader, CloudEventAttributeNames.DataContentType);
                    break;
                case CloudEventAttribute.DataSchema:
                    fields.Schema = GetOptionalString(ref reader, CloudEventAttributeNames.DataSchema);
                    break;
                case CloudEventAttribute.Subject:
                    fields.Subject = GetOptionalString(ref reader, CloudEventAttributeNames.Subject);
                    break;
                case CloudEventAttribute.Data:
                case CloudEventAttribute.DataBase64:
                    if ((fields.Seen & (CloudEventAttribute.Data | CloudEventAttribute.DataBase64)) == (CloudEventAttribute.Data | CloudEventAttribute.DataBase64))
                    {
                        ThrowHelper.ThrowDataAndDataBase64(position);
                    }

                    if (reader.TokenType == JsonTokenType.Null)
                    {
                        break;
                    }

                    if (attribute == CloudEventAttribute.DataBase64 && reader.TokenType != JsonTokenType.String)
                    {
                        ThrowHelper.ThrowWrongTokenType(CloudEventAttributeNames.DataBase64, "a base64 string", position);
                    }

                    if (fields.Envelope is not null)
                    {
                        ReadData(ref reader, source, fields.Info!, fields.Envelope, attribute);
                    }
                    else
                    {
                        deferredStart = position;
                        reader.Skip();
                        deferredEnd = reader.BytesConsumed;
                    }

                    break;
                default:
                    if (reader.TokenType != JsonTokenType.Null)
                    {
                        fields.Extensions ??= new ExtensionAttributeCollection();
                        if (fields.Extensions.Count == Settings.MaxExtensionAttributes)
                        {
                            ThrowHelper.ThrowTooManyExtensions(Settings.MaxExtensionAttributes, position);
                        }

                        fields.Extensions.AddTrusted(extensionName!, ReadExtensionValue(ref reader, extensionName!, ref scratch));
                    }

                    break;
            }
        }

        if (fields.Envelope is null || (fields.Seen & CloudEventAttribute.SpecVersion) == 0)
        {
            // Report every missing required attribute at once.
            ThrowHelper.ThrowMissingAttributes(fields.Id, fields.Source, (fields.Seen & CloudEventAttribute.SpecVersion) != 0, fields.Envelope is not null, objectStart);
        }

        MessageEnvelope envelope = Complete(ref fields, objectStart);
        if (deferredStart >= 0)
        {
            var dataReader = new Utf8JsonReader(source.Slice(deferredStart, deferredEnd - deferredStart), Settings.JsonReaderOptions);
            ReadToken(ref dataReader);
            ReadData(ref dataReader, source, fields.Info!, envelope, (fields.Seen & CloudEventAttribute.DataBase64) != 0 ? CloudEventAttribute.DataBase64 : CloudEventAttribute.Data);
        }

        return envelope;
    }

    private void ReadData(ref Utf8JsonReader reader, in ReadOnlySequence<byte> source, MessageTypeInfo info, MessageEnvelope envelope, CloudEventAttribute attribute)
    {
        long position = reader.TokenStartIndex;
        try
        {
            if (attribute == CloudEventAttribute.DataBase64)
            {
                byte[] bytes;
                try
                {
                    bytes = reader.GetBytesFromBase64();
                }
                catch (FormatException)
                {
                    ThrowHelper.ThrowInvalidBase64(CloudEventAttributeNames.DataBase64, position);
                    return;
                }

                info.ReadBinary(envelope, bytes);
            }
            else
            {
                info.ReadJsonData(envelope, ref reader);
            }
        }
        catch (InvalidEnvelopeException e)
        {
            e.DataReadFailed = true;
            throw;
        }
        catch (Exception e) when (PayloadErrors.IsDataError(e))
        {
            // Syntax and depth errors inside the data surface here too: tell them apart from data
            // that merely does not fit the type by checking the whole input (on failure only).
            throw PayloadErrors.JsonDataFailure(e, JsonEnvelopeErrors.Diagnose(source, Settings.JsonReaderOptions, Settings.LogMessageContent), position, Settings.LogMessageContent);
        }
    }

    private static void ReadToken(ref Utf8JsonReader reader)
    {
        if (!reader.Read())
        {
            ThrowHelper.ThrowInvalidEnvelope(InvalidEnvelopeReason.Malformed, "The JSON ends before the envelope is complete.", reader.BytesConsumed);
        }
    }

    /// <summary>
    /// The attributes of an envelope as they are read, by the reader and by the hand scan alike, until
    /// <see cref="Complete"/> sets them on the envelope.
    /// </summary>
    private struct EnvelopeFields
    {
        public CloudEventAttribute Seen;
        public string? Id, Source, ContentType, Schema, Subject, TypeIdentifier;
        public DateTimeOffset? Time;
        public MessageTypeInfo? Info;
        public MessageEnvelope? Envelope;
        public ExtensionAttributeCollection? Extensions;

        /// <summary>Whether a string read was not a kept one: the envelope's recurring strings are offered to be kept.</summary>
        public bool NewStrings;

        /// <summary>Gets whether every required attribute was read (the type's envelope stands for the type).</summary>
        public readonly bool HasRequired
            => Envelope is not null && Id is not null && Source is not null && (Seen & CloudEventAttribute.SpecVersion) != 0;
    }

    /// <summary>The one ending of both readers: the attributes set, the envelope validated, its recurring strings offered.</summary>
    private MessageEnvelope Complete(ref EnvelopeFields fields, long objectStart)
    {
        MessageEnvelope envelope = fields.Envelope!;
        envelope.SetAttributes(fields.Id!, fields.Source!, fields.TypeIdentifier!, fields.Time, fields.ContentType, fields.Schema, fields.Subject, fields.Extensions);
        EnvelopeValidator.Validate(envelope, objectStart);
        if (fields.NewStrings)
        {
            Settings.KeepRecurringStrings(envelope);
        }

        return envelope;
    }
}
