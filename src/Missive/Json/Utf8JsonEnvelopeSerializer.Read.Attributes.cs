using System;
using System.Diagnostics.CodeAnalysis;
using System.Text;
using System.Text.Json;
using Missive.Lexing;
using Missive.Serialization;

namespace Missive.Json;

/// <summary>Reading attribute values: names, strings within the length limit, the type lookup, timestamps and extensions.</summary>
public sealed partial class Utf8JsonEnvelopeSerializer
{
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

    private string GetExtensionName(ReadOnlySpan<byte> name, ExtensionAttributeCollection? extensions, long position, ref bool newStrings)
    {
        if (!CloudEventRules.IsValidAttributeName(name))
        {
            ThrowHelper.ThrowInvalidAttributeName(position);
        }

        string extensionName = ExtensionNameOf(name, ref newStrings);
        if (extensions is not null && extensions.IndexOf(extensionName) >= 0)
        {
            ThrowHelper.ThrowDuplicateAttribute(extensionName, position);
        }

        return extensionName;
    }

    /// <summary>
    /// The kept string of a valid extension name (lower-case ASCII letters and digits), else a decoded one, noted in
    /// <paramref name="newStrings"/>.
    /// </summary>
    private string ExtensionNameOf(ReadOnlySpan<byte> name, ref bool newStrings)
    {
        string? extensionName = Settings.Strings.Find(name);
        if (extensionName is null)
        {
            extensionName = Encoding.UTF8.GetString(name);
            newStrings = true;
        }

        return extensionName;
    }

    /// <summary>
    /// Gets a string attribute whose value recurs from message to message (<c>source</c>): the kept string when the
    /// unescaped token's bytes are one (see <see cref="KnownStrings"/>), else a decoded one, noted in <paramref name="newStrings"/>.
    /// </summary>
    private string GetRecurringString(ref Utf8JsonReader reader, string attribute, ref bool newStrings)
    {
        if (reader.TokenType == JsonTokenType.String && !reader.HasValueSequence && !reader.ValueIsEscaped && reader.ValueSpan.Length <= Settings.MaxAttributeValueLength
            && Settings.Strings.Find(reader.ValueSpan) is { } known)
        {
            return known;
        }

        newStrings = true;
        return GetRequiredString(ref reader, attribute);
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
        int length = reader.HasValueSequence || reader.ValueIsEscaped ? Encoding.UTF8.GetByteCount(value) : reader.ValueSpan.Length; // unescaped, the token is the value's UTF-8
        ThrowHelper.CheckAttributeLength(length, Settings.MaxAttributeValueLength, attribute, reader.TokenStartIndex);
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

    /// <summary>Looks the type up; <paramref name="identifier"/> is the envelope's own type string, which differs from the registration's only for an unregistered type.</summary>
    private MessageTypeInfo ReadType(ref Utf8JsonReader reader, out string identifier)
    {
        long position = reader.TokenStartIndex;
        if (reader.TokenType != JsonTokenType.String)
        {
            ThrowHelper.ThrowWrongTokenType(CloudEventAttributeNames.Type, "a string", position);
        }

        if (!reader.HasValueSequence && !reader.ValueIsEscaped && TryFindRegisteredType(reader.ValueSpan, out MessageTypeInfo? found))
        {
            identifier = found.Identifier;
            return found;
        }

        string type = CheckedString(ref reader, CloudEventAttributeNames.Type);
        if (type.Length == 0)
        {
            ThrowHelper.ThrowMissingAttributes(CloudEventAttributeNames.Type, position);
        }

        identifier = type;
        return MessageTypes.Resolve(type, position);
    }

    /// <summary>
    /// Looks a type identifier (unescaped UTF-8) up among the registered types, as UTF-16 on the stack: the envelope
    /// then shares the registered identifier string and reading the type allocates nothing.
    /// </summary>
    private bool TryFindRegisteredType(ReadOnlySpan<byte> utf8, [NotNullWhen(true)] out MessageTypeInfo? info)
    {
        Span<char> chars = stackalloc char[ScratchSize];
        info = null;
        return utf8.Length <= ScratchSize && Encoding.UTF8.TryGetChars(utf8, chars, out int count) && MessageTypes.TryGet(chars[..count], out info);
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

        return ReadTimestamp(ref reader, ref scratch, CloudEventAttributeNames.Time);
    }

    /// <summary>Reads a timestamp string, telling a malformed one from one out of range.</summary>
    private static DateTimeOffset ReadTimestamp(ref Utf8JsonReader reader, ref Scratch scratch, string attribute)
    {
        Rfc3339.Result result;
        DateTimeOffset value;
        if (!reader.HasValueSequence && !reader.ValueIsEscaped)
        {
            result = Rfc3339.Parse(reader.ValueSpan, out value);
        }
        else
        {
            value = default;
            long rawLength = reader.HasValueSequence ? reader.ValueSequence.Length : reader.ValueSpan.Length;
            Span<byte> buffer = scratch;
            result = rawLength <= ScratchSize ? Rfc3339.Parse(buffer[..reader.CopyString(buffer)], out value) : Rfc3339.Result.Invalid;
        }

        if (result != Rfc3339.Result.Valid)
        {
            Rfc3339.ThrowFor(result, attribute, reader.TokenStartIndex);
        }

        return value;
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
                return CloudEventAttributeValue.FromTimestamp(ReadTimestamp(ref reader, ref scratch, name));
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
