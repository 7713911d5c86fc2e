using System;
using System.Buffers.Text;
using System.Numerics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;
using System.Runtime.Intrinsics.X86;
using System.Text;
using System.Text.Json;
using System.Text.Unicode;

#if MISSIVE_AWS
namespace Missive.Aws.Lexing; // the same source compiled into Missive.Aws, whose SQS receive answer reads bodies with it
#else
namespace Missive.Lexing;
#endif

/// <summary>Finds the end of a JSON string and unescapes it in the same pass, block by block.</summary>
/// <remarks>
/// <list type="bullet">
/// <item>A block of plain bytes is copied whole; a block whose escapes all drop a backslash is stored without them
/// (one compress for 64 bytes where the hardware has AVX-512 VBMI2, else two byte shuffles for 16); anything else
/// goes escape by escape, with a vectorized search for the next one.</item>
/// <item>What <see cref="Utf8JsonReader"/> would reject in the token (a control character, an unknown escape, a short
/// <c>\u</c>, no closing quote) is a <see cref="JsonException"/>.</item>
/// <item>What <see cref="Utf8JsonReader.CopyString(Span{byte})"/> would reject (a lone surrogate escape, invalid
/// UTF-8) is an <see cref="InvalidOperationException"/>.</item>
/// </list>
/// </remarks>
internal static class JsonStringUnescaper
{
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
        => Unescape(source, start, destination, out closingQuote, WideBlocksSupported);

    /// <summary>Whether the hardware compresses 64-byte blocks (AVX-512 VBMI and VBMI2), which <see cref="WideBlocks"/> needs.</summary>
    internal static bool WideBlocksSupported => Avx512Vbmi2.IsSupported && Avx512Vbmi.IsSupported;

