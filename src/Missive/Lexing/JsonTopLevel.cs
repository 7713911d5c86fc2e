using System;
using System.Buffers;

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

    /// <summary>
    /// What decides how a document is read, found the cheap way when it can be: when none of <c>specversion</c>,
    /// <c>TopicArn</c> and <c>detail-type</c> appears anywhere in <paramref name="json"/> (one vectorized substring search
    /// each), it is neither an envelope nor a wrapper, and the answer is <see cref="TopLevelNames.Records"/> if that name
    /// appears anywhere (a superset: a name found nowhere is not at the top level). Otherwise the structural scan of
    /// <see cref="Names"/> answers exactly.
    /// </summary>
    public static TopLevelNames DecidingNames(ReadOnlySpan<byte> json)
    {
        if (json.IndexOf("specversion"u8) < 0 && json.IndexOf("TopicArn"u8) < 0 && json.IndexOf("detail-type"u8) < 0)
        {
            return json.IndexOf("Records"u8) < 0 ? TopLevelNames.None : TopLevelNames.Records;
        }

        return Names(json);
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
