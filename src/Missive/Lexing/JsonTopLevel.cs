using System;
using System.Buffers;
using System.Numerics;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;

namespace Missive.Lexing;

/// <summary>
/// Finds which of the names of <see cref="TopLevelNames"/> a JSON object has at its top level without tokenizing the
/// document: one vectorized pass over its structure (quotes, brackets, commas), strings skipped to their closing quote.
/// The answer is a hint for choosing a reader, not a validation: whatever reads the document afterwards reports what is
/// wrong with it. Names written with escapes are not recognised.
/// </summary>
internal static class JsonTopLevel
{
    private static readonly SearchValues<byte> Structure = SearchValues.Create("\"{}[],"u8);
    private static readonly SearchValues<byte> StringEnds = SearchValues.Create("\"\\"u8);

    /// <summary>Whether <paramref name="json"/> starts (after whitespace) as a JSON object or array; anything else is text.</summary>
    public static bool IsContainer(ReadOnlySpan<byte> json)
    {
        int first = JsonWhitespace.Skip(json, 0);
        return first >= 0 && json[first] is (byte)'{' or (byte)'[';
    }

    /// <summary>The names whose presence at the top level decides how a document is read (envelope, SNS, EventBridge).</summary>
    private const TopLevelNames Deciding = TopLevelNames.SpecVersion | TopLevelNames.TopicArn | TopLevelNames.DetailType;

    /// <summary>
    /// What decides how a document is read, found the cheap way when it can be: when none of <c>"specversion"</c>,
    /// <c>"TopicArn"</c> and <c>"detail-type"</c> appears anywhere in <paramref name="json"/> as a quoted string (one
    /// vectorized pass for the three and <c>"Records"</c>), it is neither an envelope nor a wrapper, and the answer is
    /// <see cref="TopLevelNames.Records"/> if <c>"Records"</c> appears anywhere (a superset: a name found nowhere is not
    /// at the top level). Otherwise the structural scan of <see cref="Names"/> answers exactly.
    /// </summary>
    public static TopLevelNames DecidingNames(ReadOnlySpan<byte> json)
    {
        TopLevelNames anywhere = QuotedAnywhere(json);
        return (anywhere & Deciding) == 0 ? anywhere : Names(json);
    }

    /// <summary>
    /// Whether <paramref name="json"/> is an object with a top-level <c>specversion</c> (a CloudEvents envelope): one
    /// vectorized substring search decides when the name appears nowhere, else the structural scan of <see cref="Names"/>.
    /// </summary>
    public static bool HasSpecVersion(ReadOnlySpan<byte> json)
        => json.IndexOf("specversion"u8) >= 0 && (Names(json) & TopLevelNames.SpecVersion) != 0;

    /// <summary>
    /// The names of <see cref="TopLevelNames"/> among the top-level members of <paramref name="json"/>, when it is an
    /// object (after whitespace); the search stops at <c>specversion</c>, which only an envelope has.
    /// </summary>
    public static TopLevelNames Names(ReadOnlySpan<byte> json)
    {
        TopLevelNames found = TopLevelNames.None;
        int at = JsonWhitespace.Skip(json, 0);
        if (at < 0 || json[at] != (byte)'{')
        {
            return found;
        }

        int depth = 0;
        bool nameNext = false;
        while (true)
        {
            int next = json[at..].IndexOfAny(Structure);
            if (next < 0)
            {
                return found;
            }

            at += next;
            switch (json[at])
            {
                case (byte)'"':
                    int close = StringEnd(json, at + 1);
                    if (close < 0)
                    {
                        return found;
                    }

                    if (depth == 1 && nameNext)
                    {
                        found |= NameOf(json[(at + 1)..close]);
                        if ((found & TopLevelNames.SpecVersion) != 0)
                        {
                            return found;
                        }

                        nameNext = false;
                    }

                    at = close + 1;
                    continue;
                case (byte)'{' or (byte)'[':
                    depth++;
                    nameNext = depth == 1;
                    break;
                case (byte)'}' or (byte)']':
                    if (--depth <= 0)
                    {
                        return found;
                    }

                    break;
                default: // ','
                    nameNext = depth == 1;
                    break;
            }

            at++;
        }
    }

