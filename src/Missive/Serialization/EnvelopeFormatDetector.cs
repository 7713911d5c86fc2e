using System;
using System.Buffers;
using Missive.Lexing;

namespace Missive.Serialization;

/// <summary>Tells an envelope's format from a content type, or from its first significant byte.</summary>
internal static class EnvelopeFormatDetector
{
    /// <summary>Tells the format from a content type; unknown content types are treated as JSON.</summary>
    /// <param name="contentType">The content type. Must not be null.</param>
    /// <returns>The format.</returns>
    public static EnvelopeFormat FromContentType(string contentType)
    {
        ArgumentNullException.ThrowIfNull(contentType);
        ReadOnlySpan<char> essence = contentType.AsSpan();
        int semicolon = essence.IndexOf(';');
        essence = (semicolon >= 0 ? essence[..semicolon] : essence).Trim();
        return essence.Equals(ContentTypes.CloudEventsProtobuf, StringComparison.OrdinalIgnoreCase)
            || essence.Equals("application/protobuf", StringComparison.OrdinalIgnoreCase)
            || essence.Equals("application/x-protobuf", StringComparison.OrdinalIgnoreCase)
            ? EnvelopeFormat.Protobuf
            : EnvelopeFormat.Json;
    }

    /// <summary>
    /// Tells the format from the first significant byte (after whitespace or a UTF-8 byte order mark): JSON
    /// when it starts a JSON value that is not a string, else protobuf. No CloudEvent protobuf message starts
    /// with those bytes: read as a tag, <c>{</c> (0x7B) is field 15 with wire type 3, <c>[</c> field 11 with
    /// wire type 3, <c>n</c>, <c>f</c> and <c>t</c> have wire types 6 and 4, <c>-</c> is field 5 as fixed32,
    /// and the digits are fields 6 and 7 with wire types other than 2 (the digit <c>2</c>, field 6 as
    /// <c>binary_data</c>, and <c>"</c>, field 4 as <c>type</c>, are protobuf's). So a body such as <c>null</c>
    /// or <c>[]</c> is reported as the JSON it is, not as broken protobuf.
    /// </summary>
    /// <param name="source">The input.</param>
    /// <returns>The format.</returns>
    public static EnvelopeFormat Detect(in ReadOnlySequence<byte> source)
    {
        if (source.IsSingleSegment)
        {
            return Detect(source.FirstSpan);
        }

        var reader = new SequenceReader<byte>(source);
        reader.AdvancePastAny((byte)' ', (byte)'\t', (byte)'\r', (byte)'\n');
        if (reader.IsNext([0xEF, 0xBB, 0xBF], advancePast: true))
        {
            reader.AdvancePastAny((byte)' ', (byte)'\t', (byte)'\r', (byte)'\n');
        }

        return reader.TryPeek(out byte first) && StartsJson(first) ? EnvelopeFormat.Json : EnvelopeFormat.Protobuf;
    }

    /// <summary>Tells the format of contiguous input from its first significant byte (see the sequence overload).</summary>
    /// <param name="source">The input.</param>
    /// <returns>The format.</returns>
    public static EnvelopeFormat Detect(ReadOnlySpan<byte> source)
    {
        if (source.StartsWith((ReadOnlySpan<byte>)[0xEF, 0xBB, 0xBF]))
        {
            source = source[3..];
        }

        int first = JsonWhitespace.Skip(source, 0);
        return first >= 0 && StartsJson(source[first]) ? EnvelopeFormat.Json : EnvelopeFormat.Protobuf;
    }

    private static bool StartsJson(byte first)
        => first is (byte)'{' or (byte)'[' or (byte)'n' or (byte)'t' or (byte)'f' or (byte)'-'
            || (first is >= (byte)'0' and <= (byte)'9' && first != (byte)'2');
}
