using System;
using System.Text;

namespace Missive.Lexing;

/// <summary>
/// UTF-8 decoding that refuses invalid bytes with a <see cref="DecoderFallbackException"/> instead of replacing them,
/// as System.Text.Json refuses them when it decodes a string.
/// </summary>
internal static class StrictUtf8
{
    private static readonly UTF8Encoding Encoding = new(encoderShouldEmitUTF8Identifier: false, throwOnInvalidBytes: true);

    /// <summary>Decodes <paramref name="utf8"/>.</summary>
    /// <exception cref="DecoderFallbackException">The bytes are not valid UTF-8.</exception>
    public static string GetString(ReadOnlySpan<byte> utf8) => Encoding.GetString(utf8);
}
