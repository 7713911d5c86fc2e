using System;
using System.Text;
using Missive.Json;
using Missive.Serialization;
using Missive.Tests.Infrastructure;

namespace Missive.Tests.Json;

/// <summary>Hostile and broken input: always InvalidEnvelopeException with a reason, never content in the message unless LogMessageContent.</summary>
public sealed class BadInputTests
{
    private const string Secret = "TOP-SECRET-4471";

    public static TheoryData<string, string, InvalidEnvelopeReason> Cases => new()
    {
        { "truncated", $$"""{"id":"1","source":"/s","specversion":"1.0","type":"Orders.OrderPlaced","data":{"OrderId":"{{Secret}}""", InvalidEnvelopeReason.Malformed },
        { "not-json", $"{Secret} is not JSON", InvalidEnvelopeReason.Malformed },
        { "empty", string.Empty, InvalidEnvelopeReason.Malformed },
        { "array-not-object", $$"""["{{Secret}}"]""", InvalidEnvelopeReason.Malformed },
        { "trailing-content", $$"""{"id":"1","source":"/s","specversion":"1.0","type":"notes.text"} {"{{Secret}}":1}""", InvalidEnvelopeReason.Malformed },
        { "id-number", """{"id":25,"source":"/s","specversion":"1.0","type":"notes.text"}""", InvalidEnvelopeReason.InvalidAttribute },
        { "source-object", $$"""{"id":"1","source":{"x":"{{Secret}}"},"specversion":"1.0","type":"notes.text"}""", InvalidEnvelopeReason.InvalidAttribute },
        { "missing-id-and-source", """{"specversion":"1.0","type":"notes.text"}""", InvalidEnvelopeReason.MissingAttribute },
        { "missing-type", """{"id":"1","source":"/s","specversion":"1.0"}""", InvalidEnvelopeReason.MissingAttribute },
        { "unknown-type", $$"""{"id":"1","source":"/s","specversion":"1.0","type":"not.registered","subject":"{{Secret}}"}""", InvalidEnvelopeReason.UnknownMessageType },
        { "spec-0.3", """{"id":"1","source":"/s","specversion":"0.3","type":"notes.text"}""", InvalidEnvelopeReason.UnsupportedFormat },
        { "bad-time", $$"""{"id":"1","source":"/s","specversion":"1.0","type":"notes.text","time":"{{Secret}}"}""", InvalidEnvelopeReason.InvalidAttribute },
        { "data-wrong-type", $$$"""{"id":"1","source":"/s","specversion":"1.0","type":"Orders.OrderPlaced","data":{"Total":"{{{Secret}}}"}}""", InvalidEnvelopeReason.InvalidData },
        { "text-data-not-string", $$$"""{"id":"1","source":"/s","specversion":"1.0","type":"notes.text","data":{"a":"{{{Secret}}}"}}""", InvalidEnvelopeReason.InvalidData },
        { "bad-base64", $$"""{"id":"1","source":"/s","specversion":"1.0","type":"blobs.binary","data_base64":"{{Secret}}!"}""", InvalidEnvelopeReason.InvalidAttribute },
        { "data-and-base64", """{"id":"1","source":"/s","specversion":"1.0","type":"blobs.binary","data":"x","data_base64":"AQID"}""", InvalidEnvelopeReason.InvalidAttribute },
        { "duplicate-id", """{"id":"1","id":"2","source":"/s","specversion":"1.0","type":"notes.text"}""", InvalidEnvelopeReason.InvalidAttribute },
        { "duplicate-extension", $$"""{"id":"1","source":"/s","specversion":"1.0","type":"notes.text","ext":"{{Secret}}","ext":"b"}""", InvalidEnvelopeReason.InvalidAttribute },
        { "extension-float", """{"id":"1","source":"/s","specversion":"1.0","type":"notes.text","ext":1.5}""", InvalidEnvelopeReason.InvalidAttribute },
        { "extension-too-big", """{"id":"1","source":"/s","specversion":"1.0","type":"notes.text","ext":4294967296}""", InvalidEnvelopeReason.InvalidAttribute },
        { "extension-object", $$$"""{"id":"1","source":"/s","specversion":"1.0","type":"notes.text","ext":{"a":"{{{Secret}}}"}}""", InvalidEnvelopeReason.InvalidAttribute },
        { "extension-bad-name", $$"""{"id":"1","source":"/s","specversion":"1.0","type":"notes.text","Bad-{{Secret}}":"x"}""", InvalidEnvelopeReason.InvalidAttribute },
        { "content-type-not-media-type", """{"id":"1","source":"/s","specversion":"1.0","type":"notes.text","datacontenttype":"xyz"}""", InvalidEnvelopeReason.InvalidAttribute },
        { "dataschema-relative", """{"id":"1","source":"/s","specversion":"1.0","type":"notes.text","dataschema":"/relative"}""", InvalidEnvelopeReason.InvalidAttribute },
        { "comments", """{"id":"1",/* x */"source":"/s","specversion":"1.0","type":"notes.text"}""", InvalidEnvelopeReason.Malformed },
        { "trailing-comma", """{"id":"1","source":"/s","specversion":"1.0","type":"notes.text",}""", InvalidEnvelopeReason.Malformed },
        { "invalid-utf8", "{\"id\":\"1\",\"source\":\"/s\",\"specversion\":\"1.0\",\"type\":\"notes.text\",\"data\":\"\u0001\"}", InvalidEnvelopeReason.Malformed },
        { "deep-data", "{\"id\":\"1\",\"source\":\"/s\",\"specversion\":\"1.0\",\"type\":\"tests.node\",\"data\":" + new string('[', 200) + new string(']', 200) + "}", InvalidEnvelopeReason.LimitExceeded },
    };

