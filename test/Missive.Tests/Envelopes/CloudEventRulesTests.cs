namespace Missive.Tests.Envelopes;

public sealed class CloudEventRulesTests
{
    [Theory]
    [InlineData("application/json", true)]
    [InlineData("application/cloudevents+json", true)]
    [InlineData("APPLICATION/JSON; charset=utf-8", true)]
    [InlineData("text/json", true)]
    [InlineData("application/vnd.api+json", true)]
    [InlineData(null, true)]
    [InlineData("", true)]
    [InlineData("   ", true)]
    [InlineData("text/plain", false)]
    [InlineData("application/jsonx", false)]
    [InlineData("application/json/x", false)]
    [InlineData("json", false)]
    public void IsJsonContentType_FollowsTheAwsMessagingRule(string? contentType, bool expected)
        => Assert.Equal(expected, CloudEventRules.IsJsonContentType(contentType));

    [Theory]
    [InlineData("text/plain", true)]
    [InlineData("application/json; charset=utf-8", true)]
    [InlineData("application/vnd.ms-excel", true)]
    [InlineData("xyz", false)]
    [InlineData("", false)]
    [InlineData("/json", false)]
    [InlineData("text/", false)]
    [InlineData("te xt/plain", false)]
    [InlineData("text/pl@in", false)]
    public void IsMediaType_ChecksTheRfc2046Shape(string value, bool expected)
        => Assert.Equal(expected, CloudEventRules.IsMediaType(value));

    [Theory]
    [InlineData("https://cloudevents.io", true, true)]
    [InlineData("urn:uuid:6e8bc430-9c3a-11d9-9669-0800200c9a66", true, true)]
    [InlineData("/aws/messaging", false, true)]
    [InlineData("#fragment", false, true)]
    [InlineData("//authority/path", false, true)]
    [InlineData("", false, false)]
    [InlineData("has space", false, false)]
    [InlineData("1http://x", false, true)]
    public void UriChecks(string value, bool absolute, bool reference)
    {
        Assert.Equal(absolute, CloudEventRules.IsAbsoluteUri(value));
        Assert.Equal(reference, CloudEventRules.IsUriReference(value));
    }

    [Theory]
    [InlineData("traceparent", true)]
    [InlineData("ext1", true)]
    [InlineData("MyExtension", false)]
    [InlineData("my.extension", false)]
    [InlineData("my_extension", false)]
    [InlineData("", false)]
    public void IsValidAttributeName(string name, bool expected) => Assert.Equal(expected, CloudEventRules.IsValidAttributeName(name));
}
