using System;
using System.Collections.Generic;
using System.Text;
using System.Text.Json;
using Missive.Json;
using Missive.Protobuf;
using Missive.Serialization;
using Missive.Tests.Infrastructure;
using Missive.Transport;
using Xunit.Abstractions;

namespace Missive.Tests.Transport;

public sealed class InboundMessageReaderTests
{
    /// <summary>An SNS notification as SNS delivers it to SQS without raw delivery (https://docs.aws.amazon.com/sns/latest/dg/sns-message-and-json-formats.html), byte for byte, holding AWS.Messaging's envelope.</summary>
    private const string FormatsNotification = """
        {
          "Type" : "Notification",
          "MessageId" : "b7d3f0a1-6c2e-5e8f-9a14-3d7c2b1e0f58",
          "TopicArn" : "arn:aws:sns:eu-west-1:123456789012:orders-events",
          "Message" : "{\"id\":\"5f8b2c3e-9a41-4d7e-b6c2-0e3f1a7d9b24\",\"source\":\"/AmazonECS/orders-prod/0f3c9a2b\",\"specversion\":\"1.0\",\"type\":\"Orders.OrderPlaced\",\"time\":\"2025-11-03T14:27:09.4418273+00:00\",\"datacontenttype\":\"application/json\",\"data\":{\"OrderId\":\"ORD-20251103-0042\",\"CustomerName\":\"Zo\\u00EB Martin\",\"Total\":129.95,\"Lines\":[{\"Sku\":\"SKU-4471\",\"Quantity\":2}]}}",
          "Timestamp" : "2025-11-03T14:27:09.530Z",
          "SignatureVersion" : "1",
          "Signature" : "EXAMPLEk3Zq0p8Yh1Wc9vR2sT7uX4nB6mD0fG5jL8aQ1eI3oU9yC2wV7zK4xH6bN0rS5tP8gJ1dF3lA==",
          "SigningCertURL" : "https://sns.eu-west-1.amazonaws.com/SimpleNotificationService-0000.pem",
          "UnsubscribeURL" : "https://sns.eu-west-1.amazonaws.com/?Action=Unsubscribe&SubscriptionArn=arn:aws:sns:eu-west-1:123456789012:orders-events:6a1f3e2d",
          "MessageAttributes" : {
            "tenant" : {"Type":"String","Value":"acme-eu"},
            "priority" : {"Type":"Number","Value":"2"}
          }
        }
        """;

    private readonly ITestOutputHelper _output;

    public InboundMessageReaderTests(ITestOutputHelper output) => _output = output;

    [Fact]
    public void Read_NullAttributeDictionaries_AsTheAwsSdkGivesWhenNoneWereAskedFor_MeanNone()
    {
        using var serializer = TestSerializers.Fast();
        string body = serializer.SerializeToString(Orders.Envelope(1));

        InboundMessage inbound = Create().Read(new SqsMessage { Body = body, MessageId = "m", ReceiptHandle = "r", SystemAttributes = null!, MessageAttributes = null! });

        Assert.Empty(inbound.Envelope!.SqsMetadata!.MessageAttributes);
        Assert.Equal(0, inbound.Envelope.SqsMetadata.ApproximateReceiveCount);
        Assert.Null(inbound.Envelope.SqsMetadata.MessageGroupId);
    }

    [Fact]
    public void Read_SystemAttributes_AreTheMessagesWhenAskedFor_AndSetMetadataKeepsItsOwn()
    {
        using var serializer = TestSerializers.Fast();
        string body = serializer.SerializeToString(Orders.Envelope(1));
        var system = new Dictionary<string, string>
        {
            [SqsSystemAttributes.ApproximateReceiveCount] = "4",
            [SqsSystemAttributes.MessageGroupId] = "group-7",
            [SqsSystemAttributes.MessageDeduplicationId] = "dedup-9",
        };

        SqsMetadata read = Create().Read(new SqsMessage { Body = body, MessageId = "m", ReceiptHandle = "r", SystemAttributes = system }).Envelope!.SqsMetadata!;
        SqsMetadata set = new() { MessageId = "m", ReceiptHandle = "r", MessageAttributes = new Dictionary<string, MessageAttributeValue>(), ApproximateReceiveCount = 2, MessageGroupId = "g" };

        Assert.Equal(("m", "r"), (read.MessageId, read.ReceiptHandle));
        for (int pass = 0; pass < 2; pass++) // the first read of each, then the kept value
        {
            Assert.Equal(4, read.ApproximateReceiveCount);
            Assert.Equal("group-7", read.MessageGroupId);
            Assert.Equal("dedup-9", read.MessageDeduplicationId);
            Assert.Equal(2, set.ApproximateReceiveCount);
            Assert.Equal("g", set.MessageGroupId);
            Assert.Null(set.MessageDeduplicationId);
        }

        system[SqsSystemAttributes.ApproximateReceiveCount] = "not a number";
        system.Remove(SqsSystemAttributes.MessageGroupId);
        SqsMetadata odd = Create().Read(new SqsMessage { Body = body, SystemAttributes = system }).Envelope!.SqsMetadata!;
        Assert.Equal(0, odd.ApproximateReceiveCount);
        Assert.Null(odd.MessageGroupId);
        Assert.Equal("dedup-9", odd.MessageDeduplicationId);
    }