    [Theory]
    [MemberData(nameof(Cases))]
    public void Deserialize_BadInput_ThrowsTypedExceptionWithoutContent(string name, string input, InvalidEnvelopeReason reason)
    {
        foreach (EnvelopeSerializer serializer in new EnvelopeSerializer[] { TestSerializers.Fast(), TestSerializers.Standard() })
        {
            foreach (Sequences.Split split in new[] { Sequences.Split.Single, Sequences.Split.OneByte })
            {
                byte[] bytes = name == "invalid-utf8" ? InvalidUtf8(input) : Encoding.UTF8.GetBytes(input);

                var error = Assert.Throws<InvalidEnvelopeException>(() => serializer.Deserialize(Sequences.Create(bytes, split)));

                Assert.Equal(reason, error.Reason);
                Assert.DoesNotContain(Secret, error.Message, StringComparison.Ordinal);
                Assert.Null(error.InnerException);
                Assert.Equal(bytes, error.RawBody.ToArray());
            }
        }
    }

    [Fact]
    public void Deserialize_AnUnknownType_NamesTheType_WhichIsMetadataNotContent()
    {
        foreach (EnvelopeSerializer serializer in new EnvelopeSerializer[] { TestSerializers.Fast(), TestSerializers.Standard() })
        {
            var error = Assert.Throws<InvalidEnvelopeException>(() => serializer.Deserialize("""{"id":"1","source":"/s","specversion":"1.0","type":"billing.invoice.voided"}"""));

            Assert.Equal(InvalidEnvelopeReason.UnknownMessageType, error.Reason);
            Assert.Contains("('billing.invoice.voided')", error.Message, StringComparison.Ordinal);
        }
    }

    [Fact]
    public void Deserialize_DeepNestingOutsideData_IsRejectedByBoth()
    {
        // The fast reader stops at the first '[' (an extension cannot be an array); the DOM reader
        // meets the depth limit first. Both reject; the reason may differ.
        string json = "{\"id\":\"1\",\"source\":\"/s\",\"specversion\":\"1.0\",\"type\":\"notes.text\",\"ext\":" + new string('[', 5000) + new string(']', 5000) + "}";
        foreach (EnvelopeSerializer serializer in new EnvelopeSerializer[] { TestSerializers.Fast(), TestSerializers.Standard() })
        {
            var error = Assert.Throws<InvalidEnvelopeException>(() => serializer.Deserialize(json));
            Assert.Contains(error.Reason, new[] { InvalidEnvelopeReason.InvalidAttribute, InvalidEnvelopeReason.LimitExceeded });
        }
    }