    /// <summary>
    /// Which of <c>"specversion"</c>, <c>"TopicArn"</c>, <c>"detail-type"</c> and <c>"Records"</c> (quotes included)
    /// appear anywhere in <paramref name="json"/>, stopping at the first of the three deciding ones. One vectorized pass
    /// finds every quote followed by <c>s</c>, <c>T</c>, <c>d</c> or <c>R</c> (a body's base64 or text has few) and
    /// each such place is compared with the name its letter starts; four substring searches took four passes.
    /// </summary>
    private static TopLevelNames QuotedAnywhere(ReadOnlySpan<byte> json)
    {
        TopLevelNames found = TopLevelNames.None;
        ref byte start = ref MemoryMarshal.GetReference(json);
        int at = 0;

        // Each step compares the bytes at [at, at + width) with a quote and those one further on with the four letters.
        if (Vector512.IsHardwareAccelerated)
        {
            for (; at + Vector512<byte>.Count < json.Length; at += Vector512<byte>.Count)
            {
                Vector512<byte> next = Vector512.LoadUnsafe(ref start, (nuint)at + 1);
                Vector512<byte> quotes = Vector512.Equals(Vector512.LoadUnsafe(ref start, (nuint)at), Vector512.Create((byte)'"'));
                Vector512<byte> letters = Vector512.Equals(next, Vector512.Create((byte)'s')) | Vector512.Equals(next, Vector512.Create((byte)'T'))
                    | Vector512.Equals(next, Vector512.Create((byte)'d')) | Vector512.Equals(next, Vector512.Create((byte)'R'));
                Vector512<byte> starts = quotes & letters;
                if (starts != Vector512<byte>.Zero && Candidates(json, at, starts.ExtractMostSignificantBits(), ref found))
                {
                    return found;
                }
            }
        }

        if (Vector256.IsHardwareAccelerated)
        {
            for (; at + Vector256<byte>.Count < json.Length; at += Vector256<byte>.Count)
            {
                Vector256<byte> next = Vector256.LoadUnsafe(ref start, (nuint)at + 1);
                Vector256<byte> quotes = Vector256.Equals(Vector256.LoadUnsafe(ref start, (nuint)at), Vector256.Create((byte)'"'));
                Vector256<byte> letters = Vector256.Equals(next, Vector256.Create((byte)'s')) | Vector256.Equals(next, Vector256.Create((byte)'T'))
                    | Vector256.Equals(next, Vector256.Create((byte)'d')) | Vector256.Equals(next, Vector256.Create((byte)'R'));
                Vector256<byte> starts = quotes & letters;
                if (starts != Vector256<byte>.Zero && Candidates(json, at, starts.ExtractMostSignificantBits(), ref found))
                {
                    return found;
                }
            }
        }

        if (Vector128.IsHardwareAccelerated)
        {
            for (; at + Vector128<byte>.Count < json.Length; at += Vector128<byte>.Count)
            {
                Vector128<byte> next = Vector128.LoadUnsafe(ref start, (nuint)at + 1);
                Vector128<byte> quotes = Vector128.Equals(Vector128.LoadUnsafe(ref start, (nuint)at), Vector128.Create((byte)'"'));
                Vector128<byte> letters = Vector128.Equals(next, Vector128.Create((byte)'s')) | Vector128.Equals(next, Vector128.Create((byte)'T'))
                    | Vector128.Equals(next, Vector128.Create((byte)'d')) | Vector128.Equals(next, Vector128.Create((byte)'R'));
                Vector128<byte> starts = quotes & letters;
                if (starts != Vector128<byte>.Zero && Candidates(json, at, starts.ExtractMostSignificantBits(), ref found))
                {
                    return found;
                }
            }
        }

        for (; at < json.Length - 1; at++)
        {
            if (json[at] == (byte)'"' && Candidates(json, at, 1, ref found))
            {
                return found;
            }
        }

        return found;
    }

    /// <summary>
    /// Compares the places a step found (bit <c>i</c> of <paramref name="quotes"/>: a quote at <paramref name="from"/> + i)
    /// with the names; returns whether a deciding one is among them.
    /// </summary>
    private static bool Candidates(ReadOnlySpan<byte> json, int from, ulong quotes, ref TopLevelNames found)
    {
        for (; quotes != 0; quotes &= quotes - 1)
        {
            ReadOnlySpan<byte> rest = json[(from + BitOperations.TrailingZeroCount(quotes) + 1)..];
            found |= rest[0] switch
            {
                (byte)'s' when rest.StartsWith("specversion\""u8) => TopLevelNames.SpecVersion,
                (byte)'T' when rest.StartsWith("TopicArn\""u8) => TopLevelNames.TopicArn,
                (byte)'d' when rest.StartsWith("detail-type\""u8) => TopLevelNames.DetailType,
                (byte)'R' when rest.StartsWith("Records\""u8) => TopLevelNames.Records,
                _ => TopLevelNames.None,
            };
            if ((found & Deciding) != 0)
            {
                return true;
            }
        }

        return false;
    }

    private static TopLevelNames NameOf(ReadOnlySpan<byte> name) => name.Length switch
    {
        4 when name.SequenceEqual("Type"u8) => TopLevelNames.Type,
        4 when name.SequenceEqual("time"u8) => TopLevelNames.Time,
        6 when name.SequenceEqual("detail"u8) => TopLevelNames.Detail,
        6 when name.SequenceEqual("source"u8) => TopLevelNames.Source,
        7 when name.SequenceEqual("Records"u8) => TopLevelNames.Records,
        8 when name.SequenceEqual("TopicArn"u8) => TopLevelNames.TopicArn,
        9 when name.SequenceEqual("MessageId"u8) => TopLevelNames.MessageId,
        11 when name.SequenceEqual("specversion"u8) => TopLevelNames.SpecVersion,
        11 when name.SequenceEqual("detail-type"u8) => TopLevelNames.DetailType,
        _ => TopLevelNames.None,
    };

    /// <summary>The index of the quote that closes the string whose content starts at <paramref name="from"/>, or -1.</summary>
    private static int StringEnd(ReadOnlySpan<byte> json, int from)
    {
        int at = from;
        while (true)
        {
            int next = json[at..].IndexOfAny(StringEnds);
            if (next < 0)
            {
                return -1;
            }

            at += next;
            if (json[at] == (byte)'"')
            {
                return at;
            }

            at += 2; // an escape: the backslash and the character it escapes (a \uXXXX's hex digits hold no quote)
            if (at >= json.Length)
            {
                return -1;
            }
        }
    }
}