    [Theory]
    [InlineData("Zoë Martin, 東京")] // two- and three-byte characters: more UTF-8 bytes than UTF-16 units
    [InlineData("\ud83d\ude00 \u00e9")] // escapes, unchanged by encoding
    [InlineData("😀 lone \ud800")] // a four-byte character, and an escaped lone surrogate in the JSON text
    public void Read_BodyThatEncodesLongerThanItsLength_ReadsAsTheSerializerReadsTheSameBytes(string text)
    {
        using var serializer = TestSerializers.Fast();
        string envelope1 = serializer.SerializeToString(Orders.Envelope(1));
        string body = envelope1[..^1] + ",\"note\":\"" + text + "\"}";

        Exception? expected = Record.Exception(() => serializer.Deserialize(new System.Buffers.ReadOnlySequence<byte>(System.Text.Encoding.UTF8.GetBytes(body))));
        Exception? actual = Record.Exception(() => Create().Read(new SqsMessage { Body = body }));
        if (expected is null)
        {
            MessageEnvelope envelope = Create().Read(new SqsMessage { Body = body }).Envelope!;
            Assert.Equal(serializer.Deserialize(new System.Buffers.ReadOnlySequence<byte>(System.Text.Encoding.UTF8.GetBytes(body))).Extensions["note"], envelope.Extensions["note"]);
            Assert.Null(actual);
        }
        else
        {
            Assert.Equal(((InvalidEnvelopeException)expected).Reason, Assert.IsType<InvalidEnvelopeException>(actual).Reason);
        }
    }

    [Fact]
    public void SqsMetadata_ReadsTheSystemAttributesByTheirSqsNames()
    {
        Assert.Equal(SqsSystemAttributes.ApproximateReceiveCount, SqsMetadata.ApproximateReceiveCountName);
        Assert.Equal(SqsSystemAttributes.MessageGroupId, SqsMetadata.MessageGroupIdName);
        Assert.Equal(SqsSystemAttributes.MessageDeduplicationId, SqsMetadata.MessageDeduplicationIdName);
    }

    [Theory]
    [InlineData(false, true)]
    [InlineData(true, true)]
    [InlineData(false, false)]
    [InlineData(true, false)]
    public void Read_WrapperMemberNamesAndValuesWrittenWithEscapes_AreTheSameMembers(bool experimental, bool scan)
    {
        // RFC 8259, section 8.3: "\u0054ype" is "Type". The hand scan stops at the escape; the reader compares unescaped names.
        string notification = FormatsNotification
            .Replace("\"Type\" : \"Notification\"", "\"\\u0054ype\" : \"Notific\\u0061tion\"", StringComparison.Ordinal)
            .Replace("\"MessageId\" :", "\"Message\\u0049d\" :", StringComparison.Ordinal)
            .Replace("\"Message\" :", "\"\\u004Dessage\" :", StringComparison.Ordinal);
        Assert.Contains("\\u0054ype", notification, StringComparison.Ordinal);
        const string EventBridgeEvent = "{\"version\":\"0\",\"id\":\"e-1\",\"d\\u0065tail-type\":\"Orders.OrderPlaced\",\"\\u0073ource\":\"/orders\",\"account\":\"1\",\"tim\\u0065\":\"2025-11-03T14:27:09Z\",\"region\":\"eu-west-1\",\"resources\":[],\"detai\\u006C\":"
            + "{\"id\":\"1\",\"source\":\"/s\",\"specversion\":\"1.0\",\"type\":\"notes.text\",\"datacontenttype\":\"text/plain\",\"data\":\"hello\"}}";
        const string Confirmation = "{\"Type\":\"Subscription\\u0043onfirmation\",\"MessageId\":\"m\",\"TopicArn\":\"arn:aws:sns:eu-west-1:1:t\",\"Token\":\"t\",\"Message\":\"You have chosen to subscribe\"}";
        MessageTypeMap map = TestSerializers.Map();
        EnvelopeSerializer json = experimental ? new Utf8JsonEnvelopeSerializer(map) : new StandardJsonEnvelopeSerializer(map);
        var reader = TestSerializers.Inbound(json, new ProtobufEnvelopeSerializer(map), map.Options, scan);

        InboundMessage sns = reader.Read(new SqsMessage { Body = notification });
        InboundMessage eventBridge = reader.Read(new SqsMessage { Body = EventBridgeEvent });
        InboundMessage control = reader.Read(new SqsMessage { Body = Confirmation });

        Assert.Equal(InboundMessageKind.SnsNotification, sns.Kind);
        Assert.Equal("b7d3f0a1-6c2e-5e8f-9a14-3d7c2b1e0f58", sns.Envelope!.SnsMetadata!.MessageId);
        Assert.Equal("ORD-20251103-0042", ((MessageEnvelope<Order>)sns.Envelope).Message.OrderId);
        Assert.Equal(InboundMessageKind.EventBridgeEvent, eventBridge.Kind);
        Assert.Equal("Orders.OrderPlaced", eventBridge.Envelope!.EventBridgeMetadata!.DetailType);
        Assert.Equal("hello", ((MessageEnvelope<string>)eventBridge.Envelope).Message);
        Assert.Equal(InboundMessageKind.SnsControlMessage, control.Kind);
    }

    private static InboundMessageReader Create(bool experimental = true, SerializationOptions? options = null)
    {
        MessageTypeMap map = TestSerializers.Map(options);
        return TestSerializers.Inbound(new Utf8JsonEnvelopeSerializer(map), experimental ? new ProtobufEnvelopeSerializer(map) : null, map.Options);
    }

