using System;
using System.Buffers;

namespace Missive;

/// <summary>
/// The CloudEvents 1.0 rules for attribute names and values, shared by every reader and writer so
/// that all formats accept and reject the same envelopes.
/// </summary>
internal static class CloudEventRules
{
    /// <summary>The only specification version this library reads and writes.</summary>
    public const string SpecVersion10 = "1.0";

    /// <summary><see cref="SpecVersion10"/> as UTF-8.</summary>
    public static ReadOnlySpan<byte> SpecVersion10Utf8 => "1.0"u8;

    /// <summary>What a URI reference cannot hold: space, the control characters and DEL.</summary>
    private static readonly SearchValues<char> NotInUriReferences = SearchValues.Create(
        "\u0000\u0001\u0002\u0003\u0004\u0005\u0006\u0007\u0008\u0009\u000A\u000B\u000C\u000D\u000E\u000F\u0010\u0011\u0012\u0013\u0014\u0015\u0016\u0017\u0018\u0019\u001A\u001B\u001C\u001D\u001E\u001F \u007F");

    /// <summary>Tells whether a name is made of lower-case ASCII letters and digits (and is not empty).</summary>
    public static bool IsValidAttributeName(ReadOnlySpan<char> name)
    {
        if (name.IsEmpty)
        {
            return false;
        }

        foreach (char c in name)
        {
            if (!char.IsAsciiLetterLower(c) && !char.IsAsciiDigit(c))
            {
                return false;
            }
        }

        return true;
    }

    /// <summary>Tells whether a UTF-8 name is made of lower-case ASCII letters and digits (and is not empty).</summary>
    public static bool IsValidAttributeName(ReadOnlySpan<byte> name)
    {
        if (name.IsEmpty)
        {
            return false;
        }

        foreach (byte b in name)
        {
            if (!char.IsAsciiLetterLower((char)b) && !char.IsAsciiDigit((char)b))
            {
                return false;
            }
        }

        return true;
    }

    /// <summary>
    /// Tells whether a value can be a URI reference: not empty, and free of spaces and control
    /// characters (which RFC 3986 never allows unescaped). The check is syntactic and does not allocate.
    /// </summary>
    public static bool IsUriReference(ReadOnlySpan<char> value)
    {
        return !value.IsEmpty && value.IndexOfAny(NotInUriReferences) < 0;
    }

    /// <summary>Tells whether a value is an absolute URI: a URI reference that starts with a valid scheme and a colon.</summary>
    public static bool IsAbsoluteUri(ReadOnlySpan<char> value)
    {
        if (!IsUriReference(value) || !char.IsAsciiLetter(value[0]))
        {
            return false;
        }

        for (int i = 1; i < value.Length; i++)
        {
            char c = value[i];
            if (c == ':')
            {
                return true;
            }

            if (!char.IsAsciiLetterOrDigit(c) && c is not ('+' or '-' or '.'))
            {
                return false;
            }
        }

        return false;
    }

    /// <summary>
    /// Tells whether a content type has the RFC 2046 shape <c>type/subtype</c>, optionally followed by
    /// parameters after <c>;</c>. Type and subtype are RFC 2045 tokens.
    /// </summary>
    public static bool IsMediaType(ReadOnlySpan<char> value)
    {
        int semicolon = value.IndexOf(';');
        ReadOnlySpan<char> essence = (semicolon >= 0 ? value[..semicolon] : value).TrimEnd(' ');
        int slash = essence.IndexOf('/');
        return slash > 0
            && slash < essence.Length - 1
            && IsToken(essence[..slash])
            && IsToken(essence[(slash + 1)..]);
    }

    /// <summary>
    /// Tells whether a content type is JSON: missing or blank, <c>application/json</c>, or any
    /// <c>type/json</c> or <c>type/…+json</c> (parameters ignored, case-insensitive).
    /// </summary>
    public static bool IsJsonContentType(string? contentType)
    {
        if (contentType is null || ReferenceEquals(contentType, ContentTypes.ApplicationJson))
        {
            return true;
        }

        ReadOnlySpan<char> value = contentType.AsSpan();
        int semicolon = value.IndexOf(';');
        ReadOnlySpan<char> essence = (semicolon >= 0 ? value[..semicolon] : value).Trim();
        if (essence.IsEmpty)
        {
            return true;
        }

        int slash = essence.IndexOf('/');
        if (slash < 0 || essence[(slash + 1)..].Contains('/'))
        {
            return false;
        }

        ReadOnlySpan<char> subtype = essence[(slash + 1)..];
        return subtype.Equals("json", StringComparison.OrdinalIgnoreCase)
            || subtype.EndsWith("+json", StringComparison.OrdinalIgnoreCase);
    }

    private static bool IsToken(ReadOnlySpan<char> value)
    {
        if (value.IsEmpty)
        {
            return false;
        }

        foreach (char c in value)
        {
            // RFC 2045 token: any printable ASCII except space and tspecials.
            if (c <= ' ' || c >= '\u007F' || "()<>@,;:\\\"/[]?=".Contains(c))
            {
                return false;
            }
        }

        return true;
    }
}