    [Fact]
    public void Deserialize_UnknownTypeWithLogMessageContent_NamesTheType()
    {
        using var serializer = new Utf8JsonEnvelopeSerializer(TestSerializers.Map(TestSerializers.Options(o => o.LogMessageContent = true)));

        var error = Assert.Throws<InvalidEnvelopeException>(() => serializer.Deserialize($$"""{"id":"1","source":"/s","specversion":"1.0","type":"{{Secret}}"}"""));

        Assert.Contains(Secret, error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("""{"Total":"not a number"}""", "$.Total")]
    [InlineData("""{"Lines":[{"Sku":"A","Quantity":1},{"Sku":"B","Quantity":"two"}]}""", "$.Lines[1].Quantity")]
    public void Deserialize_DataThatDoesNotFit_NamesItsPath_InBothSerializers(string data, string path)
    {
        // The fast reader reads data in one pass through the type's converter, and reads it again the serializer's
        // way on failure, so the error still carries System.Text.Json's path.
        string input = $$"""{"id":"1","source":"/s","specversion":"1.0","type":"{{TestSerializers.OrderType}}","data":{{data}},"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}""";
        using var fast = TestSerializers.Fast();
        using var standard = TestSerializers.Standard();

        foreach (IEnvelopeSerializer serializer in new IEnvelopeSerializer[] { fast, standard })
        {
            var error = Assert.Throws<InvalidEnvelopeException>(() => serializer.Deserialize(input));
            Assert.Equal(InvalidEnvelopeReason.InvalidData, error.Reason);
            Assert.Contains($"(path {path})", error.Message, StringComparison.Ordinal);
        }
    }

    [Fact]
    public void Deserialize_OverTheSizeLimit_IsRejectedBeforeParsing()
    {
        using var serializer = new Utf8JsonEnvelopeSerializer(TestSerializers.Map(TestSerializers.Options(o => o.MaxEnvelopeSize = 1024)));
        byte[] big = new byte[1025]; // not even JSON: it must not be looked at

        var error = Assert.Throws<InvalidEnvelopeException>(() => serializer.Deserialize(big.AsMemory()));

        Assert.Equal(InvalidEnvelopeReason.LimitExceeded, error.Reason);
        Assert.Contains("1025", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Deserialize_TooManyExtensions_IsRejected()
    {
        var json = new StringBuilder("""{"id":"1","source":"/s","specversion":"1.0","type":"notes.text" """);
        for (int i = 0; i < 65; i++)
        {
            json.Append($",\"ext{i}\":{i}");
        }

        json.Append('}');
        foreach (EnvelopeSerializer serializer in new EnvelopeSerializer[] { TestSerializers.Fast(), TestSerializers.Standard() })
        {
            var error = Assert.Throws<InvalidEnvelopeException>(() => serializer.Deserialize(json.ToString()));
            Assert.Equal(InvalidEnvelopeReason.LimitExceeded, error.Reason);
        }
    }

    [Fact]
    public void Deserialize_LongAttributeName_IsRejected()
    {
        string json = $$"""{"id":"1","source":"/s","specversion":"1.0","type":"notes.text","{{new string('a', 129)}}":1}""";
        foreach (EnvelopeSerializer serializer in new EnvelopeSerializer[] { TestSerializers.Fast(), TestSerializers.Standard() })
        {
            var error = Assert.Throws<InvalidEnvelopeException>(() => serializer.Deserialize(json));
            Assert.Equal(InvalidEnvelopeReason.LimitExceeded, error.Reason);
        }
    }

    [Theory]
    [InlineData("subject")]
    [InlineData("id")]
    [InlineData("ext")]
    public void Deserialize_AttributeValueOverTheLimit_IsRejected(string attribute)
    {
        string big = new string('v', 70_000);
        string json = attribute switch
        {
            "id" => $$"""{"id":"{{big}}","source":"/s","specversion":"1.0","type":"notes.text"}""",
            "subject" => $$"""{"id":"1","source":"/s","specversion":"1.0","type":"notes.text","subject":"{{big}}"}""",
            _ => $$"""{"id":"1","source":"/s","specversion":"1.0","type":"notes.text","ext":"{{big}}"}""",
        };

        foreach (EnvelopeSerializer serializer in new EnvelopeSerializer[] { TestSerializers.Fast(), TestSerializers.Standard() })
        {
            var error = Assert.Throws<InvalidEnvelopeException>(() => serializer.Deserialize(json));
            Assert.Equal(InvalidEnvelopeReason.LimitExceeded, error.Reason);
            Assert.Contains("MaxAttributeValueLength", error.Message, StringComparison.Ordinal);
        }
    }

    [Fact]
    public void Deserialize_BatchOverTheLimit_IsRejected()
    {
        using var serializer = new Utf8JsonEnvelopeSerializer(TestSerializers.Map(TestSerializers.Options(o => o.MaxBatchSize = 2)));
        const string item = """{"id":"1","source":"/s","specversion":"1.0","type":"notes.text"}""";

        var error = Assert.Throws<InvalidEnvelopeException>(() => serializer.DeserializeBatch(new System.Buffers.ReadOnlySequence<byte>(Encoding.UTF8.GetBytes($"[{item},{item},{item}]"))));

        Assert.Equal(InvalidEnvelopeReason.LimitExceeded, error.Reason);
    }

    [Fact]
    public void Serialize_InvalidEnvelope_ThrowsTypedExceptionNamingTheAttributes()
    {
        using var serializer = TestSerializers.Fast();
        var envelope = new MessageEnvelope<string> { Source = "/s", Type = TestSerializers.TextType, Message = "x" };

        var error = Assert.Throws<InvalidEnvelopeException>(() => serializer.SerializeToString(envelope));

        Assert.Equal(InvalidEnvelopeReason.MissingAttribute, error.Reason);
        Assert.Contains("id", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Serialize_UnregisteredMessageType_ThrowsConfigurationException()
    {
        using var serializer = TestSerializers.Fast();
        var envelope = new MessageEnvelope<Shipment> { Id = "1", Source = "/s", Type = "shipments", Message = new Shipment() };

        Assert.Throws<MessageBusConfigurationException>(() => serializer.SerializeToString(envelope));
    }

    [Fact]
    public void Deserialize_AfterManyFailures_StillWorks()
    {
        using var serializer = TestSerializers.Fast();
        for (int i = 0; i < 100; i++)
        {
            Assert.Throws<InvalidEnvelopeException>(() => serializer.Deserialize("{\"id\":"));
        }

        var envelope = (MessageEnvelope<string>)serializer.Deserialize("""{"id":"1","source":"/s","specversion":"1.0","type":"notes.text","data":"ok"}""");
        Assert.Equal("ok", envelope.Message);
    }

    private static byte[] InvalidUtf8(string input)
    {
        byte[] bytes = Encoding.UTF8.GetBytes(input);
        bytes[Array.IndexOf(bytes, (byte)1)] = 0xC3; // a lead byte with no continuation
        return bytes;
    }
}
