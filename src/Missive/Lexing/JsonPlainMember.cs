using System;

namespace Missive.Lexing;

/// <summary>
/// An object member as producers mostly write it, gone through without a reader: a plain name (see
/// <see cref="JsonPlainString"/>), a colon, then the value, with whitespace anywhere between. The wrapper scan and the
/// envelope scan both go through members so; anything else is left to a <see cref="System.Text.Json.Utf8JsonReader"/>.
/// </summary>
internal static class JsonPlainMember
{
    /// <summary>
    /// From <paramref name="at"/> (just after an object's <c>{</c> or a member's <c>,</c>): the index of the member's
    /// value, with its name between <paramref name="nameStart"/> and <paramref name="nameEnd"/> (its closing quote);
    /// or -1 when what comes is not a plain name, a colon and the start of a value.
    /// </summary>
    public static int Value(ReadOnlySpan<byte> json, int at, out int nameStart, out int nameEnd)
    {
        nameStart = 0;
        nameEnd = 0;
        int quote = JsonWhitespace.Skip(json, at);
        int end = quote < 0 || json[quote] != (byte)'"' ? -1 : JsonPlainString.End(json, quote);
        int colon = end < 0 ? -1 : JsonWhitespace.Skip(json, end + 1);
        if (colon < 0 || json[colon] != (byte)':')
        {
            return -1;
        }

        nameStart = quote + 1;
        nameEnd = end;
        return JsonWhitespace.Skip(json, colon + 1);
    }

    /// <summary>
    /// After a member's value, ending before <paramref name="end"/>: the index of the <c>,</c> or <c>}</c> that
    /// follows it, or -1 when something else (or nothing) does.
    /// </summary>
    public static int Separator(ReadOnlySpan<byte> json, int end)
    {
        int next = JsonWhitespace.Skip(json, end);
        return next >= 0 && json[next] is (byte)',' or (byte)'}' ? next : -1;
    }
}
