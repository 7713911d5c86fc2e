using System;
using System.Text;
using System.Text.Json;
using Missive.Buffers;
using Missive.Lexing;
using Missive.Serialization;

namespace Missive.Transport;

/// <summary>Reads the values of wrapper members: strings, timestamps, and a wrapped envelope unescaped into a rented buffer.</summary>
internal static class WrapperJson
{
    /// <summary>
    /// Unescapes a string member of <paramref name="document"/> into a newly rented buffer, never longer than
    /// the escaped form. On failure the buffer is cleared and returned before the exception leaves.
    /// </summary>
    public static RentedBuffer Unescape(ReadOnlySpan<byte> document, WrapperMember member, SerializerSettings settings, out int length)
    {
        ReadOnlySpan<byte> value = member.ValueIn(document);
        RentedBuffer target = settings.Rent(value.Length);
        try
        {
            length = JsonStringUnescaper.Unescape(value, 1, target.Span, out _);
            return target;
        }
        catch
        {
            target.Dispose();
            throw;
        }
    }

    /// <summary>Gets a string member's value, or <c>null</c> when it is absent or not a string.</summary>
    public static string? StringOf(ReadOnlySpan<byte> document, WrapperMember member, JsonReaderOptions options)
    {
        if (!member.IsString)
        {
            return null;
        }

        if (!member.IsEscaped)
        {
            // A wrapper document is valid UTF-8 (an SQS body's encoding, or a string the unescaper validated),
            // so the bytes between the quotes decode as the reader would decode them.
            return Encoding.UTF8.GetString(Content(document, member));
        }

        var reader = new Utf8JsonReader(member.ValueIn(document), options);
        reader.Read();
        return reader.GetString();
    }

    /// <summary>
    /// Gets a string member whose value recurs from message to message (a topic ARN, an event source) as a kept
    /// string when there is one, else decodes it and keeps it while there is room; <c>null</c> when absent or not a string.
    /// </summary>
    public static string? RecurringStringOf(ReadOnlySpan<byte> document, WrapperMember member, JsonReaderOptions options, KnownStrings strings)
    {
        if (!member.IsEscaped && member.IsString && strings.Find(Content(document, member)) is { } known)
        {
            return known;
        }

        string? value = StringOf(document, member, options);
        if (value is not null)
        {
            strings.TryAdd(value);
        }

        return value;
    }

    /// <summary>The bytes between a string member's quotes.</summary>
    private static ReadOnlySpan<byte> Content(ReadOnlySpan<byte> document, WrapperMember member)
        => document.Slice((int)member.Start + 1, (int)member.Length - 2);

    /// <summary>Gets the string token the reader is on as a kept string when there is one, else decodes it and keeps it while there is room.</summary>
    public static string RecurringString(ref Utf8JsonReader reader, KnownStrings strings)
    {
        if (!reader.HasValueSequence && !reader.ValueIsEscaped && strings.Find(reader.ValueSpan) is { } known)
        {
            return known;
        }

        string value = reader.GetString()!;
        strings.TryAdd(value);
        return value;
    }

    /// <summary>Gets a timestamp member's value, or <c>null</c> when it is absent or not an RFC 3339 string.</summary>
    public static DateTimeOffset? TimeOf(ReadOnlySpan<byte> document, WrapperMember member)
    {
        if (!member.IsString || member.Length < 2)
        {
            return null;
        }

        return Rfc3339.TryParse(Content(document, member), out DateTimeOffset value) ? value : null;
    }
}
