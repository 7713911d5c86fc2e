using System;
using System.Text.Json;

namespace Missive.Transport;

/// <summary>Where a top-level member's value lies in a wrapper document: its first token and its byte range.</summary>
internal readonly record struct WrapperMember(JsonTokenType TokenType, long Start, long Length)
{
    public bool IsPresent => Length > 0;

    public bool IsString => Length > 0 && TokenType == JsonTokenType.String;

    /// <summary>The member's value (quotes included for a string) in <paramref name="document"/>.</summary>
    public ReadOnlySpan<byte> ValueIn(ReadOnlySpan<byte> document) => document.Slice((int)Start, (int)Length);
}
