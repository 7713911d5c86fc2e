using System;
using System.Collections.Generic;
using System.Text;
using System.Text.Json;
using Missive.Lexing;
using Missive.Transport;
using Xunit;

namespace Missive.Tests.Lexing;

/// <summary>
/// The one-pass string reader of the SNS Message must accept, reject and unescape exactly as System.Text.Json's
/// reader does (tokenizing the string, then <see cref="Utf8JsonReader.CopyString(Span{byte})"/>): compared on
/// hand-picked edge cases and on random strings built from the pieces that matter.
/// </summary>
public sealed class JsonStringUnescaperTests
{
    public static TheoryData<string> EdgeCases() => new()
    {
        "\"\"",
        "\"plain ascii\"",
        "\"{\\\"a\\\":1,\\\"b\\\":[\\\"x\\\",\\\"y\\\"]}\"",
        "\"\\\\\\/\\b\\f\\n\\r\\t\"",
        "\"\\u0041\\u00e9\\u20AC\\uD83D\\uDE00\"",
        "\"é€😀 raw UTF-8\"",
        "\"\\uD83D\"",              // lone high surrogate
        "\"\\uDE00\"",              // lone low surrogate
        "\"\\uD83D\\u0041\"",       // high surrogate and a letter
        "\"\\uD83D\\n\"",
        "\"\\uD83D\\uD83D\\uDE00\"",
        "\"\\uD83D\\x\"",           // lone surrogate, then a syntax error: the syntax error wins
        "\"\\u12\"",
        "\"\\u12G4\"",
        "\"\\x\"",
        "\"tab\there\"",
        "\"no closing quote",
        "\"ends in a backslash\\",
        "\"ab\\",
        "\"\\u",
        "\"a very long run of plain bytes, longer than the sixty-four bytes tested sixteen at a time, then an escape\\n and more\"",
        "\"\u00ff\"",
    };

    [Theory]
    [MemberData(nameof(EdgeCases))]
    public void EdgeCase_MatchesSystemTextJson(string json) => AssertSameAsReader(Encoding.UTF8.GetBytes(json));

    [Fact]
    public void InvalidUtf8_IsInvalidOperation_LikeCopyString()
    {
        AssertSameAsReader([(byte)'"', 0xC3, (byte)'"']);
        AssertSameAsReader([(byte)'"', (byte)'a', 0xFF, (byte)'b', (byte)'"']);
        AssertSameAsReader([(byte)'"', 0xED, 0xA0, 0x80, (byte)'"']); // an encoded surrogate
    }

    [Fact]
    public void RandomStrings_MatchSystemTextJson()
    {
        string[] pieces =
        [
            "a", "bc", "0123456789abcdef0123", "\\\"", "\\\\", "\\/", "\\n", "\\t", "\\b", "\\f", "\\r", "\\u0041", "\\u00E9",
            "\\uD83D", "\\uDE00", "\\uD83D\\uDE00", "\\u12", "\\q", "\t", "\u0001", "é", "😀", "{\\\"k\\\":", "\\",
        ];
        var random = new Random(20261122);
        int rejected = 0;
        for (int i = 0; i < 20_000; i++)
        {
            var text = new StringBuilder("\"");
            int count = random.Next(0, 12);
            for (int p = 0; p < count; p++)
            {
                text.Append(pieces[random.Next(pieces.Length)]);
            }

            if (random.Next(8) != 0)
            {
                text.Append('"');
            }

            text.Append(random.Next(2) == 0 ? "," : string.Empty);
            byte[] utf8 = Encoding.UTF8.GetBytes(text.ToString());
            if (random.Next(16) == 0 && utf8.Length > 2)
            {
                utf8[random.Next(1, utf8.Length - 1)] = (byte)random.Next(0x80, 0x100); // break the UTF-8 now and then
            }

            rejected += AssertSameAsReader(utf8) ? 0 : 1;
        }

        Assert.InRange(rejected, 2_000, 18_000); // both outcomes were exercised
    }

