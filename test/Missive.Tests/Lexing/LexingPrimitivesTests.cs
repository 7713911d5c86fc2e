using System;
using System.Text;
using System.Text.Json;
using Missive.Lexing;

namespace Missive.Tests.Lexing;

/// <summary>The small primitives of the lexing floor, each against what RFC 8259 and System.Text.Json say.</summary>
public sealed class LexingPrimitivesTests
{
    [Theory]
    [InlineData("", 0, -1)]
    [InlineData("   ", 0, -1)]
    [InlineData(" \t\r\n{", 0, 4)]
    [InlineData("{ }", 1, 2)]
    [InlineData("\u00a0{", 0, 0)] // a no-break space is not JSON whitespace (RFC 8259, section 2)
    [InlineData("\f{", 0, 0)] // nor is a form feed
    public void JsonWhitespace_Skip_SkipsExactlyTheFourWhitespaceBytes(string text, int from, int expected)
        => Assert.Equal(expected, JsonWhitespace.Skip(Encoding.UTF8.GetBytes(text), from));

    [Theory]
    [InlineData("{\"id\":\"1\"}", 1, "id", 6)]
    [InlineData("{ \"id\" \n:\t \"1\"}", 1, "id", 11)]
    [InlineData(",\"data\":{}", 1, "data", 8)]
    public void JsonPlainMember_Value_FindsTheNameAndTheValue(string text, int at, string name, int value)
    {
        byte[] json = Encoding.UTF8.GetBytes(text);

        int found = JsonPlainMember.Value(json, at, out int nameStart, out int nameEnd);

        Assert.Equal(value, found);
        Assert.Equal(name, Encoding.UTF8.GetString(json.AsSpan(nameStart..nameEnd)));
    }

    [Theory]
    [InlineData("{\"i\\u0064\":\"1\"}")] // an escaped name is for a reader
    [InlineData("{\"id\" \"1\"}")] // no colon
    [InlineData("{\"id\":")] // nothing after the colon
    [InlineData("{\"id")] // a name that never closes
    [InlineData("{ 1:2}")] // not a string name
    [InlineData("{\"a\u0001\":1}")] // a control character in the name
    public void JsonPlainMember_Value_RefusesWhatIsNotAPlainMember(string text)
        => Assert.Equal(-1, JsonPlainMember.Value(Encoding.UTF8.GetBytes(text), 1, out _, out _));

    [Theory]
    [InlineData("\"x\" , ", 3, 4)]
    [InlineData("\"x\"}", 3, 3)]
    [InlineData("\"x\" ]", 3, -1)]
    [InlineData("\"x\" ", 3, -1)]
    public void JsonPlainMember_Separator_IsACommaOrTheObjectsEnd(string text, int end, int expected)
        => Assert.Equal(expected, JsonPlainMember.Separator(Encoding.UTF8.GetBytes(text), end));

    [Fact]
    public void StrictUtf8_RefusesInvalidBytes_AsSystemTextJsonDoes()
    {
        byte[] invalid = [(byte)'a', 0xC3, (byte)'b'];

        Assert.Equal("é", StrictUtf8.GetString("é"u8));
        Assert.Throws<DecoderFallbackException>(() => StrictUtf8.GetString(invalid));
        var reader = new Utf8JsonReader([(byte)'"', .. invalid, (byte)'"']);
        reader.Read();
        try
        {
            reader.GetString();
            Assert.Fail("System.Text.Json decoded invalid UTF-8.");
        }
        catch (InvalidOperationException)
        {
        }
    }

    [Fact]
    public void KnownStrings_FindsWhatWasKept_UpToItsCapacity_AndNothingElse()
    {
        var strings = new KnownStrings();
        strings.TryAdd("/orders");
        strings.TryAdd("\ud800"); // a lone surrogate has no UTF-8 form
        strings.TryAdd(new string('x', KnownStrings.MaxLength + 1));
        for (int i = 0; i < KnownStrings.Capacity + 5; i++)
        {
            strings.TryAdd("s" + i);
        }

        string? found = strings.Find("/orders"u8);
        Assert.Equal("/orders", found);
        Assert.Same(found, strings.Find("/orders"u8)); // the kept instance, not a new string
        Assert.Null(strings.Find("/order"u8));
        Assert.Null(strings.Find(Encoding.UTF8.GetBytes(new string('x', KnownStrings.MaxLength + 1))));
        Assert.NotNull(strings.Find("s0"u8));
        Assert.Null(strings.Find(Encoding.UTF8.GetBytes("s" + (KnownStrings.Capacity + 4)))); // past the capacity: not kept
    }

    [Theory]
    [InlineData("[[[1]]]", 2, true)]
    [InlineData("[[1,]]", 2, false)] // malformed within the limit
    public void JsonDepthLimit_TellsTheDepthLimitApartFromMalformedJson(string text, int maxDepth, bool depthExceeded)
    {
        byte[] json = Encoding.UTF8.GetBytes(text);
        var reader = new Utf8JsonReader(json, new JsonReaderOptions { MaxDepth = maxDepth });
        try
        {
            while (reader.Read())
            {
            }

            Assert.Fail("The reader read past its depth limit.");
        }
        catch (JsonException)
        {
            Assert.Equal(depthExceeded, JsonDepthLimit.WasExceeded(ref reader, maxDepth, json));
        }
    }
}