    [Fact]
    public void Read_TheFormatsMdNotification_UnwrapsTheAwsMessagingEnvelopeWithSnsMetadata()
    {
        InboundMessage inbound = Create().Read(new SqsMessage { Body = FormatsNotification, MessageId = "sqs-1", ReceiptHandle = "r" });

        var envelope = (MessageEnvelope<Order>)inbound.Envelope!;
        Assert.Equal(InboundMessageKind.SnsNotification, inbound.Kind);
        Assert.Equal("5f8b2c3e-9a41-4d7e-b6c2-0e3f1a7d9b24", envelope.Id);
        Assert.Equal("Zoë Martin", envelope.Message.CustomerName);
        Assert.Equal(129.95m, envelope.Message.Total);
        Assert.Equal("b7d3f0a1-6c2e-5e8f-9a14-3d7c2b1e0f58", envelope.SnsMetadata!.MessageId);
        Assert.Equal("arn:aws:sns:eu-west-1:123456789012:orders-events", envelope.SnsMetadata.TopicArn);
        Assert.Equal(new DateTimeOffset(2025, 11, 3, 14, 27, 9, 530, TimeSpan.Zero), envelope.SnsMetadata.Timestamp);
        Assert.StartsWith("https://sns.eu-west-1.amazonaws.com/?Action=Unsubscribe", envelope.SnsMetadata.UnsubscribeUrl, StringComparison.Ordinal);
        Assert.Equal("acme-eu", envelope.SnsMetadata.MessageAttributes["tenant"].StringValue);
        Assert.Equal("Number", envelope.SnsMetadata.MessageAttributes["priority"].DataType);
        Assert.Equal("sqs-1", envelope.SqsMetadata!.MessageId);
    }

    [Fact]
    public void Read_EscapedSlashesAndUnicodeEscapesInMessage_AndUnknownFields_AreHandled()
    {
        string envelope = """{"id":"e-1","source":"\/orders\/eu","specversion":"1.0","type":"notes.text","datacontenttype":"text\/plain","data":"caf\u00e9 \ud83d\ude00 a\/b"}""";
        string body = "{\"Unknown\":{\"nested\":[1,2,{}]},\"Type\":\"Notification\",\"MessageId\":\"m\",\"TopicArn\":\"arn:aws:sns:x:1:t\",\"Message\":" + System.Text.Json.JsonSerializer.Serialize(envelope) + ",\"Extra\":null}";

        var read = (MessageEnvelope<string>)Create().Read(new SqsMessage { Body = body }).Envelope!;

        Assert.Equal("/orders/eu", read.Source);
        Assert.Equal("text/plain", read.DataContentType);
        Assert.Equal("café 😀 a/b", read.Message);
    }

    [Fact]
    public void Read_EventBridgeDetailAsString_IsUnwrapped()
    {
        string envelope = """{"id":"e-1","source":"/s","specversion":"1.0","type":"notes.text","data":"x"}""";
        string body = "{\"version\":\"0\",\"id\":\"eb-1\",\"detail-type\":\"notes.text\",\"source\":\"/s\",\"account\":\"111122223333\",\"time\":\"2025-11-03T14:27:09Z\",\"region\":\"us-east-1\",\"resources\":[\"arn:a\"],\"detail\":" + System.Text.Json.JsonSerializer.Serialize(envelope) + "}";

        InboundMessage inbound = Create().Read(new SqsMessage { Body = body });

        Assert.Equal(InboundMessageKind.EventBridgeEvent, inbound.Kind);
        Assert.Equal("x", ((MessageEnvelope<string>)inbound.Envelope!).Message);
        Assert.Equal("eb-1", inbound.Envelope!.EventBridgeMetadata!.EventId);
        Assert.Equal(["arn:a"], inbound.Envelope.EventBridgeMetadata.Resources);
        Assert.Equal("us-east-1", inbound.Envelope.EventBridgeMetadata.Region);
    }

    /// <summary>An EventBridge event around <paramref name="detail"/>, with members after it when <paramref name="after"/> is given.</summary>
    private static string EventBridgeBody(string detail, string after = "")
        => "{\"version\":\"0\",\"id\":\"eb-1\",\"detail-type\":\"notes.text\",\"source\":\"/s\",\"time\":\"2025-11-03T14:27:09Z\",\"detail\":" + detail + after + "}";

    /// <summary>A reader given no in-place reader, so an object detail is always skipped and then read on its own.</summary>
    private static InboundMessageReader CreateWithoutInPlaceDetail(SerializationOptions? options = null)
    {
        MessageTypeMap map = TestSerializers.Map(options);
        return new InboundMessageReader(new EnvelopeSerializerProvider(new Utf8JsonEnvelopeSerializer(map), new ProtobufEnvelopeSerializer(map)), map.Options, detailReader: null);
    }

    [Fact]
    public void ThePublicConstructor_ReadsAnEventBridgeDetailInPlace_WithTheFastSerializer_AsTheComposedReaderDoes()
    {
        // Built as the README shows a user building it: no detail reader given, yet the fast serializer's is used.
        MessageTypeMap map = TestSerializers.Map();
        var fast = new EnvelopeSerializerProvider(new Utf8JsonEnvelopeSerializer(map), new ProtobufEnvelopeSerializer(map));
        var standard = new EnvelopeSerializerProvider(new StandardJsonEnvelopeSerializer(map), new ProtobufEnvelopeSerializer(map));
        var reader = new InboundMessageReader(fast, map.Options);

        Assert.Same(fast.GetSerializer(EnvelopeFormat.Json), reader.DetailReader);
        Assert.Null(new InboundMessageReader(standard, map.Options).DetailReader); // the conventional serializer reads the detail on its own
        string body = EventBridgeBody("{\"id\":\"1\",\"source\":\"/s\",\"specversion\":\"1.0\",\"type\":\"notes.text\",\"data\":\"x\"}");
        InboundMessage inPlace = reader.Read(new SqsMessage { Body = body });
        InboundMessage onItsOwn = CreateWithoutInPlaceDetail().Read(new SqsMessage { Body = body });
        Assert.Equal(((MessageEnvelope<string>)onItsOwn.Envelope!).Message, ((MessageEnvelope<string>)inPlace.Envelope!).Message);
        Assert.Equal("eb-1", inPlace.Envelope!.EventBridgeMetadata!.EventId);
    }

