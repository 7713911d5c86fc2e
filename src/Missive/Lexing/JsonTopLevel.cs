using System;
using System.Buffers;

namespace Missive.Lexing;

/// <summary>
/// Looks for a member of a JSON object's top level without tokenizing the document: one vectorized pass over its
/// structure (quotes, brackets, commas), strings skipped to their closing quote. The answer is a hint for choosing a
/// reader, not a validation: whatever reads the document afterwards reports what is wrong with it.
/// </summary>
internal static class JsonTopLevel
{
    private static readonly SearchValues<byte> Structure = SearchValues.Create("\"{}[],"u8);
    private static readonly SearchValues<byte> StringEnds = SearchValues.Create("\"\\"u8);

    /// <summary>
    /// Tells whether <paramref name="json"/> is an object (after whitespace) with a top-level member named
    /// <paramref name="name"/> written without escapes.
    /// </summary>
    public static bool HasMember(ReadOnlySpan<byte> json, ReadOnlySpan<byte> name)
    {
        int at = JsonWhitespace.Skip(json, 0);
        if (at < 0 || json[at] != (byte)'{')
        {
            return false;
        }

        int depth = 0;
        bool nameNext = false;
        while (true)
        {
            int next = json[at..].IndexOfAny(Structure);
            if (next < 0)
            {
                return false;
            }

            at += next;
            switch (json[at])
            {
                case (byte)'"':
                    int close = StringEnd(json, at + 1);
                    if (close < 0)
                    {
                        return false;
                    }

                    if (depth == 1 && nameNext)
                    {
                        if (json[(at + 1)..close].SequenceEqual(name))
                        {
                            return true;
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
                        return false;
                    }

                    break;
                default: // ','
                    nameNext = depth == 1;
                    break;
            }

            at++;
        }
    }

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
