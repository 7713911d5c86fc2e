using System;
using System.Text;
using Missive.Aws.Protocol;

namespace Missive.Tests.Aws.Unit;

/// <summary>The Query protocol's form, written as bytes, against the BCL's RFC 3986 escaping (<see cref="Uri.EscapeDataString(string)"/>).</summary>
public sealed class QueryFormTests
{
    [Theory]
    [InlineData("plain-text_1.0~")]
    [InlineData("{\"id\":\"1\",\"note\":\"a & b = c + d / e? #f %20\"}")]
    [InlineData("é, ß, 日本語, and an emoji 🎉 in a pair")]
    [InlineData("tab\tnew line\r\n and NUL \0 and DEL \u007f")]
    [InlineData("")]
    public void AValue_IsEscapedAsRfc3986Says(string value)
    {
        using var form = new QueryForm("Publish", "2010-03-31");
        form.Add("Message", value);
        form.AddMember("PublishBatchRequestEntries.member."u8, 3, "Subject"u8, value);
        form.AddMember("PublishBatchRequestEntries.member."u8, 0, "Subject"u8, value);
        form.AddMember("PublishBatchRequestEntries.member."u8, 4, "MessageGroupId"u8, null);

        string expected = "Action=Publish&Version=2010-03-31&Message=" + Uri.EscapeDataString(value)
            + "&PublishBatchRequestEntries.member.3.Subject=" + Uri.EscapeDataString(value)
            + "&Subject=" + Uri.EscapeDataString(value);
        Assert.Equal(expected, Encoding.UTF8.GetString(form.WrittenMemory.Span));
    }

    [Fact]
    public void EveryCharacterOfTheBasicPlane_IsEscapedAsTheBclEscapesIt()
    {
        var all = new StringBuilder();
        for (int c = 1; c < 0xD800; c++)
        {
            all.Append((char)c);
        }

        for (int c = 0xE000; c <= 0xFFFF; c++)
        {
            all.Append((char)c);
        }

        using var form = new QueryForm("A", "B");
        form.Add("V", all.ToString());

        Assert.Equal("Action=A&Version=B&V=" + Uri.EscapeDataString(all.ToString()), Encoding.UTF8.GetString(form.WrittenMemory.Span));
    }
}