    /// <summary>As <see cref="Unescape(ReadOnlySpan{byte}, int, Span{byte}, out int)"/>, with 64-byte blocks only when <paramref name="wideBlocks"/> (and the hardware) allow them: tests go both ways on one machine.</summary>
    internal static int Unescape(ReadOnlySpan<byte> source, int start, Span<byte> destination, out int closingQuote, bool wideBlocks)
    {
        wideBlocks &= WideBlocksSupported;
        if ((uint)start > (uint)source.Length || destination.Length < source.Length - start)
        {
            throw new ArgumentException("The start must lie in the source, and the destination must hold the rest of it.", nameof(destination));
        }

        int read = start;
        int written = 0;
        bool loneSurrogate = false;
        while (true)
        {
            // The common case first, block by block: plain bytes, and the escapes JSON text inside a string is
            // dense with (\" around every name, \\ and \/), all of which unescape by dropping the backslash.
            // The escapes of a block are found from its mask of special bytes, and the block is stored without
            // their backslashes in two shuffles, one per half (the kept bytes of each half moved to its front).
            // Any other special byte ends the loop for the general path below, after the bytes before it are
            // stored. Stores stay in the destination: unescaping only shrinks, and the destination is no shorter
            // than the rest of the source; bytes stored past what is kept are overwritten or lie past the end.
            if (Vector128.IsHardwareAccelerated)
            {
                Vector128<byte> quote = Vector128.Create((byte)'"');
                Vector128<byte> backslash = Vector128.Create((byte)'\\');
                Vector128<byte> space = Vector128.Create((byte)0x20);
                Vector128<byte> slash = Vector128.Create((byte)'/');
                const int width = 16;

                // Loads and stores go unchecked: a block is loaded only where two lie ahead in the source, and the
                // destination (checked above) is no shorter than the rest of the source, so a store at written
                // (never past read) stays inside it too.
                ref byte sourceStart = ref MemoryMarshal.GetReference(source);
                ref byte destinationStart = ref MemoryMarshal.GetReference(destination);
                int wideFrom = read;
                while (read + (2 * width) <= source.Length)
                {
                    if (wideBlocks && read >= wideFrom)
                    {
                        // Where the hardware compresses a whole 64-byte block, that goes first; a block it
                        // leaves is taken here 16 bytes at a time, and wide blocks are tried again after it.
                        WideBlocks(ref sourceStart, source.Length, ref destinationStart, ref read, ref written);
                        wideFrom = read + (4 * width);
                        if (read + (2 * width) > source.Length)
                        {
                            break;
                        }
                    }

                    Vector128<byte> block = Vector128.LoadUnsafe(ref sourceStart, (nuint)read);
                    uint backslashes = Vector128.Equals(block, backslash).ExtractMostSignificantBits();
                    uint quotes = Vector128.Equals(block, quote).ExtractMostSignificantBits();
                    uint controls = Vector128.LessThan(block, space).ExtractMostSignificantBits();
                    uint mask = backslashes | quotes | controls;
                    if (mask == 0)
                    {
                        block.StoreUnsafe(ref destinationStart, (nuint)written);
                        read += width;
                        written += width;
                        continue;
                    }

                    // The escapes of the block at once: a run of backslashes holds escapes starting at its first,
                    // third, fifth... byte. Adding a run's first bit to the backslashes carries through the run, so
                    // the runs that start on an even bit are the backslashes that sum clears. The block is simple
                    // escapes only when each escapes a quote, a backslash or a slash within the block (one on its last
                    // byte escapes bit 16, outside every mask), and no quote or control byte stands unescaped.
                    uint runStarts = backslashes & ~(backslashes << 1);
                    uint evenRuns = backslashes & ~(backslashes + (runStarts & 0x5555));
                    uint escapes = (evenRuns & 0x5555) | (backslashes & ~evenRuns & 0xAAAA);
                    uint escapedBytes = escapes << 1;
                    if (controls == 0 && (quotes & ~escapedBytes) == 0
                        && (escapedBytes & ~(quotes | backslashes | Vector128.Equals(block, slash).ExtractMostSignificantBits())) == 0)
                    {
                        written += StoreWithout(block, escapes, ref destinationStart, written, width);
                        read += width;
                        continue;
                    }

                    uint dropped = 0;
                    int end = width;
                    while (mask != 0)
                    {
                        int at = BitOperations.TrailingZeroCount(mask);
                        if (at == width - 1 || source[read + at] != (byte)'\\' || source[read + at + 1] is not ((byte)'"' or (byte)'\\' or (byte)'/'))
                        {
                            end = at;
                            break;
                        }

                        dropped |= 1u << at;
                        mask &= ~(3u << at); // the backslash and the byte it escapes
                    }

                    written += StoreWithout(block, dropped, ref destinationStart, written, end);
                    read += end;
                    if (end < width)
                    {
                        break;
                    }
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

    /// <summary>For each byte of a 64-byte block, the byte of a 64-bit mask its bit is in.</summary>
    private static readonly Vector512<byte> MaskByteOf = Vector512<byte>.Indices >>> 3;

    /// <summary>For each byte of a 64-byte block, its bit within its mask byte.</summary>
    private static readonly Vector512<byte> MaskBitOf = CreateMaskBits();

    private static Vector512<byte> CreateMaskBits()
    {
        Span<byte> bits = stackalloc byte[64];
        for (int i = 0; i < bits.Length; i++)
        {
            bits[i] = (byte)(1 << (i & 7));
        }

        return Vector512.Create((ReadOnlySpan<byte>)bits);
    }

    /// <summary>
    /// Unescapes 64-byte blocks of plain bytes and simple escapes (a backslash before a quote, a backslash or a
    /// slash, all in the block), storing each without its escaping backslashes in one compress. It stops, with
    /// <paramref name="read"/> and <paramref name="written"/> past what it took, at the first block with anything
    /// else, an escape across the block's end included, or where fewer than two blocks lie ahead.
    /// </summary>
    private static void WideBlocks(ref byte source, int sourceLength, ref byte destination, ref int read, ref int written)
    {
        const int width = 64;
        const ulong evenBits = 0x5555_5555_5555_5555;
        Vector512<byte> quote = Vector512.Create((byte)'"');
        Vector512<byte> backslash = Vector512.Create((byte)'\\');
        Vector512<byte> space = Vector512.Create((byte)0x20);
        Vector512<byte> slash = Vector512.Create((byte)'/');
        while (read + (2 * width) <= sourceLength)
        {
            Vector512<byte> block = Vector512.LoadUnsafe(ref source, (nuint)read);
            ulong backslashes = Vector512.Equals(block, backslash).ExtractMostSignificantBits();
            ulong quotes = Vector512.Equals(block, quote).ExtractMostSignificantBits();
            ulong controls = Vector512.LessThan(block, space).ExtractMostSignificantBits();
            if ((backslashes | quotes | controls) == 0)
            {
                block.StoreUnsafe(ref destination, (nuint)written);
                read += width;
                written += width;
                continue;
            }

            // As in the 16-byte blocks: the even-starting runs are the backslashes the carry of their first bit
            // clears, and each run escapes its first, third, fifth... byte.
            ulong runStarts = backslashes & ~(backslashes << 1);
            ulong evenRuns = backslashes & ~(backslashes + (runStarts & evenBits));
            ulong escapes = (evenRuns & evenBits) | (backslashes & ~evenRuns & ~evenBits);
            ulong escapedBytes = escapes << 1;
            if (controls != 0 || (escapes >> 63) != 0 || (quotes & ~escapedBytes) != 0
                || (escapedBytes & ~(quotes | backslashes | Vector512.Equals(block, slash).ExtractMostSignificantBits())) != 0)
            {
                return;
            }

            Vector512<byte> keptBits = Avx512Vbmi.PermuteVar64x8(Vector512.Create(~escapes).AsByte(), MaskByteOf) & MaskBitOf;
            Avx512Vbmi2.Compress(Vector512<byte>.Zero, Vector512.Equals(keptBits, MaskBitOf), block).StoreUnsafe(ref destination, (nuint)written);
            read += width;
            written += width - BitOperations.PopCount(escapes);
        }
    }

    /// <summary>
    /// For each byte mask of one half block, the indices of the bytes it keeps, moved to the front: the bytes at the
    /// set bits are dropped. Entry <c>m</c> is at <c>8 * m</c>.
    /// </summary>
    private static readonly byte[] KeptIndices = CreateKeptIndices();

    private static byte[] CreateKeptIndices()
    {
        byte[] table = new byte[256 * 8];
        for (int dropped = 0; dropped < 256; dropped++)
        {
            int kept = 0;
            for (int i = 0; i < 8; i++)
            {
                if ((dropped & (1 << i)) == 0)
                {
                    table[(8 * dropped) + kept++] = (byte)i;
                }
            }
        }

        return table;
    }

    /// <summary>
    /// Stores the first <paramref name="count"/> bytes of <paramref name="block"/> at <paramref name="written"/>,
    /// without the bytes at the set bits of <paramref name="dropped"/> (all below <paramref name="count"/>), and
    /// returns how many were kept. Up to sixteen bytes are stored, the kept ones first.
    /// </summary>
    private static int StoreWithout(Vector128<byte> block, uint dropped, ref byte destination, int written, int count)
    {
        if (dropped == 0)
        {
            block.StoreUnsafe(ref destination, (nuint)written);
            return count;
        }

        uint low = dropped & 0xFF, high = dropped >> 8;
        ref byte indices = ref MemoryMarshal.GetArrayDataReference(KeptIndices); // 256 entries: low and high are bytes
        Vector128<byte> lowIndices = Vector128.CreateScalar(Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref indices, 8 * low))).AsByte();
        Vector128<byte> highIndices = Vector128.CreateScalar(Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref indices, 8 * high))).AsByte() + Vector128.Create((byte)8);
        int lowKept = 8 - BitOperations.PopCount(low);
        Unsafe.WriteUnaligned(ref Unsafe.Add(ref destination, written), Vector128.ShuffleNative(block, lowIndices).AsUInt64().ToScalar());
        Unsafe.WriteUnaligned(ref Unsafe.Add(ref destination, written + lowKept), Vector128.ShuffleNative(block, highIndices).AsUInt64().ToScalar());
        return count - BitOperations.PopCount(dropped);
    }

    /// <summary>
    /// Copies the plain bytes from <paramref name="read"/> up to the next quote, backslash or control character to
    /// <paramref name="destination"/> at <paramref name="written"/> and returns how many there were, or -1 when the
    /// source ends first. (Long runs were copied by the block loop; this sees the last bytes and what follows an
    /// escape the block loop leaves to the general path.)
    /// </summary>
    private static int RunLength(ReadOnlySpan<byte> source, int read, Span<byte> destination, int written)
    {
        int run = JsonPlainString.IndexOfRunEnd(source[read..]);
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
