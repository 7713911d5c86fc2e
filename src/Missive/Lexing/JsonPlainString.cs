using System;
using System.Buffers;
using System.Numerics;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;

#if MISSIVE_AWS
namespace Missive.Aws.Lexing; // the same source compiled into Missive.Aws, whose SQS receive answer reads bodies with it
#else
namespace Missive.Lexing;
#endif

/// <summary>
/// JSON strings as producers mostly write them: no escape and no control character between the quotes, so their
/// bytes are their UTF-8 text. The wrapper scan, the unescaper and the envelope scan find their ends here.
/// </summary>
internal static class JsonPlainString
{
    /// <summary>The bytes that end a run of plain string content: quote, backslash, and the control characters.</summary>
    public static readonly SearchValues<byte> RunEnds = SearchValues.Create(
        "\"\\\u0000\u0001\u0002\u0003\u0004\u0005\u0006\u0007\u0008\u0009\u000A\u000B\u000C\u000D\u000E\u000F\u0010\u0011\u0012\u0013\u0014\u0015\u0016\u0017\u0018\u0019\u001A\u001B\u001C\u001D\u001E\u001F"u8);

    /// <summary>
    /// The index of the closing quote of the string opened at <paramref name="quote"/>, or -1 when it holds an
    /// escape or a control character first (or never closes).
    /// </summary>
    public static int End(ReadOnlySpan<byte> json, int quote)
    {
        int length = IndexOfRunEnd(json[(quote + 1)..]);
        return length >= 0 && json[quote + 1 + length] == (byte)'"' ? quote + 1 + length : -1;
    }

    /// <summary>
    /// The index of the first <see cref="RunEnds"/> byte in <paramref name="span"/>, or -1. Most strings are short,
    /// so 32-byte blocks are compared directly (the last one overlapping the one before), without the set-up of a
    /// general search.
    /// </summary>
    public static int IndexOfRunEnd(ReadOnlySpan<byte> span)
    {
        const int width = 32;
        if (!Vector256.IsHardwareAccelerated || span.Length < width)
        {
            return span.IndexOfAny(RunEnds);
        }

        ref byte start = ref MemoryMarshal.GetReference(span);
        int last = span.Length - width;
        for (int at = 0; ; at += width)
        {
            // Past the last whole block, the final load ends at the span's end; the bytes it shares with the block
            // before were already looked at and are shifted out.
            int load = Math.Min(at, last);
            Vector256<byte> block = Vector256.LoadUnsafe(ref start, (nuint)load);
            uint found = (Vector256.Equals(block, Vector256.Create((byte)'"')) | Vector256.Equals(block, Vector256.Create((byte)'\\'))
                | Vector256.LessThan(block, Vector256.Create((byte)0x20))).ExtractMostSignificantBits() >> (at - load);
            if (found != 0)
            {
                return at + BitOperations.TrailingZeroCount(found);
            }

            if (at >= last)
            {
                return -1;
            }
        }
    }
}
