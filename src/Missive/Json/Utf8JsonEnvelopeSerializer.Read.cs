using System;
using System.Buffers;
using System.Collections.Generic;
using System.Text;
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
        CloudEventAttribute seen = CloudEventAttribute.None;
        string? id = null, eventSource = null, contentType = null, schema = null, subject = null;
        DateTimeOffset? time = null;
        MessageTypeInfo? info = null;
        MessageEnvelope? envelope = null;
        ExtensionAttributeCollection? extensions = null;
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
                extensionName = GetExtensionName(name, extensions, position);
            }
            else
            {
                if ((seen & attribute) != 0)
                {
                    ThrowHelper.ThrowDuplicateAttribute(CloudEventAttributeNames.NameOf(attribute), position);
                }

                seen |= attribute;
            }

            ReadToken(ref reader);
            position = reader.TokenStartIndex;
            switch (attribute)
            {
                case CloudEventAttribute.Id:
                    id = GetRequiredString(ref reader, CloudEventAttributeNames.Id);
                    break;
                case CloudEventAttribute.Source:
                    eventSource = GetRequiredString(ref reader, CloudEventAttributeNames.Source);
                    break;
                case CloudEventAttribute.SpecVersion:
                    ReadSpecVersion(ref reader);
                    break;
                case CloudEventAttribute.Type:
                    info = ReadType(ref reader);
                    envelope = info.CreateEnvelope();
                    break;
                case CloudEventAttribute.Time:
                    time = ReadTime(ref reader, ref scratch);
                    break;
                case CloudEventAttribute.DataContentType:
                    contentType = reader.TokenType == JsonTokenType.String && reader.ValueTextEquals(ContentTypes.ApplicationJsonUtf8)
                        ? ContentTypes.ApplicationJson
                        : GetOptionalString(ref reader, CloudEventAttributeNames.DataContentType);
                    break;
                case CloudEventAttribute.DataSchema:
                    schema = GetOptionalString(ref reader, CloudEventAttributeNames.DataSchema);
                    break;
                case CloudEventAttribute.Subject:
                    subject = GetOptionalString(ref reader, CloudEventAttributeNames.Subject);
                    break;
                case CloudEventAttribute.Data:
                case CloudEventAttribute.DataBase64:
                    if ((seen & (CloudEventAttribute.Data | CloudEventAttribute.DataBase64)) == (CloudEventAttribute.Data | CloudEventAttribute.DataBase64))
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

                    if (envelope is not null)
                    {
                        ReadData(ref reader, source, info!, envelope, attribute);
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
                        extensions ??= new ExtensionAttributeCollection();
                        if (extensions.Count == Settings.MaxExtensionAttributes)
                        {
                            ThrowHelper.ThrowTooManyExtensions(Settings.MaxExtensionAttributes, position);
                        }

                        extensions.AddTrusted(extensionName!, ReadExtensionValue(ref reader, extensionName!, ref scratch));
                    }

                    break;
            }
        }

        bool hasSpecVersion = (seen & CloudEventAttribute.SpecVersion) != 0;
        if (envelope is null || !hasSpecVersion)
        {
            // Report every missing required attribute at once.
            ThrowHelper.ThrowMissingAttributes(id, eventSource, hasSpecVersion, envelope is not null, objectStart);
        }

        envelope.SetAttributes(id!, eventSource!, info!.Identifier, time, contentType, schema, subject, extensions);
        EnvelopeValidator.Validate(envelope, objectStart);

        if (deferredStart >= 0)
        {
            var dataReader = new Utf8JsonReader(source.Slice(deferredStart, deferredEnd - deferredStart), Settings.JsonReaderOptions);
            ReadToken(ref dataReader);
            ReadData(ref dataReader, source, info!, envelope, (seen & CloudEventAttribute.DataBase64) != 0 ? CloudEventAttribute.DataBase64 : CloudEventAttribute.Data);
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
        catch (Exception e) when (PayloadErrors.IsDataError(e))
        {
            // Syntax and depth errors inside the data surface here too: tell them apart from data
            // that merely does not fit the type by checking the whole input (on failure only).
            throw JsonEnvelopeErrors.Diagnose(source, Settings.JsonReaderOptions, Settings.LogMessageContent) ?? PayloadErrors.InvalidData(e, position, Settings.LogMessageContent);
        }
    }

    private static void ReadToken(ref Utf8JsonReader reader)
    {
        if (!reader.Read())
        {
            ThrowHelper.ThrowInvalidEnvelope(InvalidEnvelopeReason.Malformed, "The JSON ends before the envelope is complete.", reader.BytesConsumed);
        }
    }

    /// <summary>Gets a member name as unescaped UTF-8, without allocating.</summary>
    private ReadOnlySpan<byte> GetName(ref Utf8JsonReader reader, ref Scratch scratch)
    {
        if (!reader.HasValueSequence && !reader.ValueIsEscaped)
        {
            ReadOnlySpan<byte> span = reader.ValueSpan;
            if (span.Length > Settings.MaxAttributeNameLength)
            {
                ThrowNameTooLong(reader.TokenStartIndex);
            }

            return span;
        }

        long rawLength = reader.HasValueSequence ? reader.ValueSequence.Length : reader.ValueSpan.Length;
        if (rawLength > ScratchSize)
        {
            ThrowNameTooLong(reader.TokenStartIndex);
        }

        Span<byte> buffer = scratch;
        int length = reader.CopyString(buffer);
        if (length > Settings.MaxAttributeNameLength)
        {
            ThrowNameTooLong(reader.TokenStartIndex);
        }

        return buffer[..length];
    }

    private void ThrowNameTooLong(long position) => ThrowHelper.ThrowAttributeNameTooLong(Settings.MaxAttributeNameLength, position);

    private static string GetExtensionName(ReadOnlySpan<byte> name, ExtensionAttributeCollection? extensions, long position)
    {
        if (!CloudEventRules.IsValidAttributeName(name))
        {
            ThrowHelper.ThrowInvalidAttributeName(position);
        }

        string extensionName = Encoding.UTF8.GetString(name);
        if (extensions is not null && extensions.IndexOf(extensionName) >= 0)
        {
            ThrowHelper.ThrowDuplicateAttribute(extensionName, position);
        }

        return extensionName;
    }

    private string GetRequiredString(ref Utf8JsonReader reader, string attribute)
    {
        if (reader.TokenType != JsonTokenType.String)
        {
            ThrowHelper.ThrowWrongTokenType(attribute, "a string", reader.TokenStartIndex);
        }

        return CheckedString(ref reader, attribute);
    }

    /// <summary>Decodes a string attribute value, within <see cref="SerializationOptions.MaxAttributeValueLength"/>.</summary>
    private string CheckedString(ref Utf8JsonReader reader, string attribute)
    {
        string value = reader.GetString()!;
        ThrowHelper.CheckAttributeLength(Encoding.UTF8.GetByteCount(value), Settings.MaxAttributeValueLength, attribute, reader.TokenStartIndex);
        return value;
    }

    private string? GetOptionalString(ref Utf8JsonReader reader, string attribute)
        => reader.TokenType == JsonTokenType.Null ? null : GetRequiredString(ref reader, attribute);

    private static void ReadSpecVersion(ref Utf8JsonReader reader)
    {
        if (reader.TokenType != JsonTokenType.String)
        {
            ThrowHelper.ThrowWrongTokenType(CloudEventAttributeNames.SpecVersion, "a string", reader.TokenStartIndex);
        }

        if (!reader.ValueTextEquals(CloudEventRules.SpecVersion10Utf8))
        {
            ThrowHelper.ThrowUnsupportedSpecVersion(reader.TokenStartIndex);
        }
    }

    private MessageTypeInfo ReadType(ref Utf8JsonReader reader)
    {
        long position = reader.TokenStartIndex;
        if (reader.TokenType != JsonTokenType.String)
        {
            ThrowHelper.ThrowWrongTokenType(CloudEventAttributeNames.Type, "a string", position);
        }

        // Look the identifier up as UTF-16 on the stack: the envelope then shares the registered
        // identifier string and reading the type allocates nothing.
        long rawLength = reader.HasValueSequence ? reader.ValueSequence.Length : reader.ValueSpan.Length;
        if (rawLength <= ScratchSize && !reader.HasValueSequence && !reader.ValueIsEscaped)
        {
            Span<char> chars = stackalloc char[ScratchSize];
            if (Encoding.UTF8.TryGetChars(reader.ValueSpan, chars, out int count) && MessageTypes.TryGet(chars[..count], out MessageTypeInfo? found))
            {
                return found;
            }
        }

        string type = CheckedString(ref reader, CloudEventAttributeNames.Type);
        if (type.Length == 0)
        {
            ThrowHelper.ThrowMissingAttributes(CloudEventAttributeNames.Type, position);
        }

        if (!MessageTypes.TryGet(type, out MessageTypeInfo? info))
        {
            ThrowHelper.ThrowUnknownMessageType(type, Settings.LogMessageContent, position);
        }

        return info;
    }

    private static DateTimeOffset? ReadTime(ref Utf8JsonReader reader, ref Scratch scratch)
    {
        if (reader.TokenType == JsonTokenType.Null)
        {
            return null;
        }

        if (reader.TokenType != JsonTokenType.String)
        {
            ThrowHelper.ThrowWrongTokenType(CloudEventAttributeNames.Time, "an RFC 3339 timestamp string", reader.TokenStartIndex);
        }

        if (!TryReadTimestamp(ref reader, ref scratch, out DateTimeOffset value))
        {
            ThrowHelper.ThrowInvalidTimestamp(CloudEventAttributeNames.Time, reader.TokenStartIndex);
        }

        return value;
    }

    private static bool TryReadTimestamp(ref Utf8JsonReader reader, ref Scratch scratch, out DateTimeOffset value)
    {
        if (!reader.HasValueSequence && !reader.ValueIsEscaped)
        {
            return Rfc3339.TryParse(reader.ValueSpan, out value);
        }

        value = default;
        long rawLength = reader.HasValueSequence ? reader.ValueSequence.Length : reader.ValueSpan.Length;
        Span<byte> buffer = scratch;
        return rawLength <= ScratchSize && Rfc3339.TryParse(buffer[..reader.CopyString(buffer)], out value);
    }

    private CloudEventAttributeValue ReadExtensionValue(ref Utf8JsonReader reader, string name, ref Scratch scratch)
    {
        long position = reader.TokenStartIndex;
        Settings.ExtensionAttributeTypes.TryGetValue(name, out CloudEventAttributeType declared);
        switch (reader.TokenType)
        {
            case JsonTokenType.True or JsonTokenType.False when declared is CloudEventAttributeType.None or CloudEventAttributeType.Boolean:
                return CloudEventAttributeValue.FromBoolean(reader.TokenType == JsonTokenType.True);
            case JsonTokenType.Number when declared is CloudEventAttributeType.None or CloudEventAttributeType.Integer:
                if (!reader.TryGetInt32(out int integer))
                {
                    ThrowHelper.ThrowIntegerOutOfRange(name, position);
                }

                return CloudEventAttributeValue.FromInteger(integer);
            case JsonTokenType.String:
                return ReadStringExtension(ref reader, name, declared, ref scratch);
            default:
                ThrowHelper.ThrowWrongTokenType(name, declared == CloudEventAttributeType.None ? "a string, an integer or a boolean" : "of its declared type " + declared, position);
                return default;
        }
    }

    private CloudEventAttributeValue ReadStringExtension(ref Utf8JsonReader reader, string name, CloudEventAttributeType declared, ref Scratch scratch)
    {
        long position = reader.TokenStartIndex;
        switch (declared)
        {
            case CloudEventAttributeType.None or CloudEventAttributeType.String:
                return CloudEventAttributeValue.FromString(CheckedString(ref reader, name));
            case CloudEventAttributeType.Binary:
                if (!reader.TryGetBytesFromBase64(out byte[]? bytes))
                {
                    ThrowHelper.ThrowInvalidBase64(name, position);
                }

                ThrowHelper.CheckAttributeLength(bytes.Length, Settings.MaxAttributeValueLength, name, position);
                return CloudEventAttributeValue.FromBinary(bytes);
            case CloudEventAttributeType.Timestamp:
                if (!TryReadTimestamp(ref reader, ref scratch, out DateTimeOffset timestamp))
                {
                    ThrowHelper.ThrowInvalidTimestamp(name, position);
                }

                return CloudEventAttributeValue.FromTimestamp(timestamp);
            case CloudEventAttributeType.Uri:
                string uri = CheckedString(ref reader, name);
                if (!CloudEventRules.IsAbsoluteUri(uri))
                {
                    ThrowHelper.ThrowNotAbsoluteUri(name, position);
                }

                return CloudEventAttributeValue.FromUri(uri);
            case CloudEventAttributeType.UriReference:
                string reference = CheckedString(ref reader, name);
                if (!CloudEventRules.IsUriReference(reference))
                {
                    ThrowHelper.ThrowNotUriReference(name, position);
                }

                return CloudEventAttributeValue.FromUriReference(reference);
            default:
                ThrowHelper.ThrowWrongTokenType(name, "of its declared type " + declared, position);
                return default;
        }
    }
}
