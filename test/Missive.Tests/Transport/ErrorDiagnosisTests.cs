using System;
using System.Text;
using Missive.Json;
using Missive.Protobuf;
using Missive.Serialization;
using Missive.Tests.Infrastructure;
using Missive.Transport;

namespace Missive.Tests.Transport;

/// <summary>Errors name the real problem, the same way whichever serializer is configured.</summary>
public sealed class ErrorDiagnosisTests
{
    [Theory]
    [InlineData("null")]
    [InlineData("[]")]
    [InlineData("[{\"id\":\"1\"}]")]
    [InlineData("42")]
    public void NonObjectJsonBody_IsReportedAsJson_InBothModes(string body)
    {
        foreach (bool experimental in new[] { false, true })
        {
            InboundMessageReader reader = Reader(experimental);

            var e = Assert.Throws<InvalidEnvelopeException>(() => reader.Read(new SqsMessage { Body = body }));

            Assert.Equal(InvalidEnvelopeReason.Malformed, e.Reason);
            Assert.Contains("must be a JSON object", e.Message, StringComparison.Ordinal);
            Assert.DoesNotContain("protobuf", e.Message, StringComparison.OrdinalIgnoreCase);
            Assert.DoesNotContain("wire type", e.Message, StringComparison.Ordinal);
        }
    }

    [Theory]
    [InlineData("{\"Type\":\"Notification\",\"MessageId\":\"m-1\",\"Message\":\"{}\"}", "TopicArn")]
    [InlineData("{\"Type\":\"Notification\",\"TopicArn\":\"arn:aws:sns:eu-west-1:1:t\",\"Message\":\"{}\"}", "MessageId")]
    public void SnsNotificationWithoutItsIdentity_IsSaidToBeThat_InBothModes(string body, string missing)
    {
        string? first = null;
        foreach (bool experimental in new[] { false, true })
        {
            var e = Assert.Throws<InvalidEnvelopeException>(() => Reader(experimental).Read(new SqsMessage { Body = body }));

            Assert.Equal(InvalidEnvelopeReason.Malformed, e.Reason);
            Assert.Contains($"SNS notification (Type \"Notification\" with a Message) without its {missing}", e.Message, StringComparison.Ordinal);
            Assert.True(first is null || first == e.Message, "the same words in both modes");
            first = e.Message;
        }
    }

    [Theory]
    [InlineData("9999-12-31T23:59:59-01:00")] // well-formed, but after 9999-12-31T23:59:59Z in UTC
    [InlineData("0001-01-01T00:00:00+01:00")] // well-formed, but before 0001-01-01 in UTC
    public void WellFormedTimestampOutOfRange_IsNotCalledMalformed(string time)
    {
        string json = $$"""{"id":"1","source":"/s","specversion":"1.0","type":"{{TestSerializers.TextType}}","time":"{{time}}"}""";
        foreach (EnvelopeSerializer serializer in new EnvelopeSerializer[] { TestSerializers.Standard(), TestSerializers.Fast() })
        {
            using (serializer)
            {
                var e = Assert.Throws<InvalidEnvelopeException>(() => serializer.Deserialize(json));

                Assert.Equal(InvalidEnvelopeReason.InvalidAttribute, e.Reason);
                Assert.Contains("well-formed timestamp outside the years 1 to 9999", e.Message, StringComparison.Ordinal);
                Assert.DoesNotContain("not an RFC 3339 timestamp", e.Message, StringComparison.Ordinal);
            }
        }

        using Utf8JsonEnvelopeSerializer fast = TestSerializers.Fast();
        Assert.Contains("not an RFC 3339 timestamp", Assert.Throws<InvalidEnvelopeException>(() => fast.Deserialize(json.Replace(time, "2025-13-01T00:00:00Z", StringComparison.Ordinal))).Message, StringComparison.Ordinal);
    }

    private static InboundMessageReader Reader(bool experimental)
    {
        MessageTypeMap map = TestSerializers.Map();
        return TestSerializers.Inbound(experimental ? new Utf8JsonEnvelopeSerializer(map) : new StandardJsonEnvelopeSerializer(map), new ProtobufEnvelopeSerializer(map), map.Options);
    }
}
