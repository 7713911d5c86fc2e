using System;
using System.Buffers;
using System.Text;
using Missive.Lexing;
using Missive.Serialization;

namespace Missive.Protobuf;

/// <summary>Reading the <c>attributes</c> map: entries, typed values, timestamps, and the strings and type identifier they hold.</summary>
public sealed partial class ProtobufEnvelopeSerializer
{
    private void ReadAttribute(
        ReadOnlySpan<byte> entry,
        long basePosition,
        ref DateTimeOffset? time,
        ref string? contentType,
        ref string? schema,
        ref string? subject,
        ref ExtensionAttributeCollection? extensions,
        ref bool newStrings)
    {
        var reader = new ProtobufReader(entry, basePosition);
        string? name = null;
        ReadOnlySpan<byte> value = default;
        bool hasValue = false;
        long valuePosition = basePosition;
        while (!reader.End)
        {
            reader.ReadTag(out int field, out WireType wireType);
            if (wireType == WireType.LengthDelimited && field is CloudEventProto.AttributeEntry.KeyField or CloudEventProto.AttributeEntry.ValueField)
            {
                ReadOnlySpan<byte> slice = reader.ReadLengthDelimited(out long start);
                if (field == CloudEventProto.AttributeEntry.KeyField)
                {
                    if (slice.Length > Settings.MaxAttributeNameLength)
                    {
                        ThrowHelper.ThrowAttributeNameTooLong(Settings.MaxAttributeNameLength, start);
                    }

                    name = AttributeName(slice, start, ref newStrings);
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

    private CloudEventAttributeValue ReadAttributeValue(ReadOnlySpan<byte> source, long basePosition, string name)
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
                    ReadOnlySpan<byte> bytes = reader.ReadLengthDelimited(out long start);
                    string text = field == CloudEventProto.AttributeValue.CeStringField && name == CloudEventAttributeNames.DataContentType
                        && bytes.SequenceEqual(ContentTypes.ApplicationJsonUtf8)
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
                    ReadOnlySpan<byte> timestamp = reader.ReadLengthDelimited(out long timestampStart);
                    result = CloudEventAttributeValue.FromTimestamp(ReadTimestamp(timestamp, timestampStart, name));
                    break;
                default:
                    reader.Skip(field, wireType);
                    break;
            }
        }

        return result;
    }

    private static DateTimeOffset ReadTimestamp(ReadOnlySpan<byte> source, long basePosition, string name)
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

        if (nanos is < 0 or > 999_999_999)
        {
            ThrowHelper.ThrowInvalidAttribute(name, "is a timestamp whose nanos are outside 0 to 999,999,999", basePosition);
        }

        if (!ProtobufPrimitives.TryFromTimestamp(seconds, nanos, out DateTimeOffset value))
        {
            ThrowHelper.ThrowTimestampOutOfRange(name, basePosition);
        }

        return value;
    }

    /// <summary>Looks the type up; <paramref name="identifier"/> is the envelope's own type string, which differs from the registration's only for an unregistered type.</summary>
    private MessageTypeInfo LookUpType(ReadOnlySpan<byte> type, long position, out string identifier)
    {
        if (type.Length <= MaxStackTypeLength)
        {
            Span<char> chars = stackalloc char[MaxStackTypeLength];
            if (System.Text.Unicode.Utf8.ToUtf16(type, chars, out _, out int written, replaceInvalidSequences: false) == OperationStatus.Done
                && MessageTypes.TryGet(chars[..written], out MessageTypeInfo? found))
            {
                identifier = found.Identifier;
                return found;
            }
        }

        identifier = DecodeString(type, position);
        return MessageTypes.Resolve(identifier, position);
    }

    /// <summary>Decodes an attribute name, sharing the constant strings of the core attribute names and the kept extension names.</summary>
    private string AttributeName(ReadOnlySpan<byte> value, long position, ref bool newStrings)
    {
        if (CloudEventAttributeNames.Classify(value) is var attribute and not CloudEventAttribute.Extension)
        {
            return CloudEventAttributeNames.NameOf(attribute);
        }

        return RecurringString(value, position, ref newStrings);
    }

    /// <summary>
    /// Decodes a string that recurs from message to message (source, extension names): the kept one when its bytes
    /// are one (see <see cref="KnownStrings"/>), else a new one, noted in <paramref name="newStrings"/>.
    /// </summary>
    private string RecurringString(ReadOnlySpan<byte> value, long position, ref bool newStrings)
    {
        if (Settings.Strings.Find(value) is { } known)
        {
            return known;
        }

        newStrings = true;
        return DecodeString(value, position);
    }

    private static bool IsSpecVersion10(ReadOnlySpan<byte> value) => value.SequenceEqual(CloudEventRules.SpecVersion10Utf8);

    private static string DecodeString(ReadOnlySpan<byte> value, long position)
    {
        try
        {
            return StrictUtf8.GetString(value);
        }
        catch (DecoderFallbackException)
        {
            ProtobufReader.ThrowMalformed("A string field is not valid UTF-8", position);
            return null!;
        }
    }
}
