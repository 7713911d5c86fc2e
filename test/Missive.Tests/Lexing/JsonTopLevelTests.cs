using System.Linq;
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
    {
        Assert.Equal(expected, (JsonTopLevel.Names(Encoding.UTF8.GetBytes(json)) & TopLevelNames.SpecVersion) != 0);
        Assert.Equal(expected, JsonTopLevel.HasSpecVersion(Encoding.UTF8.GetBytes(json))); // the cheap way agrees
    }

    [Theory]
    [InlineData("{\"Type\":\"Notification\",\"MessageId\":\"m\",\"TopicArn\":\"t\",\"Message\":\"{\\\"specversion\\\":1}\"}", (int)TopLevelNames.SnsNotification)]
    [InlineData("{\"version\":\"0\",\"id\":\"1\",\"detail-type\":\"d\",\"source\":\"s\",\"time\":\"t\",\"detail\":{\"Type\":1}}", (int)TopLevelNames.EventBridgeEvent)]
    [InlineData("{\"Records\":[{\"eventSource\":\"aws:s3\",\"source\":1}]}", (int)TopLevelNames.Records)] // a nested source is not top-level
    [InlineData("{\"orderId\":\"A-1\",\"lines\":[{\"Records\":1}]}", (int)TopLevelNames.None)]
    public void TellsTheWrappersNames(string json, int expected)
        => Assert.Equal((TopLevelNames)expected, JsonTopLevel.Names(Encoding.UTF8.GetBytes(json)));

    [Theory]
    [InlineData("{\"orderId\":\"A-1\",\"lines\":[{\"sku\":\"X\"}]}", (int)TopLevelNames.None)] // nothing that decides: no structural scan
    [InlineData("{\"orderId\":\"A-1\",\"note\":\"Records\"}", (int)TopLevelNames.Records)] // a mention only: a superset, which the S3 rule checks
    [InlineData("{\"orderId\":\"A-1\",\"note\":{\"specversion\":\"1.0\"}}", (int)TopLevelNames.None)] // mentioned, not at the top: the scan says so
    [InlineData("{\"id\":\"1\",\"specversion\":\"1.0\"}", (int)TopLevelNames.SpecVersion)]
    [InlineData("{\"Type\":\"Notification\",\"MessageId\":\"m\",\"TopicArn\":\"t\",\"Message\":\"x\"}", (int)TopLevelNames.SnsNotification)]
    [InlineData("{\"version\":\"0\",\"id\":\"1\",\"detail-type\":\"d\",\"source\":\"s\",\"time\":\"t\",\"detail\":{}}", (int)TopLevelNames.EventBridgeEvent)]
    public void DecidingNames_AreExactForWhatDecides_AndASupersetForRecords(string json, int expected)
        => Assert.Equal((TopLevelNames)expected, JsonTopLevel.DecidingNames(Encoding.UTF8.GetBytes(json)));

    /// <summary>
    /// The one-pass search at every offset around the vector widths (16, 32, 64 bytes and the tail after them): a name
    /// is found wherever it starts, and names that share its first letter, its length or its start are not it.
    /// </summary>
    [Theory]
    [InlineData("specversion", (int)TopLevelNames.SpecVersion)]
    [InlineData("TopicArn", (int)TopLevelNames.TopicArn)]
    [InlineData("detail-type", (int)TopLevelNames.DetailType)]
    [InlineData("Records", (int)TopLevelNames.Records)]
    [InlineData("description", (int)TopLevelNames.None)] // 'd' and eleven letters, as detail-type
    [InlineData("spec", (int)TopLevelNames.None)]
    [InlineData("specversions", (int)TopLevelNames.None)]
    [InlineData("TopicArm", (int)TopLevelNames.None)]
    [InlineData("Record", (int)TopLevelNames.None)]
    [InlineData("records", (int)TopLevelNames.None)]
    public void DecidingNames_FindAQuotedNameAtEveryOffset(string name, int expected)
    {
        for (int padding = 0; padding < 200; padding++)
        {
            // Base64-like text before the name (its letters, without quotes, are no names): the name crosses every step boundary.
            string text = string.Concat(Enumerable.Repeat("TdRs+/9a", (padding / 8) + 1))[..padding];
            string json = $"{{\"a\":\"{text}\",\"{name}\":1}}";
            Assert.Equal((TopLevelNames)expected, JsonTopLevel.DecidingNames(Encoding.UTF8.GetBytes(json)));

            string last = $"{{\"a\":\"{text}\",\"{name}\""; // the name's closing quote is the document's last byte
            Assert.Equal((TopLevelNames)expected, JsonTopLevel.DecidingNames(Encoding.UTF8.GetBytes(last)));
        }
    }
}
