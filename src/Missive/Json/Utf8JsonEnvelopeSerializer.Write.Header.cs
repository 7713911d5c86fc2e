using System;
using System.Buffers;
using System.Buffers.Text;
using System.Collections.Generic;
using System.Text.Encodings.Web;
using System.Text.Json;
using System.Text;
using Missive.Serialization;

namespace Missive.Json;

/// <summary>
/// Writing a common envelope without a <see cref="Utf8JsonWriter"/> call per attribute: the members before and
/// after the data are put together as bytes, and only the data goes through a writer, as a value of its own.
/// </summary>
/// <remarks>
/// The bytes are exactly the ones <see cref="WriteEnvelope{T}"/> gives. That holds when every string is printable
/// ASCII the configured encoder leaves alone (checked before anything is written), which is what ids, sources, type
/// identifiers, content types and trace context are. An envelope with a string that needs escaping, or a binary or
/// timestamp extension, is written by <see cref="WriteEnvelope{T}"/> instead. The data is written by a writer whose
/// depth limit is one less, as it starts one level up (the limit is at least 2).
/// </remarks>
public sealed partial class Utf8JsonEnvelopeSerializer
{
    private static ReadOnlySpan<byte> IdPrefix => "{\"id\":\""u8;
    private static ReadOnlySpan<byte> SourcePrefix => "\",\"source\":\""u8;
    private static ReadOnlySpan<byte> TypePrefix => "\",\"specversion\":\"1.0\",\"type\":\""u8;
    private static ReadOnlySpan<byte> TimePrefix => ",\"time\":\""u8;
    private static ReadOnlySpan<byte> ContentTypePrefix => ",\"datacontenttype\":\""u8;
    private static ReadOnlySpan<byte> DataPrefix => ",\"data\":"u8;
    private static ReadOnlySpan<byte> DataBase64Prefix => ",\"data_base64\":"u8;
    private static ReadOnlySpan<byte> SchemaPrefix => ",\"dataschema\":\""u8;
    private static ReadOnlySpan<byte> SubjectPrefix => ",\"subject\":\""u8;

    /// <summary>The longest <c>time</c> value: <c>yyyy-MM-ddTHH:mm:ss.fffffff+hh:mm</c>.</summary>
    private const int MaxTimeLength = 33;

    /// <summary>Room for the constant parts and the quotes around each value.</summary>
    private const int HeaderOverhead = 160;

    private SearchValues<char>? _plainChars;

    /// <summary>The characters the writer copies as they are: printable ASCII that the configured encoder (or its default) leaves alone.</summary>
    private SearchValues<char> PlainChars => _plainChars ??= CreatePlainChars(Settings.JsonWriterOptions.Encoder ?? JavaScriptEncoder.Default);

    /// <summary>Writes the envelope with its attributes as bytes, or returns -1, having written nothing, when it cannot.</summary>
    private int TryWriteByParts<T>(IBufferWriter<byte> destination, MessageEnvelope<T> envelope, MessageTypeInfo<T> info)
    {
        ExtensionAttributeCollection? extensions = envelope.ExtensionsOrNull;
        if (!IsPlain(envelope.Id) || !IsPlain(envelope.Source) || !IsPlain(envelope.Type)
            || !IsPlainOrNull(envelope.DataContentType) || !IsPlainOrNull(envelope.DataSchema) || !IsPlainOrNull(envelope.Subject)
            || !ArePlain(extensions, out int extensionsLength))
        {
            return -1;
        }

        int length = envelope.Id.Length + envelope.Source.Length + envelope.Type.Length + (envelope.DataContentType?.Length ?? 0) + MaxTimeLength + HeaderOverhead;
        int written = WriteHeader(destination.GetSpan(length), envelope, info);
        destination.Advance(written);
        if (envelope.Message is { } message)
        {
            using PoolLease<Utf8JsonWriter> lease = Pools.RentValueWriter(destination);
            Utf8JsonWriter writer = lease.Value;
            info.Codec.WriteJsonValue(writer, message);
            writer.Flush();
            written += checked((int)writer.BytesCommitted);
        }

        length = (envelope.DataSchema?.Length ?? 0) + (envelope.Subject?.Length ?? 0) + extensionsLength + HeaderOverhead;
        int end = WriteSuffix(destination.GetSpan(length), envelope, extensions);
        destination.Advance(end);
        return written + end;
    }

    private static int WriteHeader<T>(Span<byte> span, MessageEnvelope<T> envelope, MessageTypeInfo<T> info)
    {
        int at = 0;
        Put(span, ref at, IdPrefix);
        PutPlain(span, ref at, envelope.Id);
        Put(span, ref at, SourcePrefix);
        PutPlain(span, ref at, envelope.Source);
        Put(span, ref at, TypePrefix);
        PutPlain(span, ref at, envelope.Type);
        span[at++] = (byte)'"';
        if (envelope.Time is { } time)
        {
            Put(span, ref at, TimePrefix);
            at += FormatTime(time, span[at..]);
            span[at++] = (byte)'"';
        }

        if (envelope.DataContentType is { } contentType)
        {
            Put(span, ref at, ContentTypePrefix);
            PutPlain(span, ref at, contentType);
            span[at++] = (byte)'"';
        }

        if (envelope.Message is not null)
        {
            Put(span, ref at, info.Codec.Kind == PayloadKind.Binary ? DataBase64Prefix : DataPrefix);
        }

        return at;
    }