    [Fact]
    public void LongStringsDenseWithEscapes_AndContentAfterThem_MatchSystemTextJson()
    {
        // Escaped JSON text, as in an SNS Message: long enough for the block path, escapes at every offset in a
        // block and across blocks, and the closing quote followed by more of the document.
        string[] common = ["a", "bc", "0123456789abcdef", "\\\"", "\\\\", "\\/", "{\\\"k\\\":\\\"v\\\"}", "é", "😀"];
        string[] rare = ["\\n", "\\u00E9", "\\uD83D\\uDE00", "\\uD83D", "\\q", "\t", "\\"];
        var random = new Random(21261122);
        int accepted = 0;
        for (int i = 0; i < 20_000; i++)
        {
            var text = new StringBuilder("\"");
            int count = random.Next(10, 90);
            for (int p = 0; p < count; p++)
            {
                text.Append(random.Next(40) == 0 ? rare[random.Next(rare.Length)] : common[random.Next(common.Length)]);
            }

            text.Append("\",\"Timestamp\" : \"2025-11-03T14:27:09.530Z\",\"SignatureVersion\" : \"1\"}");
            accepted += AssertSameAsReader(Encoding.UTF8.GetBytes(text.ToString())) ? 1 : 0;
        }

        Assert.InRange(accepted, 2_000, 18_000); // both outcomes were exercised
    }

    [Fact]
    public void BackslashRuns_OfEveryLength_AtEveryOffsetInABlock_MatchSystemTextJson()
    {
        // A run of backslashes escapes its first, third, fifth... byte; an odd run also escapes what follows it.
        // The offsets go through two 64-byte blocks (and so eight 16-byte ones), and the text after the run is
        // long enough for the wide blocks to be tried at every offset.
        int accepted = 0, rejected = 0;
        for (int run = 1; run <= 7; run++)
        {
            for (int offset = 0; offset < 130; offset++)
            {
                foreach (string after in new[] { "\"", "/", "\\\"x", "n", "u00E9", "x", "\t" })
                {
                    string text = "\"" + new string('a', offset) + new string('\\', run) + after + new string('b', 140) + "\\/\",1";
                    if (AssertSameAsReader(Encoding.UTF8.GetBytes(text)))
                    {
                        accepted++;
                    }
                    else
                    {
                        rejected++;
                    }
                }
            }
        }

        Assert.True(accepted > 1_000 && rejected > 1_000, $"{accepted} accepted, {rejected} rejected: both outcomes were exercised");
    }

    [Fact]
    public void DestinationShorterThanTheRestOfTheSource_IsRefused()
        => Assert.Throws<ArgumentException>(() => JsonStringUnescaper.Unescape("\"abc\""u8, 1, new byte[3], out _));

    /// <summary>Asserts the same outcome as the reader; returns whether the string was accepted.</summary>
    private static bool AssertSameAsReader(byte[] json)
    {
        (Type? expectedError, byte[]? expected, int expectedEnd) = ReadWithSystemTextJson(json);
        // Both ways where the hardware has 64-byte blocks: with them, and with 16-byte blocks only.
        foreach (bool wideBlocks in JsonStringUnescaper.WideBlocksSupported ? [true, false] : new[] { false })
        {
            Type? error = null;
            byte[]? actual = null;
            int end = -1;
            try
            {
                byte[] destination = new byte[json.Length];
                int length = JsonStringUnescaper.Unescape(json, 1, destination, out end, wideBlocks);
                actual = destination[..length];
            }
            catch (Exception e) when (e is JsonException or InvalidOperationException)
            {
                error = e is JsonException ? typeof(JsonException) : typeof(InvalidOperationException);
            }

            string input = Convert.ToHexString(json);
            Assert.True(expectedError == error, $"{input} ({(wideBlocks ? "64" : "16")}-byte blocks): System.Text.Json {expectedError?.Name ?? "accepts"}, Missive {error?.Name ?? "accepts"}");
            if (expected is not null)
            {
                Assert.Equal(expected, actual);
                Assert.Equal(expectedEnd, end);
            }
        }

        return expected is not null;
    }

    private static (Type? Error, byte[]? Value, int End) ReadWithSystemTextJson(byte[] json)
    {
        // The string as a member value, as the SNS Message is read; a trailing comma in the input stays outside it.
        var reader = new Utf8JsonReader(json, isFinalBlock: false, state: default);
        try
        {
            if (!reader.Read())
            {
                return (typeof(JsonException), null, -1); // incomplete: at the end of a real document this is an error
            }

            byte[] destination = new byte[json.Length];
            int length = reader.CopyString(destination);
            return (null, destination[..length], (int)reader.BytesConsumed - 1);
        }
        catch (JsonException)
        {
            return (typeof(JsonException), null, -1);
        }
        catch (InvalidOperationException)
        {
            return (typeof(InvalidOperationException), null, -1);
        }
    }
}
