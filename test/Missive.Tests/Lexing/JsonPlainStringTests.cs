using System;
using Missive.Lexing;
using Missive.Serialization;
using Xunit;

namespace Missive.Tests.Lexing;

public sealed class JsonPlainStringTests
{
    [Fact]
    public void IndexOfRunEnd_FindsWhatTheGeneralSearchFinds_AtEveryLengthAndOffset()
    {
        // Every length to past three 32-byte blocks, with the first special byte (quote, backslash, a control
        // character, or none) at every offset; bytes that end no run (space, 0x7F, 0x80, 0xFF) fill the rest.
        byte[] plain = [(byte)'a', (byte)' ', 0x7F, 0x80, 0xFF, (byte)'/'];
        byte[] special = [(byte)'"', (byte)'\\', 0x00, 0x1F, (byte)'\n'];
        var random = new Random(31261122);
        int checkedCount = 0;
        for (int length = 0; length <= 100; length++)
        {
            for (int first = -1; first < length; first++)
            {
                byte[] bytes = new byte[length];
                for (int i = 0; i < length; i++)
                {
                    bytes[i] = i > first && first >= 0 && random.Next(4) == 0 ? special[random.Next(special.Length)] : plain[random.Next(plain.Length)];
                }

                if (first >= 0)
                {
                    bytes[first] = special[random.Next(special.Length)];
                }

                int expected = bytes.AsSpan().IndexOfAny(JsonPlainString.RunEnds);
                Assert.Equal(first, expected); // the input is what it was meant to be
                Assert.Equal(expected, JsonPlainString.IndexOfRunEnd(bytes));
                checkedCount++;
            }
        }

        Assert.Equal(5_151, checkedCount);
    }

    [Theory]
    [InlineData("\"abc\",", 4)]
    [InlineData("\"\",", 1)]
    [InlineData("\"a\\\"b\"", -1)]
    [InlineData("\"a\tb\"", -1)]
    [InlineData("\"abc", -1)]
    public void End_IsTheClosingQuoteOfAPlainString(string json, int expected)
        => Assert.Equal(expected, JsonPlainString.End(System.Text.Encoding.UTF8.GetBytes(json), 0));
}
