using System;
using System.Buffers;
using System.Buffers.Text;
using System.Numerics;
using System.Runtime.Intrinsics;
using System.Text;
using System.Text.Json;
using System.Text.Unicode;

namespace Missive.Transport;

/// <summary>
/// Finds the end of a JSON string and unescapes it in the same pass: the bytes between escapes are found with a
/// vectorized search and copied in bulk. It rejects what <see cref="Utf8JsonReader"/> would reject in the token
/// (a control character, an unknown escape, a short <c>\u</c>, no closing quote) with a <see cref="JsonException"/>,
/// and what <see cref="Utf8JsonReader.CopyString(Span{byte})"/> would (a lone surrogate escape, invalid UTF-8)
/// with an <see cref="InvalidOperationException"/>.
/// </summary>
internal static class JsonStringUnescaper
{
    /// <summary>The bytes that end a run of plain string content: quote, backslash, and the control characters.</summary>
    private static readonly SearchValues<byte> RunEnds = SearchValues.Create(
        "\"\\\u0000\u0001\u0002\u0003\u0004\u0005\u0006\u0007\u0008\u0009\u000A\u000B\u000C\u000D\u000E\u000F\u0010\u0011\u0012\u0013\u0014\u0015\u0016\u0017\u0018\u0019\u001A\u001B\u001C\u001D\u001E\u001F"u8);

    /// <summary>
    /// Unescapes the string whose content starts at <paramref name="start"/> (just after its opening quote) into
    /// <paramref name="destination"/>, which must hold at least the rest of <paramref name="source"/>.
    /// </summary>
    /// <param name="source">The document.</param>
    /// <param name="start">Where the content starts.</param>
    /// <param name="destination">Where the unescaped UTF-8 goes.</param>
    /// <param name="closingQuote">Receives the index of the closing quote in <paramref name="source"/>.</param>
    /// <returns>The number of bytes written.</returns>
    public static int Unescape(ReadOnlySpan<byte> source, int start, Span<byte> destination, out int closingQuote)
    {
        int read = start;
        int written = 0;
        bool loneSurrogate = false;
        while (true)
        {
            // The common case first, block by block: plain bytes, and the escapes JSON text inside a string is
            // dense with (\" around every name, \\ and \/), all of which unescape by dropping the backslash.
            // A block is stored whole; each such escape in it stores the block's bytes after the escape again, one
            // place further left, from a load of its own, so escapes cost no round trip through the search. Any
            // other special byte leaves the loop for the general path below. Stores stay in the destination:
            // unescaping only shrinks, and it is no shorter than the rest of the source.
            if (Vector128.IsHardwareAccelerated)
            {
                Vector128<byte> quote = Vector128.Create((byte)'"');
                Vector128<byte> backslash = Vector128.Create((byte)'\\');
                Vector128<byte> space = Vector128.Create((byte)0x20);
                const int width = 16;
                while (read + (2 * width) <= source.Length)
                {
                    Vector128<byte> block = Vector128.Create(source.Slice(read, width));
                    block.CopyTo(destination[written..]);
                    uint mask = (Vector128.Equals(block, quote) | Vector128.Equals(block, backslash) | Vector128.LessThan(block, space)).ExtractMostSignificantBits();
                    int dropped = 0;
                    while (mask != 0)
                    {
                        int at = BitOperations.TrailingZeroCount(mask);
                        if (at == width - 1 || source[read + at] != (byte)'\\' || source[read + at + 1] is not ((byte)'"' or (byte)'\\' or (byte)'/'))
                        {
                            break;
                        }

                        dropped++;
                        Vector128.Create(source.Slice(read + at + 1, width)).CopyTo(destination[(written + at + 1 - dropped)..]);
                        mask &= ~(3u << at); // the backslash and the byte it escapes
                    }

                    if (mask != 0)
                    {
                        int at = BitOperations.TrailingZeroCount(mask);
                        read += at;
                        written += at - dropped;
                        break;
                    }

                    read += width;
                    written += width - dropped;
                }
            }

            int run = RunLength(source, read, destination, written);
            if (run < 0)
            {
                throw Syntax("The string has no closing quote", source.Length);
            }

            written += run;
            read += run;
            byte next = source[read];
            if (next == (byte)'"')
            {
                break;
            }

            if (next != (byte)'\\')
            {
                throw Syntax("The string holds a control character", read);
            }

            if (read + 1 >= source.Length)
            {
                throw Syntax("The string has no closing quote", source.Length);
            }

            byte escaped = source[read + 1];
            switch (escaped)
            {
                case (byte)'"' or (byte)'\\' or (byte)'/':
                    destination[written++] = escaped;
                    break;
                case (byte)'b':
                    destination[written++] = (byte)'\b';
                    break;
                case (byte)'f':
                    destination[written++] = (byte)'\f';
                    break;
                case (byte)'n':
                    destination[written++] = (byte)'\n';
                    break;
                case (byte)'r':
                    destination[written++] = (byte)'\r';
                    break;
                case (byte)'t':
                    destination[written++] = (byte)'\t';
                    break;
                case (byte)'u':
                    read = UnescapeCodePoint(source, read, destination, ref written, ref loneSurrogate);
                    continue;
                default:
                    throw Syntax("The string holds an unknown escape sequence", read);
            }

            read += 2;
        }

        closingQuote = read;
        if (loneSurrogate)
        {
            throw new InvalidOperationException("The string holds a \\u escape of a lone surrogate.");
        }

        if (!Utf8.IsValid(destination[..written]))
        {
            throw new InvalidOperationException("The string is not valid UTF-8.");
        }

        return written;
    }