    [Theory]
    [InlineData("", "x")] // detail last, as EventBridge writes it
    [InlineData(""",  "region" : "us-east-1", "resources":["arn:a"] """, "x")] // members after the detail
    [InlineData(""","detail":{"id":"e-2","source":"/s","specversion":"1.0","type":"notes.text","data":"second"}""", "second")] // a repeated detail: the last counts
    [InlineData(""","detail":"{\"id\":\"e-3\",\"source\":\"/s\",\"specversion\":\"1.0\",\"type\":\"notes.text\",\"data\":\"string\"}" """, "string")] // the last detail is a string
    public void Read_EventBridgeDetailObject_IsReadWhereItLies_WithTheWrapperReadOnAfterIt(string after, string expected)
    {
        string body = EventBridgeBody("""{"id":"e-1","source":"/s","specversion":"1.0","type":"notes.text","data":"x"}""", after);

        InboundMessage inbound = Create().Read(new SqsMessage { Body = body });
        InboundMessage ordinary = CreateWithoutInPlaceDetail().Read(new SqsMessage { Body = body });

        Assert.Equal(InboundMessageKind.EventBridgeEvent, inbound.Kind);
        Assert.Equal(expected, ((MessageEnvelope<string>)inbound.Envelope!).Message);
        Assert.Equal(((MessageEnvelope<string>)ordinary.Envelope!).Message, ((MessageEnvelope<string>)inbound.Envelope).Message);
        Assert.Equal(ordinary.Envelope.Id, inbound.Envelope.Id);
        Assert.Equal("eb-1", inbound.Envelope.EventBridgeMetadata!.EventId);
        Assert.Equal(ordinary.Envelope.EventBridgeMetadata!.Region, inbound.Envelope.EventBridgeMetadata.Region);
        Assert.Equal(after.Contains("region", StringComparison.Ordinal) ? "us-east-1" : null, inbound.Envelope.EventBridgeMetadata.Region);
    }

    [Theory]
    [InlineData(""","detail":"2" """)]
    [InlineData(""","detail":[] """)]
    public void Read_EventBridgeDetailObject_RepeatedAsAPlainValue_TheLastCounts_AsTheOrdinaryReadSays(string after)
    {
        // The envelope read in place from the first detail is dropped when a later detail is a string without
        // escapes or an empty array, which the hand scan takes without a reader (found by the long fuzz run).
        string body = EventBridgeBody("""{"id":"e-1","source":"/s","specversion":"1.0","type":"notes.text","data":"x"}""", after);

        var inPlace = Assert.Throws<InvalidEnvelopeException>(() => Create().Read(new SqsMessage { Body = body }));
        var ordinary = Assert.Throws<InvalidEnvelopeException>(() => CreateWithoutInPlaceDetail().Read(new SqsMessage { Body = body }));

        Assert.Equal(ordinary.Reason, inPlace.Reason);
        Assert.Equal(ordinary.Message, inPlace.Message);
    }

