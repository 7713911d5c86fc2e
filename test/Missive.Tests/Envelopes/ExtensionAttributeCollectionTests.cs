using System;
using System.Collections.Generic;

namespace Missive.Tests.Envelopes;

public sealed class ExtensionAttributeCollectionTests
{
    [Theory]
    [InlineData("id")]
    [InlineData("source")]
    [InlineData("specversion")]
    [InlineData("type")]
    [InlineData("time")]
    [InlineData("datacontenttype")]
    [InlineData("dataschema")]
    [InlineData("subject")]
    [InlineData("data")]
    public void Add_ReservedName_Throws(string name)
    {
        var extensions = new ExtensionAttributeCollection();

        Assert.Throws<ArgumentException>(() => extensions.Add(name, CloudEventAttributeValue.FromInteger(1)));
    }

    [Theory]
    [InlineData("Upper")]
    [InlineData("dot.ted")]
    [InlineData("")]
    public void Add_InvalidName_Throws(string name)
        => Assert.Throws<ArgumentException>(() => new ExtensionAttributeCollection().Add(name, CloudEventAttributeValue.FromInteger(1)));

    [Fact]
    public void Add_Twice_ThrowsButIndexerReplaces()
    {
        var extensions = new ExtensionAttributeCollection { { "a", CloudEventAttributeValue.FromInteger(1) } };

        Assert.Throws<ArgumentException>(() => extensions.Add("a", CloudEventAttributeValue.FromInteger(2)));
        extensions["a"] = CloudEventAttributeValue.FromInteger(3);

        Assert.Equal(3, extensions["a"].AsInteger());
        Assert.Single(extensions);
    }

    [Fact]
    public void Enumeration_KeepsInsertionOrder_AndRemoveKeepsTheRest()
    {
        var extensions = new ExtensionAttributeCollection();
        foreach (string name in new[] { "zeta", "alpha", "mid" })
        {
            extensions.Add(name, CloudEventAttributeValue.FromString(name));
        }

        Assert.True(extensions.Remove("alpha"));
        Assert.False(extensions.Remove("alpha"));
        var names = new List<string>();
        foreach (KeyValuePair<string, CloudEventAttributeValue> item in extensions)
        {
            names.Add(item.Key);
        }

        Assert.Equal(["zeta", "mid"], names);
        Assert.Throws<KeyNotFoundException>(() => extensions["alpha"]);
    }

    [Fact]
    public void AttributeValues_CompareByTypeAndValue()
    {
        var t = new DateTimeOffset(2023, 3, 31, 15, 12, 0, TimeSpan.Zero);

        Assert.Equal(CloudEventAttributeValue.FromTimestamp(t), CloudEventAttributeValue.FromTimestamp(t.ToOffset(TimeSpan.FromHours(2))));
        Assert.Equal(TimeSpan.FromHours(2), CloudEventAttributeValue.FromTimestamp(t.ToOffset(TimeSpan.FromHours(2))).AsTimestamp().Offset);
        byte[] first = [1, 2], second = [1, 2];
        Assert.NotSame(first, second);
        Assert.Equal(CloudEventAttributeValue.FromBinary(first), CloudEventAttributeValue.FromBinary(second)); // by content, not by array
        Assert.NotEqual(CloudEventAttributeValue.FromString("https://x"), CloudEventAttributeValue.FromUri("https://x"));
        Assert.NotEqual(CloudEventAttributeValue.FromInteger(1), CloudEventAttributeValue.FromBoolean(true));
        Assert.Throws<InvalidOperationException>(() => CloudEventAttributeValue.FromInteger(1).AsString());
        Assert.Throws<ArgumentException>(() => CloudEventAttributeValue.FromUri("/relative"));
        Assert.Throws<ArgumentException>(() => new ExtensionAttributeCollection().Add("x", default));
        Assert.Equal("TWE=", CloudEventAttributeValue.FromBinary([77, 97]).ToString());
    }

    [Fact]
    public void Validate_ReportsEveryMissingRequiredAttribute()
    {
        var envelope = new MessageEnvelope<string> { Source = "/s" };

        var error = Assert.Throws<InvalidEnvelopeException>(envelope.Validate);

        Assert.Equal(InvalidEnvelopeReason.MissingAttribute, error.Reason);
        Assert.Contains("id, type", error.Message, StringComparison.Ordinal);
    }
}
