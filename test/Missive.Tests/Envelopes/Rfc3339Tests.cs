using System;
using System.Text;

namespace Missive.Tests.Envelopes;

public sealed class Rfc3339Tests
{
    [Theory]
    [InlineData("2018-04-05T17:31:00Z", "2018-04-05T17:31:00.0000000+00:00")]
    [InlineData("2018-04-05t17:31:00z", "2018-04-05T17:31:00.0000000+00:00")]
    [InlineData("2018-04-05T17:31:00.000000000Z", "2018-04-05T17:31:00.0000000+00:00")]
    [InlineData("2018-04-05T18:31:00+01:00", "2018-04-05T18:31:00.0000000+01:00")]
    [InlineData("2018-04-05T16:31:00-01:00", "2018-04-05T16:31:00.0000000-01:00")]
    [InlineData("2025-11-03T14:27:09.4418273+00:00", "2025-11-03T14:27:09.4418273+00:00")]
    [InlineData("2025-11-03T14:27:09.44182739999Z", "2025-11-03T14:27:09.4418273+00:00")]
    [InlineData("2024-02-29T23:59:59.5+05:30", "2024-02-29T23:59:59.5000000+05:30")]
    [InlineData("2024-01-01T00:00:00+23:59", "2023-12-31T00:01:00.0000000+00:00")]
    public void TryParse_ValidTimestamp_GivesTheInstantAndOffset(string text, string expected)
    {
        Assert.True(Rfc3339.TryParse(Encoding.UTF8.GetBytes(text), out DateTimeOffset value));
        Assert.Equal(expected, value.ToString("O", System.Globalization.CultureInfo.InvariantCulture));
        Assert.True(Rfc3339.TryParse(text.AsSpan(), out DateTimeOffset fromChars));
        Assert.Equal(value, fromChars);
    }

    [Theory]
    [InlineData("lunchtime")]
    [InlineData("2018-04-05T18:31Z")]
    [InlineData("2018-04-05T18:31:00X")]
    [InlineData("2018-04-05T18:31:00+25:00")]
    [InlineData("2018-04-05T18:31:00+xx:00")]
    [InlineData("2018-04-05T18:31:00+05")]
    [InlineData("2018-04-05T18:31:00")]
    [InlineData("2018-04-05 18:31:00Z")]
    [InlineData("2018-02-30T18:31:00Z")]
    [InlineData("2018-13-01T18:31:00Z")]
    [InlineData("2018-04-05T24:00:00Z")]
    [InlineData("2018-04-05T23:60:00Z")]
    [InlineData("2016-12-31T23:59:60Z")]
    [InlineData("2018-04-05T18:31:00.Z")]
    [InlineData("0000-01-01T00:00:00Z")]
    [InlineData("0001-01-01T00:00:00+01:00")]
    [InlineData("2018-04-05T18:31:00Z ")]
    [InlineData("")]
    public void TryParse_InvalidTimestamp_Fails(string text)
    {
        Assert.False(Rfc3339.TryParse(Encoding.UTF8.GetBytes(text), out _));
    }
}