    /// <summary>
    /// Copies the plain bytes from <paramref name="read"/> up to the next quote, backslash or control character to
    /// <paramref name="destination"/> at <paramref name="written"/> and returns how many there were, or -1 when the
    /// source ends first. (Long runs were copied by the block loop; this sees the last bytes and what follows an
    /// escape the block loop leaves to the general path.)
    /// </summary>
    private static int RunLength(ReadOnlySpan<byte> source, int read, Span<byte> destination, int written)
    {
        int run = source[read..].IndexOfAny(RunEnds);
        if (run > 0)
        {
            source.Slice(read, run).CopyTo(destination[written..]);
        }

        return run;
    }

    /// <summary>
    /// Decodes <c>\uXXXX</c> (two of them for a surrogate pair) at <paramref name="read"/> as UTF-8 and returns
    /// where reading goes on. A lone surrogate writes nothing and sets <paramref name="loneSurrogate"/>: the token
    /// is still read to its end first, so a syntax error after it is reported as such, as the reader would.
    /// </summary>
    private static int UnescapeCodePoint(ReadOnlySpan<byte> source, int read, Span<byte> destination, ref int written, ref bool loneSurrogate)
    {
        int unit = Hex4(source, read);
        int after = read + 6;
        uint scalar = (uint)unit;
        if (unit is >= 0xD800 and <= 0xDFFF)
        {
            bool pairs = unit < 0xDC00 && after + 1 < source.Length && source[after] == (byte)'\\' && source[after + 1] == (byte)'u';
            int low = pairs ? Hex4(source, after) : 0;
            if (!pairs || low is < 0xDC00 or > 0xDFFF)
            {
                loneSurrogate = true;
                return after;
            }

            scalar = 0x10000 + (((uint)unit - 0xD800) << 10) + ((uint)low - 0xDC00);
            after += 6;
        }

        written += new Rune(scalar).EncodeToUtf8(destination[written..]);
        return after;
    }

    /// <summary>The four hex digits after <c>\u</c> at <paramref name="escape"/>.</summary>
    private static int Hex4(ReadOnlySpan<byte> source, int escape)
    {
        if (escape + 6 > source.Length || !Utf8Parser.TryParse(source.Slice(escape + 2, 4), out ushort value, out int consumed, 'X') || consumed != 4)
        {
            throw Syntax("The string holds a \\u escape without four hex digits", escape);
        }

        return value;
    }

    private static JsonException Syntax(string message, long position)
        => new($"{message} (at byte {position}).", path: null, lineNumber: null, bytePositionInLine: position);
}
