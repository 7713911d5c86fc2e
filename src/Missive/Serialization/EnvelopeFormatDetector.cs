using System;
using System.Buffers;

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
    /// Tells the format from the first significant byte: a JSON envelope starts with <c>{</c> (after
    /// whitespace or a UTF-8 byte order mark); a protobuf CloudEvent never does, since <c>{</c> (0x7B)
    /// would be field 15 with wire type 3, which the CloudEvent message does not have.
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

        return reader.TryPeek(out byte first) && first == (byte)'{' ? EnvelopeFormat.Json : EnvelopeFormat.Protobuf;
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

        int first = source.IndexOfAnyExcept(" \t\r\n"u8);
        return first >= 0 && source[first] == (byte)'{' ? EnvelopeFormat.Json : EnvelopeFormat.Protobuf;
    }
}
