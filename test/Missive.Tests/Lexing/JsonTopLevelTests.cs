using System.Text;
using Missive.Lexing;

namespace Missive.Tests.Lexing;

/// <summary>The top-level member search that tells an envelope from a native message.</summary>
public sealed class JsonTopLevelTests
{
    [Theory]
    [InlineData("{\"specversion\":\"1.0\"}", true)]
    [InlineData("  {\"id\":\"1\" , \"specversion\" : \"1.0\"}", true)]
    [InlineData("{\"data\":{\"specversion\":\"1.0\"},\"id\":\"x\"}", false)] // nested: not the top level
    [InlineData("{\"data\":[{\"a\":1},\"specversion\"],\"id\":\"x\"}", false)] // a string in an array is no member name
    [InlineData("{\"note\":\"specversion\"}", false)] // a value, not a name
    [InlineData("{\"note\":\"a \\\" quote, then \\\"specversion\\\"\",\"specversion\":\"1.0\"}", true)] // escaped quotes skipped
    [InlineData("{\"note\":\"ends in a backslash \\\\\",\"specversion\":\"1.0\"}", true)]
    [InlineData("{\"spec\\u0076ersion\":\"1.0\"}", false)] // escaped names are not matched (the reader reads such a body)
    [InlineData("[{\"specversion\":\"1.0\"}]", false)]
    [InlineData("{\"specversion", false)]
    [InlineData("", false)]
    public void FindsOnlyATopLevelMemberName(string json, bool expected)
        => Assert.Equal(expected, JsonTopLevel.HasMember(Encoding.UTF8.GetBytes(json), "specversion"u8));
}
