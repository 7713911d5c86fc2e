using System;
using System.Text.Json;

namespace Missive.Transport;

/// <summary>
/// Where a top-level member's value lies in a wrapper document: its first token, its byte range, and for a string
/// whether it holds escapes (when it does not, the bytes between the quotes are its text).
/// </summary>
internal readonly record struct WrapperMember(JsonTokenType TokenType, long Start, long Length, bool IsEscaped = true)
{
    public bool IsPresent => Length > 0;

    public bool IsString => Length > 0 && TokenType == JsonTokenType.String;

    /// <summary>The member's value (quotes included for a string) in <paramref name="document"/>.</summary>
    public ReadOnlySpan<byte> ValueIn(ReadOnlySpan<byte> document) => document.Slice((int)Start, (int)Length);

    /// <summary>Whether the member is a string whose text is <paramref name="text"/>, however it is escaped.</summary>
    public bool IsStringEqualTo(ReadOnlySpan<byte> document, ReadOnlySpan<byte> text)
    {
        if (!IsString)
        {
            return false;
        }

        ReadOnlySpan<byte> value = ValueIn(document);
        if (!IsEscaped)
        {
            return value[1..^1].SequenceEqual(text);
        }

        var reader = new Utf8JsonReader(value);
        return reader.Read() && reader.ValueTextEquals(text);
    }
}