    /// <summary>Writes the members after the data and the closing brace.</summary>
    private static int WriteSuffix(Span<byte> span, MessageEnvelope envelope, ExtensionAttributeCollection? extensions)
    {
        int at = 0;
        if (envelope.DataSchema is { } schema)
        {
            Put(span, ref at, SchemaPrefix);
            PutPlain(span, ref at, schema);
            span[at++] = (byte)'"';
        }

        if (envelope.Subject is { } subject)
        {
            Put(span, ref at, SubjectPrefix);
            PutPlain(span, ref at, subject);
            span[at++] = (byte)'"';
        }

        for (int i = 0; i < (extensions?.Count ?? 0); i++)
        {
            ref readonly KeyValuePair<string, CloudEventAttributeValue> item = ref extensions!.ItemAt(i);
            span[at++] = (byte)',';
            span[at++] = (byte)'"';
            PutPlain(span, ref at, item.Key);
            span[at++] = (byte)'"';
            span[at++] = (byte)':';
            CloudEventAttributeValue value = item.Value;
            switch (value.Type)
            {
                case CloudEventAttributeType.Boolean:
                    Put(span, ref at, value.AsBoolean() ? "true"u8 : "false"u8);
                    break;
                case CloudEventAttributeType.Integer:
                    Utf8Formatter.TryFormat(value.AsInteger(), span[at..], out int digits);
                    at += digits;
                    break;
                default:
                    span[at++] = (byte)'"';
                    PutPlain(span, ref at, value.AsString());
                    span[at++] = (byte)'"';
                    break;
            }
        }

        span[at++] = (byte)'}';
        return at;
    }

    /// <summary>Whether every extension can be written as bytes (booleans, integers and plain strings), and the room they need.</summary>
    private bool ArePlain(ExtensionAttributeCollection? extensions, out int length)
    {
        length = 0;
        for (int i = 0; i < (extensions?.Count ?? 0); i++)
        {
            ref readonly KeyValuePair<string, CloudEventAttributeValue> item = ref extensions!.ItemAt(i);
            CloudEventAttributeValue value = item.Value;
            if (!IsPlain(item.Key))
            {
                return false;
            }

            switch (value.Type)
            {
                case CloudEventAttributeType.Boolean or CloudEventAttributeType.Integer:
                    length += item.Key.Length + 16;
                    break;
                case CloudEventAttributeType.String or CloudEventAttributeType.Uri or CloudEventAttributeType.UriReference when IsPlain(value.AsString()):
                    length += item.Key.Length + value.AsString().Length + 8;
                    break;
                default:
                    return false;
            }
        }

        return true;
    }

    private bool IsPlain(string value) => value.AsSpan().IndexOfAnyExcept(PlainChars) < 0;

    private bool IsPlainOrNull(string? value) => value is null || IsPlain(value);

    private static void Put(Span<byte> span, ref int at, ReadOnlySpan<byte> bytes)
    {
        bytes.CopyTo(span[at..]);
        at += bytes.Length;
    }

    /// <summary>Copies a string of <see cref="PlainChars"/> (so ASCII: one byte a character).</summary>
    private static void PutPlain(Span<byte> span, ref int at, string value)
    {
        Ascii.FromUtf16(value, span[at..], out int length);
        at += length;
    }

    private static SearchValues<char> CreatePlainChars(JavaScriptEncoder encoder)
    {
        Span<char> plain = stackalloc char[128];
        Span<byte> one = stackalloc byte[1];
        int count = 0;
        for (int c = 0x20; c < 0x7F; c++)
        {
            one[0] = (byte)c;
            if (encoder.FindFirstCharacterToEncodeUtf8(one) < 0)
            {
                plain[count++] = (char)c;
            }
        }

        return SearchValues.Create(plain[..count]);
    }

    /// <summary>
    /// Formats a timestamp as <see cref="Utf8JsonWriter.WriteStringValue(DateTimeOffset)"/> does: ISO 8601 with the
    /// offset, the fraction of a second without trailing zeros, and no fraction when it is zero.
    /// </summary>
    private static int FormatTime(DateTimeOffset time, Span<byte> destination)
    {
        Utf8Formatter.TryFormat(time, destination, out int length, new StandardFormat('O'));
        const int fractionStart = 20; // after "yyyy-MM-ddTHH:mm:ss."
        const int offsetStart = 27;
        int end = offsetStart;
        while (end > fractionStart && destination[end - 1] == (byte)'0')
        {
            end--;
        }

        if (end == fractionStart)
        {
            end--; // no fraction: drop the dot too
        }

        destination[offsetStart..length].CopyTo(destination[end..]);
        return end + (length - offsetStart);
    }
}
