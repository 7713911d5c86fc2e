using System;
using System.Text.Json;
using Missive.Buffers;
using Missive.Serialization;

namespace Missive.Transport;

/// <summary>Reads the values of wrapper members: strings, timestamps, and a wrapped envelope unescaped into a rented buffer.</summary>
internal static class WrapperJson
{
    /// <summary>
    /// Unescapes the string token the reader is on into a newly rented buffer, never longer than the
    /// escaped form. On failure the buffer is cleared and returned before the exception leaves.
    /// </summary>
    public static RentedBuffer Unescape(scoped ref Utf8JsonReader reader, SerializerSettings settings, out int length)
    {
        int needed = reader.HasValueSequence ? (int)reader.ValueSequence.Length : reader.ValueSpan.Length;
        RentedBuffer target = settings.Rent(needed);
        try
        {
            length = reader.CopyString(target.Span);
            return target;
        }
        catch
        {
            target.Dispose();
            throw;
        }
    }

    /// <summary>Unescapes a string member of <paramref name="document"/> into a newly rented buffer.</summary>
    public static RentedBuffer Unescape(ReadOnlySpan<byte> document, WrapperMember member, SerializerSettings settings, out int length)
    {
        var reader = new Utf8JsonReader(member.ValueIn(document), settings.WrapperReaderOptions);
        reader.Read();
        return Unescape(ref reader, settings, out length);
    }

    /// <summary>Gets a string member's value, or <c>null</c> when it is absent or not a string.</summary>
    public static string? StringOf(ReadOnlySpan<byte> document, WrapperMember member, JsonReaderOptions options)
    {
        if (!member.IsString)
        {
            return null;
        }

        var reader = new Utf8JsonReader(member.ValueIn(document), options);
        reader.Read();
        return reader.GetString();
    }

    /// <summary>Gets a timestamp member's value, or <c>null</c> when it is absent or not an RFC 3339 string.</summary>
    public static DateTimeOffset? TimeOf(ReadOnlySpan<byte> document, WrapperMember member)
    {
        if (!member.IsString || member.Length < 2)
        {
            return null;
        }

        return Rfc3339.TryParse(member.ValueIn(document)[1..^1], out DateTimeOffset value) ? value : null;
    }
}