    [Theory]
    [InlineData("42", true)]
    [InlineData("42", false)]
    [InlineData("null", true)]
    [InlineData("{}", false)]
    [InlineData("\"{\\\"id\\\":\\\"2\\\",\\\"source\\\":\\\"/s\\\",\\\"specversion\\\":\\\"1.0\\\",\\\"type\\\":\\\"notes.text\\\",\\\"data\\\":\\\"second\\\"}\"", true)]
    public void Read_SnsMessageRepeated_TheLastCounts_AnEarlierStringIsNotRead(string last, bool scan)
    {
        // The Message string is unescaped into a buffer as it is met; a later Message that is not a string must not
        // leave the earlier one to be read as the envelope (the last member of a name counts, as for detail).
        string body = "{\"Type\":\"Notification\",\"MessageId\":\"m\",\"TopicArn\":\"arn:aws:sns:x:1:t\","
            + "\"Message\":\"{\\\"id\\\":\\\"1\\\",\\\"source\\\":\\\"/s\\\",\\\"specversion\\\":\\\"1.0\\\",\\\"type\\\":\\\"notes.text\\\",\\\"data\\\":\\\"first\\\"}\","
            + "\"Message\":" + last + "}";
        MessageTypeMap map = TestSerializers.Map();
        var reader = TestSerializers.Inbound(new Utf8JsonEnvelopeSerializer(map), new ProtobufEnvelopeSerializer(map), map.Options, scan);

        if (last.StartsWith('"'))
        {
            Assert.Equal("second", ((MessageEnvelope<string>)reader.Read(new SqsMessage { Body = body }).Envelope!).Message);
            return;
        }

        var error = Assert.Throws<InvalidEnvelopeException>(() => reader.Read(new SqsMessage { Body = body }));
        Assert.Equal(InvalidEnvelopeReason.Malformed, error.Reason);
        Assert.Contains("The SNS Message is not a JSON string", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Read_EventBridgeDetailThatIsAnEnvelope_InADocumentThatIsAnSnsNotification_IsTheNotification()
    {
        // The SNS rule comes first: an envelope read in the detail is dropped.
        string body = EventBridgeBody(
            """{"id":"e-1","source":"/s","specversion":"1.0","type":"notes.text","data":"detail"}""",
            ""","Type":"Notification","MessageId":"m","TopicArn":"arn:aws:sns:x:1:t","Message":"{\"id\":\"e-2\",\"source\":\"/s\",\"specversion\":\"1.0\",\"type\":\"notes.text\",\"data\":\"message\"}" """);

        InboundMessage inbound = Create().Read(new SqsMessage { Body = body });

        Assert.Equal(InboundMessageKind.SnsNotification, inbound.Kind);
        Assert.Equal("message", ((MessageEnvelope<string>)inbound.Envelope!).Message);
        Assert.Null(inbound.Envelope.EventBridgeMetadata);
    }

    [Theory]
    [InlineData("""{"id":"e-1","source":"/s","specversion":"1.0","type":"notes.text","data":"x","id":"again"}""", "")] // duplicate attribute
    [InlineData("""{"id":"e-1","source":"/s","specversion":"2.0","type":"notes.text","data":"x"}""", "")] // unsupported spec version
    [InlineData("""{"id":"e-1","source":"/s","specversion":"1.0","type":"no.such.type","data":"x"}""", "")] // unknown type
    [InlineData("""{"id":"e-1","source":"/s","specversion":"1.0","type":"notes.text","data":"x"}""", ",\"region\":")] // malformed after the detail
    [InlineData("""{"id":"e-1","source":"/s","specversion":"1.0","type":"notes.text","data":"x",}""", "")] // malformed inside the detail
    [InlineData("""{"id":"e-1","source":"/s","specversion":"1.0","type":"notes.text","data":DEEP}""", "")] // too deep
    [InlineData("""{"\ud800id":"e-1","source":"/s","specversion":"1.0","type":"notes.text","data":"x"}""", ",")] // a name that cannot be unescaped, then malformed (fuzz seed 31648973)
    [InlineData("""{"id":"e-1","source":"/s","specversion":"1.0","type":"Orders.OrderPlaced","data":{"Total":"not a number"}}""", "")] // data that does not fit its type
    [InlineData("""{"id":"e-1","source":"/s","specversion":"1.0","type":"Orders.OrderPlaced","data":{"Total":"not a number"}}""", ",\"region\":")] // that, then malformed after the detail
    public void Read_EventBridgeDetailObjectThatFails_FailsExactlyAsWhenReadOnItsOwn(string detail, string after)
    {
        string body = EventBridgeBody(detail.Replace("DEEP", new string('[', 200) + new string(']', 200), StringComparison.Ordinal), after);

        InvalidEnvelopeException inPlace = Assert.Throws<InvalidEnvelopeException>(() => Create().Read(new SqsMessage { Body = body }));
        InvalidEnvelopeException ordinary = Assert.Throws<InvalidEnvelopeException>(() => CreateWithoutInPlaceDetail().Read(new SqsMessage { Body = body }));

        Assert.Equal(ordinary.Reason, inPlace.Reason);
        Assert.Equal(ordinary.Message, inPlace.Message);
        Assert.Equal(ordinary.Position, inPlace.Position);
        Assert.Equal(Encoding.UTF8.GetBytes(body), inPlace.RawBody.ToArray());
    }

    [Theory]
    [InlineData("raw")]
    [InlineData("sns")]
    [InlineData("eventbridge")]
    public void Read_DataWhoseSerializerThrows_IsInvalidData_AndTheSerializerIsCalledOnce(string wrapper)
    {
        // The fast serializer reads the common shape by hand, and an EventBridge detail where it lies, before the
        // ordinary reading: a failure of the data must not send it through the application's serializer again.
        var counting = new ThrowingSerializer();
        var map = new MessageTypeMap(new SerializationOptions());
        map.Add<Note>("notes.counted", counting);
        var reader = TestSerializers.Inbound(new Utf8JsonEnvelopeSerializer(map), null, map.Options);
        const string Envelope = """{"id":"e-1","source":"/s","specversion":"1.0","type":"notes.counted","datacontenttype":"text/x-counted","data":"x"}""";
        string body = wrapper switch
        {
            "raw" => Envelope,
            "sns" => "{\"Type\":\"Notification\",\"MessageId\":\"n-1\",\"TopicArn\":\"arn:aws:sns:eu-west-1:123456789012:t\",\"Message\":" + JsonSerializer.Serialize(Envelope) + "}",
            _ => EventBridgeBody(Envelope, ",\"region\":\"eu-west-1\""),
        };

        InvalidEnvelopeException e = Assert.Throws<InvalidEnvelopeException>(() => reader.Read(new SqsMessage { Body = body }));

        Assert.Equal(InvalidEnvelopeReason.InvalidData, e.Reason);
        Assert.Contains(typeof(FormatException).Name, e.Message, StringComparison.Ordinal);
        Assert.Equal(1, counting.Calls);
    }

    [Fact]
    public void Read_MalformedAfterTheSnsMessage_GivesThePositionInTheWholeBody()
    {
        // The reader restarts after the Message string; the position is still counted as System.Text.Json counts
        // it, for a fault on the Message's own line (right after the string) and on a later one.
        foreach ((string from, string to) in new[] { ("}}\",\n", "}}\" x,\n"), ("\"Timestamp\" : ", "\"Timestamp\" : ,") })
        {
            string body = FormatsNotification.ReplaceLineEndings("\n").Replace(from, to, StringComparison.Ordinal);
            Assert.NotEqual(FormatsNotification.ReplaceLineEndings("\n"), body);
            JsonException reference = Assert.ThrowsAny<JsonException>(() => JsonDocument.Parse(body));

            InvalidEnvelopeException e = Assert.Throws<InvalidEnvelopeException>(() => Create().Read(new SqsMessage { Body = body }));

            Assert.Equal(InvalidEnvelopeReason.Malformed, e.Reason);
            Assert.Equal(reference.BytePositionInLine, e.Position);
        }
    }

    [Fact]
    public void Read_EventBridgeDetailObject_WithAProtobufContentTypeAttribute_FailsAsBefore()
    {
        // The attribute says the envelope is base64 protobuf: the detail object is not read as JSON.
        string body = EventBridgeBody("""{"id":"e-1","source":"/s","specversion":"1.0","type":"notes.text","data":"x"}""");
        var attributes = new Dictionary<string, MessageAttributeValue> { ["contentType"] = new() { DataType = "String", StringValue = ContentTypes.CloudEventsProtobuf } };

        InvalidEnvelopeException inPlace = Assert.Throws<InvalidEnvelopeException>(() => Create().Read(new SqsMessage { Body = body, MessageAttributes = attributes }));
        InvalidEnvelopeException ordinary = Assert.Throws<InvalidEnvelopeException>(() => CreateWithoutInPlaceDetail().Read(new SqsMessage { Body = body, MessageAttributes = attributes }));

        Assert.Equal(InvalidEnvelopeReason.Malformed, inPlace.Reason);
        Assert.Equal(ordinary.Message, inPlace.Message);
    }

    [Fact]
    public void Read_EventBridgeStringDetailInsideAnSnsMessage_IsUnwrappedIntact()
    {
        // Two string unwraps in a row: the second reads from the buffer the first one filled.
        string envelope = """{"id":"e-2","source":"/s","specversion":"1.0","type":"notes.text","data":"nested \"text\""}""";
        string eventBridge = "{\"version\":\"0\",\"id\":\"eb-2\",\"detail-type\":\"notes.text\",\"source\":\"/s\",\"time\":\"2025-11-03T14:27:09Z\",\"detail\":" + System.Text.Json.JsonSerializer.Serialize(envelope) + "}";
        string body = "{\"Type\":\"Notification\",\"MessageId\":\"m\",\"TopicArn\":\"arn:aws:sns:x:1:t\",\"Message\":" + System.Text.Json.JsonSerializer.Serialize(eventBridge) + "}";
        var pool = new CountingArrayPool();

        InboundMessage inbound = Create(options: TestSerializers.Options(o => o.BufferPool = pool)).Read(new SqsMessage { Body = body });

        Assert.Equal("nested \"text\"", ((MessageEnvelope<string>)inbound.Envelope!).Message);
        Assert.Equal("eb-2", inbound.Envelope!.EventBridgeMetadata!.EventId);
        Assert.NotNull(inbound.Envelope.SnsMetadata);
        Assert.Equal(pool.Rents, pool.Returns);
        Assert.Equal(0, pool.DirtyReturns);
    }

    [Theory]
    [InlineData("SubscriptionConfirmation")]
    [InlineData("UnsubscribeConfirmation")]
    public void Read_SnsControlMessage_IsAClearOutcomeNotACrash(string type)
    {
        string body = $$"""{"Type":"{{type}}","MessageId":"m","Token":"t","TopicArn":"arn:aws:sns:x:1:t","Message":"You have chosen to subscribe","SubscribeURL":"https://example","Timestamp":"2025-11-03T14:27:09.530Z"}""";

        InboundMessage inbound = Create().Read(new SqsMessage { Body = body });

        Assert.Equal(InboundMessageKind.SnsControlMessage, inbound.Kind);
        Assert.Null(inbound.Envelope);
    }

    [Theory]
    [InlineData("not json at all!")]
    [InlineData("{\"Type\":\"Notification\",\"MessageId\":\"m\",\"TopicArn\":\"t\",\"Message\":\"{broken\"}")]
    [InlineData("{\"Type\":\"Notification\",\"MessageId\":\"m\",\"TopicArn\":\"t\",\"Message\":42}")]
    // After the Message string, which is read in one pass outside the JSON reader, the reader still judges the rest.
    [InlineData("{\"Type\":\"Notification\",\"MessageId\":\"m\",\"TopicArn\":\"t\",\"Message\":\"{}\" \"Timestamp\":\"x\"}")]
    [InlineData("{\"Type\":\"Notification\",\"MessageId\":\"m\",\"TopicArn\":\"t\",\"Message\":\"{}\",}")]
    [InlineData("{\"Type\":\"Notification\",\"MessageId\":\"m\",\"TopicArn\":\"t\",\"Message\":\"{}\"")]
    [InlineData("{\"Type\":\"Notification\",\"MessageId\":\"m\",\"TopicArn\":\"t\",\"Message\":\"{}\"]}")]
    [InlineData("{\"Type\":\"Notification\",\"MessageId\":\"m\",\"TopicArn\":\"t\",\"Message\":\"{\u0001}\"}")]
    [InlineData("{\"Type\":\"Notification\",\"MessageId\":\"m\",\"TopicArn\":\"t\",\"Message\":\"{\\uD800}\"}")]
    [InlineData("{\"Type\":\"Notification\",\"MessageId\":\"m\",\"TopicArn\":\"t\",\"Message\": \"{}")]
    [InlineData("{\"Type\":\"Notification\",\"MessageId\":\"m\",\"TopicArn\":\"t\",\"Message\" :")] // found by the long fuzz run: nothing after the colon
    [InlineData("{\"Type\":\"Notification\",\"MessageId\":\"m\",\"TopicArn\":\"t\",\"Message\":  \n ")]
    [InlineData("{\"version\":\"0\",\"detail-type\":\"x\",\"source\":\"s\",\"time\":\"t\",\"detail\":{\"id\":1}}")]
    [InlineData("{\"id\":\"1\",\"source\":\"/s\"")]
    [InlineData("")]
    public void Read_UnreadableBody_ThrowsWithTheWholeBody(string body)
    {
        var error = Assert.Throws<InvalidEnvelopeException>(() => Create().Read(new SqsMessage { Body = body }));

        Assert.Equal(body, Encoding.UTF8.GetString(error.RawBody.Span));
    }

    [Fact]
    public void Read_ProtobufWithoutExperimentalFeatures_IsRejectedClearly()
    {
        var error = Assert.Throws<InvalidEnvelopeException>(() => Create(experimental: false).Read(new SqsMessage { Body = Convert.ToBase64String([0x0A, 0x01, 0x31]) }));

        Assert.Equal(InvalidEnvelopeReason.UnsupportedFormat, error.Reason);
    }

    /// <summary>
    /// A body given as text is encoded into a buffer of one byte per character first; text beyond ASCII fills it before
    /// the end, wherever that falls (on a two-, three- or four-byte character, a lone surrogate), and the rest is encoded
    /// after it: the bytes read are those <see cref="System.Text.Encoding.UTF8"/> gives, every buffer back once and cleared.
    /// </summary>
    [Theory]
    [InlineData("é")]
    [InlineData("東")]
    [InlineData("😀")]
    [InlineData("\ud800")] // a lone surrogate in the text itself: U+FFFD, as Encoding.UTF8 writes it
    [InlineData("😀é東\udc00a")]
    public void Read_TextBeyondAsciiWhereverTheFirstBufferFills_ReadsAsItsUtf8Bytes(string beyond)
    {
        using var serializer = TestSerializers.Fast();
        string envelope1 = serializer.SerializeToString(Orders.Envelope(1));
        var pool = new CountingArrayPool();
        InboundMessageReader reader = Create(options: TestSerializers.Options(o => o.BufferPool = pool));
        for (int before = 0; before < 24; before++)
        {
            string text = new string('a', before) + beyond + beyond + new string('z', 24 - before);
            string body = envelope1[..^1] + ",\"note\":\"" + text + "\"}";
            MessageEnvelope expected = serializer.Deserialize(new System.Buffers.ReadOnlySequence<byte>(System.Text.Encoding.UTF8.GetBytes(body)));

            MessageEnvelope envelope = reader.Read(new SqsMessage { Body = body }).Envelope!;

            Assert.Equal(expected.Extensions["note"], envelope.Extensions["note"]);
        }

        Assert.Equal(pool.Rents, pool.Returns);
        Assert.Equal(0, pool.DoubleReturns);
        Assert.Equal(0, pool.DirtyReturns);
    }

    [Fact]
    public void Read_ReturnsEveryRentedBufferCleared()
    {
        var pool = new CountingArrayPool();
        InboundMessageReader reader = Create(options: TestSerializers.Options(o => o.BufferPool = pool));

        reader.Read(new SqsMessage { Body = FormatsNotification });
        Assert.Throws<InvalidEnvelopeException>(() => reader.Read(new SqsMessage { Body = FormatsNotification.Replace("Orders.OrderPlaced", "Unknown.Type", StringComparison.Ordinal) }));

        Assert.Equal(pool.Rents, pool.Returns);
        Assert.Equal(0, pool.DirtyReturns);
    }

    [Fact]
    public void Read_SnsWrappedJson_Allocation()
    {
        InboundMessageReader reader = Create();
        var message = new SqsMessage { Body = FormatsNotification, MessageId = "sqs-1", ReceiptHandle = "r" };
        var raw = new SqsMessage { Body = System.Text.Json.JsonDocument.Parse(FormatsNotification).RootElement.GetProperty("Message").GetString()!, MessageId = "sqs-1", ReceiptHandle = "r" };

        long sns = Allocations.PerCall(() => reader.Read(message));
        long direct = Allocations.PerCall(() => reader.Read(raw));

        _output.WriteLine($"Inbound read: SNS-wrapped JSON envelope {sns} B per message, the same envelope raw {direct} B");
        // What SNS adds is its metadata (the SnsMetadata object, its strings, the attribute dictionary): no copy of the envelope.
        Assert.True(sns - direct < 2048, $"SNS unwrapping allocated {sns - direct} B more than reading the raw envelope");
    }

    /// <summary>
    /// The wrapper's members are gone through by hand while they have the common shapes, and by a reader from the
    /// first that does not. A reader without the hand scan must read every document the same, down to each error's
    /// reason, message and position. The documents: notifications compact and pretty-printed, with attributes and
    /// escapes, EventBridge events, each cut short at every byte and with every byte replaced by JSON's structural
    /// characters.
    /// </summary>
    [Fact]
    public void Read_WrapperGoneThroughByHand_ReadsAsTheReaderDoes_AtEveryCutAndEveryReplacedByte()
    {
        using var serializer = TestSerializers.Fast();
        string envelope = serializer.SerializeToString(Orders.Envelope(1));
        string message = JsonSerializer.Serialize(envelope, new JsonSerializerOptions { Encoder = System.Text.Encodings.Web.JavaScriptEncoder.UnsafeRelaxedJsonEscaping });
        string[] documents =
        [
            FormatsNotification,
            "{\"Type\":\"Notification\",\"MessageId\":\"m-1\",\"TopicArn\":\"arn:aws:sns:eu-west-1:1:t\",\"Message\":" + message + ",\"Timestamp\":\"2025-11-03T14:27:09.530Z\",\"UnsubscribeURL\":\"https:\\/\\/sns\\/x\"}",
            "{\r\n\t\"Type\" :\"Notification\" , \"MessageId\":\"m-2\",\"TopicArn\":\"arn:aws:sns:eu-west-1:1:t\",\"Subject\":null,\"Message\" : " + message + " ,\"MessageAttributes\":{\"a\":{\"Type\":\"String\",\"Value\":\"v\"}}}",
            EventBridgeBody("""{"id":"e-1","source":"/s","specversion":"1.0","type":"notes.text","data":"x"}""", ""","resources":[ ],"region":"eu-west-1","account":"1" """),
            "{\"version\":\"0\",\"id\":\"eb-2\",\"detail-type\":\"t\",\"source\":\"/s\",\"time\":\"2025-11-03T14:27:09Z\",\"resources\":[\"arn:r\"],\"detail\":" + message + "}",
            "{\"version\":\"0\",\"id\":\"eb-3\",\"detail-type\":\"t\",\"source\":\"/s\",\"time\":\"2025-11-03T14:27:09Z\",\"detail\":" + envelope + ",\"detail\":\"2\"}",
        ];

        MessageTypeMap map = TestSerializers.Map();
        var serializers = new EnvelopeSerializerProvider(new Utf8JsonEnvelopeSerializer(map), new ProtobufEnvelopeSerializer(map));
        var byHand = TestSerializers.Inbound(serializers, map.Options);
        var byReader = TestSerializers.Inbound(serializers, map.Options, scanWrappers: false);
        int compared = 0, failed = 0;
        foreach (string document in documents)
        {
            var variants = new List<string> { document };
            for (int cut = 1; cut < document.Length; cut++)
            {
                variants.Add(document[..cut]);
                foreach (char replacement in " \n\"\\,:{}[]0x")
                {
                    variants.Add(string.Concat(document.AsSpan(0, cut), replacement.ToString(), document.AsSpan(cut + 1)));
                }
            }

            foreach (string variant in variants)
            {
                string expected = Outcome(byReader, serializer, variant), actual = Outcome(byHand, serializer, variant);
                if (expected != actual)
                {
                    Assert.Fail($"{variant}\nby hand:   {actual}\nby reader: {expected}");
                }

                compared++;
                failed += actual.StartsWith("error", StringComparison.Ordinal) ? 1 : 0;
            }
        }

        _output.WriteLine($"{compared} documents compared, {failed} of them errors");
        Assert.True(failed > 1000 && compared - failed > 1000, $"{failed} of {compared} failed: both outcomes were exercised");

        static string Outcome(InboundMessageReader reader, Utf8JsonEnvelopeSerializer serializer, string body)
        {
            try
            {
                InboundMessage inbound = reader.Read(new SqsMessage { Body = body });
                if (inbound.Envelope is not { } e)
                {
                    return inbound.Kind.ToString();
                }

                var written = new System.Buffers.ArrayBufferWriter<byte>();
                serializer.SerializeBatch(written, [e]);
                return $"{inbound.Kind} {Encoding.UTF8.GetString(written.WrittenSpan)} {e.SnsMetadata?.MessageId} {e.SnsMetadata?.TopicArn} {e.SnsMetadata?.Subject} {e.SnsMetadata?.Timestamp} {e.SnsMetadata?.UnsubscribeUrl} {e.SnsMetadata?.MessageAttributes.Count} "
                    + $"{e.EventBridgeMetadata?.EventId} {e.EventBridgeMetadata?.DetailType} {e.EventBridgeMetadata?.Source} {e.EventBridgeMetadata?.Region} {e.EventBridgeMetadata?.Account} {e.EventBridgeMetadata?.Time} {string.Join('|', e.EventBridgeMetadata?.Resources ?? [])}";
            }
            catch (InvalidEnvelopeException e)
            {
                return $"error {e.Reason} {e.Position} {e.Message}";
            }
        }
    }

    private sealed record Note(string Text);

    /// <summary>A serializer of the application's whose reading always fails, counting its calls.</summary>
    private sealed class ThrowingSerializer : IStringMessageSerializer
    {
        public int Calls { get; private set; }

        public string ContentType => "text/x-counted";

        public string Serialize(object message) => ((Note)message).Text;

        public object Deserialize(string data, Type messageType)
        {
            Calls++;
            throw new FormatException("the application cannot read this");
        }
    }

    [Theory]
    [InlineData("""{"id":"1","source":"/s","specversion":"1.0","type":"notes.text","data":"caf\u00e9 \ud83d\ude00"}""")]
    [InlineData("{\"Type\":\"Notification\",\"MessageId\":\"m\",\"TopicArn\":\"arn:aws:sns:x:1:t\",\"Message\":\"{\\\"id\\\":\\\"1\\\",\\\"source\\\":\\\"/s\\\",\\\"specversion\\\":\\\"1.0\\\",\\\"type\\\":\\\"notes.text\\\",\\\"data\\\":\\\"é\\\"}\"}")]
    [InlineData("""{"id":"1","source":"/s","specversion":"1.0","type":"notes.text","data":"x",}""")] // malformed
    [InlineData("""{"id":"1","source":"/s","specversion":"1.0","type":"no.such.type","data":"x"}""")] // unregistered
    public void Read_ABodyGivenAsUtf8Bytes_ReadsAsTheSameBodyGivenAsText_AndNoStringIsMade(string body)
    {
        InboundMessageReader reader = Create();
        var asText = new SqsMessage { Body = body, MessageId = "m-1", ReceiptHandle = "r-1" };
        var asBytes = new SqsMessage { Utf8Body = Encoding.UTF8.GetBytes(body), MessageId = "m-1", ReceiptHandle = "r-1" };

        string text = Outcome(reader, asText), bytes = Outcome(reader, asBytes);

        Assert.Equal(text, bytes);
        Assert.True(asBytes.HasUtf8Body);
        Assert.False(asText.HasUtf8Body);
        Assert.Equal(body, asBytes.Body); // decoded when asked for
        Assert.Equal(Encoding.UTF8.GetBytes(body), asText.Utf8Body.ToArray());

        static string Outcome(InboundMessageReader reader, SqsMessage message)
        {
            try
            {
                MessageEnvelope envelope = reader.Read(message).Envelope!;
                return $"{envelope.Id} {((MessageEnvelope<string>)envelope).Message} {envelope.SqsMetadata!.MessageId}";
            }
            catch (InvalidEnvelopeException e)
            {
                return $"{e.Reason} {e.Position} {e.Message} {Convert.ToHexString(e.RawBody.Span)}";
            }
        }
    }

    [Fact]
    public void ASqsMessageWithNoBody_HasAnEmptyBody()
    {
        var message = new SqsMessage { MessageId = "m" };

        Assert.Equal(string.Empty, message.Body);
        Assert.True(message.Utf8Body.IsEmpty);
        Assert.False(message.HasUtf8Body);
    }
}
