using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Text;
using System.Text.Json.Serialization;
using MassTransit;
using Missive.Json;
using Missive.Serialization;
using Missive.Tests.Infrastructure;
using Missive.Tests.Native;
using Missive.Transport;

namespace Missive.Tests.Interop;

[JsonSerializable(typeof(Order))]
[JsonSerializable(typeof(OrderSubmitted))]
[JsonSerializable(typeof(Shipping.Dispatched))]
[JsonSerializable(typeof(Batch<Shipping.Dispatched>))]
internal sealed partial class InteropJsonContext : JsonSerializerContext;

/// <summary>
/// MassTransit's envelope read by <see cref="InboundMessageReader"/>: bodies written by MassTransit 8.5.12's own
/// serializer (a publish, a send with a correlation id and headers, a nested type, a generic type), raw and in an SNS
/// notification, each read with every field MassTransit carried; its URN convention checked against MassTransit's own;
/// what no rule names and what is malformed refused with a reason.
/// </summary>
public sealed class MassTransitReaderTests
{
    private static readonly Guid OrderId = Guid.Parse("63276a04-4452-430f-a5df-ae1d31727408");
    private static readonly DateTimeOffset SubmittedAt = new(2026, 12, 1, 9, 30, 0, TimeSpan.Zero);

    public static TheoryData<bool> Serializers => [false, true];

    private static NativeMessageRules Rules() => new NativeMessageRules()
        .WhenMassTransit<OrderSubmitted>()
        .WhenMassTransit<Shipping.Dispatched>()
        .WhenMassTransit<Batch<Shipping.Dispatched>>();

    [Fact]
    public void TheConventionalUrn_IsTheOneMassTransitGivesTheType()
    {
        Assert.Equal(MessageUrn.ForTypeString<OrderSubmitted>(), MassTransitEnvelope.UrnOf(typeof(OrderSubmitted)));
        Assert.Equal(MessageUrn.ForTypeString<Shipping.Dispatched>(), MassTransitEnvelope.UrnOf(typeof(Shipping.Dispatched)));
        Assert.Equal(MessageUrn.ForTypeString<Batch<Shipping.Dispatched>>(), MassTransitEnvelope.UrnOf(typeof(Batch<Shipping.Dispatched>)));
        Assert.Equal(MessageUrn.ForTypeString<Dictionary<string, Batch<int>>>(), MassTransitEnvelope.UrnOf(typeof(Dictionary<string, Batch<int>>)));
    }

    [Theory]
    [MemberData(nameof(Serializers))]
    public void ASendWithACorrelationIdAndHeaders_IsReadWithEveryFieldMassTransitCarried(bool fast)
    {
        Guid correlation = Guid.NewGuid(), conversation = Guid.NewGuid(), initiator = Guid.NewGuid(), request = Guid.NewGuid();
        Guid? messageId = null;
        DateTime? sent = null;
        byte[] body = MassTransitBodies.Serialize(Submitted(), c =>
        {
            c.CorrelationId = correlation;
            c.ConversationId = conversation;
            c.InitiatorId = initiator;
            c.RequestId = request;
            c.SourceAddress = new Uri("amazonsqs://eu-west-1/orders");
            c.DestinationAddress = new Uri("amazonsqs://eu-west-1/billing");
            c.ResponseAddress = new Uri("amazonsqs://eu-west-1/replies");
            c.FaultAddress = new Uri("amazonsqs://eu-west-1/faults");
            c.TimeToLive = TimeSpan.FromMinutes(5);
            c.Headers.Set("Tenant", "eu-1");
            c.Headers.Set("Attempt", 3);
            messageId = c.MessageId;
            sent = c.SentTime;
        });

        InboundMessage inbound = Reader(fast).Read(Message(body), Rules());

        var envelope = Assert.IsType<MessageEnvelope<OrderSubmitted>>(inbound.Envelope);
        Assert.Equal((OrderId, "ada", SubmittedAt), (envelope.Message.OrderId, envelope.Message.Customer, envelope.Message.SubmittedAt));
        Assert.Equal(["book", "pen"], envelope.Message.Lines);
        Assert.Equal(42.50m, envelope.Message.Total); // MassTransit wrote it as the string "42.50"
        Assert.Contains("\"42.50\"", Encoding.UTF8.GetString(body), StringComparison.Ordinal);
        Assert.Equal(messageId!.Value.ToString(), envelope.Id);
        Assert.Equal("amazonsqs://eu-west-1/orders", envelope.Source);
        Assert.Equal(sent, envelope.Time!.Value.UtcDateTime);
        Assert.Equal("interop.order-submitted", envelope.Type);
        Assert.True(envelope.IsNative);
        MassTransitMetadata mt = envelope.MassTransitMetadata!;
        Assert.Equal((messageId, correlation, conversation, initiator, (Guid?)request), (mt.MessageId, mt.CorrelationId, mt.ConversationId, mt.InitiatorId, mt.RequestId));
        Assert.Equal(("amazonsqs://eu-west-1/orders", "amazonsqs://eu-west-1/billing", "amazonsqs://eu-west-1/replies", "amazonsqs://eu-west-1/faults"), (mt.SourceAddress, mt.DestinationAddress, mt.ResponseAddress, mt.FaultAddress));
        using (var written = System.Text.Json.JsonDocument.Parse(body)) // the expiration MassTransit wrote, read by System.Text.Json
        {
            Assert.Equal(written.RootElement.GetProperty("expirationTime").GetDateTimeOffset(), mt.ExpirationTime);
        }

        Assert.Equal([MessageUrn.ForTypeString<OrderSubmitted>()], mt.MessageTypes);
        Assert.Equal(sent, mt.SentTime!.Value.UtcDateTime);
        Assert.Equal("eu-1", mt.Headers["Tenant"]);
        Assert.Equal("3", mt.Headers["Attempt"]);
        Assert.Equal("sqs-message-1", envelope.SqsMetadata!.MessageId);
    }

    [Theory]
    [MemberData(nameof(Serializers))]
    public void ANestedAndAGenericType_AreChosenByTheirUrns(bool fast)
    {
        InboundMessage nested = Reader(fast).Read(Message(MassTransitBodies.Serialize(new Shipping.Dispatched("P-1", 2))), Rules());
        InboundMessage generic = Reader(fast).Read(Message(MassTransitBodies.Serialize(new Batch<Shipping.Dispatched>([new("P-1", 2), new("P-2", 1)]))), Rules());

        Assert.Equal(new Shipping.Dispatched("P-1", 2), Assert.IsType<MessageEnvelope<Shipping.Dispatched>>(nested.Envelope).Message);
        Assert.Equal([new("P-1", 2), new("P-2", 1)], Assert.IsType<MessageEnvelope<Batch<Shipping.Dispatched>>>(generic.Envelope).Message.Items);
    }

    [Theory]
    [MemberData(nameof(Serializers))]
    public void AnExplicitUrn_ReadsATypeWhoseNameDiffersOnTheMassTransitSide(bool fast)
    {
        byte[] body = MassTransitBodies.Serialize(new Shipping.Dispatched("P-9", 4));
        string theirs = Encoding.UTF8.GetString(body).Replace(MessageUrn.ForTypeString<Shipping.Dispatched>(), "urn:message:Warehouse.Contracts:ParcelDispatched", StringComparison.Ordinal);

        InboundMessage inbound = Reader(fast).Read(Message(theirs), new NativeMessageRules().WhenMassTransit<Shipping.Dispatched>("urn:message:Warehouse.Contracts:ParcelDispatched"));

        Assert.Equal(new Shipping.Dispatched("P-9", 4), Assert.IsType<MessageEnvelope<Shipping.Dispatched>>(inbound.Envelope).Message);
    }

    [Theory]
    [MemberData(nameof(Serializers))]
    public void AnSnsWrappedEnvelope_IsUnwrapped_AndKeepsTheTopic_AndItsTraceContextAttribute(bool fast)
    {
        string traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
        byte[] body = MassTransitBodies.Serialize(Submitted());
        string topic = "arn:aws:sns:eu-west-1:123456789012:Missive_Tests_Interop-OrderSubmitted";
        var attributes = new Dictionary<string, MessageAttributeValue> { ["MT-Activity-Id"] = MessageAttributeValue.FromString(traceparent), ["Content-Type"] = MessageAttributeValue.FromString("application/vnd.masstransit+json") };

        InboundMessage inbound = Reader(fast).Read(Message(AwsEvents.InSnsNotification(Encoding.UTF8.GetString(body), topic, "x"), attributes), Rules());

        var envelope = Assert.IsType<MessageEnvelope<OrderSubmitted>>(inbound.Envelope);
        Assert.Equal(InboundMessageKind.SnsNotification, inbound.Kind);
        Assert.Equal(42.50m, envelope.Message.Total);
        Assert.Equal(topic, envelope.SnsMetadata!.TopicArn);
        Assert.Equal(envelope.MassTransitMetadata!.MessageId.ToString(), envelope.Id);
        Assert.Equal(traceparent, envelope.Extensions[CloudEventAttributeNames.TraceParent].AsString());
    }

    [Theory]
    [MemberData(nameof(Serializers))]
    public void MassTransitsQuirks_AreReadAsItReadsThem_CommentsTrailingCommasNumbersAsStringsAnyCase(bool fast)
    {
        string body = """
            {
              // written by hand, as MassTransit's reader accepts it
              "messageType": ["urn:message:Missive.Tests.Interop:OrderSubmitted",],
              "message": { "OrderId": "63276a04-4452-430f-a5df-ae1d31727408", "customer": "ada", "total": 42.5, "submittedAt": "2026-12-01T09:30:00Z", "lines": [] /* none */ },
              "host": { "machineName": "vm" },
              "somethingNewer": [1, 2],
            }
            """;

        InboundMessage inbound = Reader(fast).Read(Message(body), Rules());

        var envelope = Assert.IsType<MessageEnvelope<OrderSubmitted>>(inbound.Envelope);
        Assert.Equal((OrderId, "ada", 42.5m), (envelope.Message.OrderId, envelope.Message.Customer, envelope.Message.Total));
        Assert.Equal("sqs-message-1", envelope.Id); // no messageId: SQS's, as for any native message
        Assert.Equal("aws:sqs", envelope.Source);
        Assert.Empty(envelope.MassTransitMetadata!.Headers);
    }

    [Theory]
    [MemberData(nameof(Serializers))]
    public void MemberNamesWrittenWithEscapes_AreReadAsTheNamesTheyAre(bool fast)
    {
        // Any JSON writer may escape a name; the escapes spell messageId, sentTime, message and correlationId. A name as
        // long as one of MassTransit's but not it (messageIx, sentTimes) is another member, skipped.
        string body = """
            {
              "message\u0049d": "0d6ba1e7-46b2-4cde-8c3c-0f5f2e5e7a11",
              "messageIx": "not read",
              "sent\u0054ime": "2026-12-01T09:30:00Z",
              "sentTimes": "not read",
              "corr\u0065lationId": "5a3e9c1d-4f6b-4b8a-9e2f-6d7c8b9a0f12",
              "messageType": ["urn:message:Missive.Tests.Interop:OrderSubmitted"],
              "\u006dessage": { "orderId": "63276a04-4452-430f-a5df-ae1d31727408", "customer": "ada", "total": 1, "submittedAt": "2026-12-01T09:30:00Z", "lines": [] }
            }
            """;

        InboundMessage inbound = Reader(fast).Read(Message(body), Rules());

        var envelope = Assert.IsType<MessageEnvelope<OrderSubmitted>>(inbound.Envelope);
        Assert.Equal("ada", envelope.Message.Customer);
        Assert.Equal("0d6ba1e7-46b2-4cde-8c3c-0f5f2e5e7a11", envelope.Id);
        Assert.Equal(new DateTimeOffset(2026, 12, 1, 9, 30, 0, TimeSpan.Zero), envelope.Time);
        Assert.Equal(Guid.Parse("5a3e9c1d-4f6b-4b8a-9e2f-6d7c8b9a0f12"), envelope.MassTransitMetadata!.CorrelationId);
    }

    [Theory]
    [MemberData(nameof(Serializers))]
    public void AMessageMassTransitSentRaw_IsReadByItsMtMessageTypeAttribute(bool fast)
    {
        // The body from MassTransit's own raw JSON serializer; the attributes its SQS transport sets for it (its source:
        // MessageId, CorrelationId, ConversationId, MT-MessageType joined by ';', MT-Source-Address, Content-Type).
        byte[] body = MassTransitBodies.SerializeRaw(Submitted());
        Guid messageId = Guid.NewGuid(), correlation = Guid.NewGuid();
        var attributes = new Dictionary<string, MessageAttributeValue>
        {
            ["MessageId"] = MessageAttributeValue.FromString(messageId.ToString()),
            ["CorrelationId"] = MessageAttributeValue.FromString(correlation.ToString()),
            ["MT-MessageType"] = MessageAttributeValue.FromString(MessageUrn.ForTypeString<OrderSubmitted>() + ";urn:message:Missive.Tests.Interop:IOrderEvent"),
            ["MT-Source-Address"] = MessageAttributeValue.FromString("amazonsqs://eu-west-1/orders"),
            ["Content-Type"] = MessageAttributeValue.FromString("application/json"),
            ["Tenant"] = MessageAttributeValue.FromString("eu-1"),
        };

        InboundMessage inbound = Reader(fast).Read(Message(body, attributes), Rules());

        var envelope = Assert.IsType<MessageEnvelope<OrderSubmitted>>(inbound.Envelope);
        Assert.Equal((OrderId, "ada", 42.50m), (envelope.Message.OrderId, envelope.Message.Customer, envelope.Message.Total));
        Assert.Equal(messageId.ToString(), envelope.Id);
        Assert.Equal("amazonsqs://eu-west-1/orders", envelope.Source);
        Assert.Equal(correlation, envelope.MassTransitMetadata!.CorrelationId);
        Assert.Equal([MessageUrn.ForTypeString<OrderSubmitted>(), "urn:message:Missive.Tests.Interop:IOrderEvent"], envelope.MassTransitMetadata.MessageTypes);
        Assert.Equal("eu-1", envelope.MassTransitMetadata.Headers["Tenant"]);
        Assert.False(envelope.MassTransitMetadata.Headers.ContainsKey("MT-MessageType"));
    }

    [Theory]
    [MemberData(nameof(Serializers))]
    public void AnEnvelopeOnTheSameQueue_IsStillReadAsAnEnvelope(bool fast)
    {
        using var serializer = new Utf8JsonEnvelopeSerializer(Map());

        InboundMessage inbound = Reader(fast).Read(Message(serializer.SerializeToUtf8Text(Orders.Envelope(7))), Rules());

        var envelope = Assert.IsType<MessageEnvelope<Order>>(inbound.Envelope);
        Assert.False(envelope.IsNative);
        Assert.Null(envelope.MassTransitMetadata);
    }

    [Theory]
    [MemberData(nameof(Serializers))]
    public void AUrnNoRuleNames_IsRefused_NamingTheUrnsItCarried_AndTheFix(bool fast)
    {
        byte[] body = MassTransitBodies.Serialize(new Shipping.Dispatched("P-1", 2));

        var error = Assert.Throws<InvalidEnvelopeException>(() => Reader(fast).Read(Message(body), new NativeMessageRules().WhenMassTransit<OrderSubmitted>()));

        Assert.Equal(InvalidEnvelopeReason.NoNativeRuleMatched, error.Reason);
        Assert.Contains(MessageUrn.ForTypeString<Shipping.Dispatched>(), error.Message, StringComparison.Ordinal);
        Assert.Contains("WhenMassTransit<T>()", error.Message, StringComparison.Ordinal);
        Assert.Contains("MassTransit message urn:message:Missive.Tests.Interop:OrderSubmitted -> OrderSubmitted", error.Message, StringComparison.Ordinal);
        Assert.Equal(body, error.RawBody);
    }

    [Theory]
    [MemberData(nameof(Serializers))]
    public void AUrnNoRuleNames_GoesToTheFallback_AsAnUnregisteredMessageOfThatUrn(bool fast)
    {
        MessageTypeMap map = Map();
        map.ReadUnregisteredTypes();
        byte[] body = MassTransitBodies.Serialize(new Shipping.Dispatched("P-1", 2));

        InboundMessage inbound = Reader(fast, map).Read(Message(body), new NativeMessageRules().WhenMassTransit<OrderSubmitted>());

        var envelope = Assert.IsType<MessageEnvelope<UnregisteredMessage>>(inbound.Envelope);
        Assert.Equal(MessageUrn.ForTypeString<Shipping.Dispatched>(), envelope.Type);
    }

    [Theory]
    [InlineData("\"messageId\": \"not-a-guid\",", InvalidEnvelopeReason.Malformed, "messageId is not a GUID")]
    [InlineData("\"sentTime\": \"yesterday\",", InvalidEnvelopeReason.Malformed, "sentTime is not an ISO 8601 time")]
    [InlineData("\"headers\": [1],", InvalidEnvelopeReason.Malformed, "headers are not an object")]
    [InlineData("\"message\": null,", InvalidEnvelopeReason.MissingAttribute, "has no message")]
    [InlineData("\"message\": {\"total\": \"forty\"},", InvalidEnvelopeReason.InvalidData, "")]
    public void AMalformedEnvelope_IsATypedError_WithTheBodyKept(string member, InvalidEnvelopeReason reason, string words)
    {
        // Before its URNs (read while the rules look for a type) and after them (read on from there): the same error, at the value's place in the body.
        const string Types = "\"messageType\": [\"urn:message:Missive.Tests.Interop:OrderSubmitted\"]";
        foreach (string body in new[] { "{" + member + Types + "}", "{" + Types + "," + member.TrimEnd(',') + "}" })
        {
            var error = Assert.Throws<InvalidEnvelopeException>(() => Reader(fast: true).Read(Message(body), Rules()));

            Assert.Equal(reason, error.Reason);
            Assert.Contains(words, error.Message, StringComparison.Ordinal);
            Assert.Equal(Encoding.UTF8.GetBytes(body), error.RawBody);
            if (reason != InvalidEnvelopeReason.MissingAttribute)
            {
                Assert.Equal(body.IndexOf(member.TrimEnd(','), StringComparison.Ordinal) + member.IndexOf(':', StringComparison.Ordinal) + 2, error.Position);
            }
        }
    }

    [Fact]
    public void AnEnvelopeWithoutSentTime_TakesTheTimeSqsStoredTheMessage()
    {
        string body = $$"""
            {"messageId":"{{Guid.NewGuid()}}","messageType":["urn:message:Missive.Tests.Interop:OrderSubmitted"],
             "message":{"orderId":"{{OrderId}}","customer":"ada","total":1,"submittedAt":"2026-12-01T09:30:00Z","lines":[]} }
            """;

        MessageEnvelope envelope = Reader(fast: true).Read(Message(body), Rules()).Envelope!;

        Assert.Equal(DateTimeOffset.FromUnixTimeMilliseconds(1762180029441), envelope.Time); // the message's SentTimestamp
    }

    [Fact]
    public void AnEnvelopeWithItsMessageBeforeItsUrns_IsReadWhole_AsOneInMassTransitsOrder()
    {
        Guid messageId = Guid.NewGuid(), correlationId = Guid.NewGuid();
        string body = $$"""
            {
              "correlationId": "{{correlationId}}",
              "message": { "orderId": "{{OrderId}}", "customer": "ada", "total": "42.50", "submittedAt": "2026-12-01T09:30:00Z", "lines": ["book"] },
              "sourceAddress": "amazonsqs://eu-west-1/orders",
              "messageType": ["urn:message:Missive.Tests.Interop:OrderSubmitted"],
              "messageId": "{{messageId}}",
              "sentTime": "2026-12-01T09:30:01Z"
            }
            """;

        var envelope = Assert.IsType<MessageEnvelope<OrderSubmitted>>(Reader(fast: true).Read(Message(body), Rules()).Envelope);

        Assert.Equal((messageId.ToString(), "amazonsqs://eu-west-1/orders", 42.50m), (envelope.Id, envelope.Source, envelope.Message.Total));
        Assert.Equal(correlationId, envelope.MassTransitMetadata!.CorrelationId);
        Assert.Equal(new DateTimeOffset(2026, 12, 1, 9, 30, 1, TimeSpan.Zero), envelope.Time);
    }

    [Fact]
    public void OneUrnForTwoTypes_OrTwoUrnsForOneType_IsRefused_NamingBoth()
    {
        var sameUrn = Assert.Throws<InvalidOperationException>(() => new NativeMessageRules()
            .WhenMassTransit<OrderSubmitted>("urn:message:Shared:Thing")
            .WhenMassTransit<Shipping.Dispatched>("urn:message:Shared:Thing"));
        var sameType = Assert.Throws<InvalidOperationException>(() => new NativeMessageRules()
            .WhenMassTransit<OrderSubmitted>()
            .WhenMassTransit<OrderSubmitted>("urn:message:Other:OrderSubmitted"));
        var notUrn = Assert.Throws<ArgumentException>(() => new NativeMessageRules().WhenMassTransit<OrderSubmitted>("Orders.OrderSubmitted"));

        Assert.Contains("Missive.Tests.Interop.OrderSubmitted", sameUrn.Message, StringComparison.Ordinal);
        Assert.Contains("Missive.Tests.Interop.Shipping+Dispatched", sameUrn.Message, StringComparison.Ordinal);
        Assert.Contains("urn:message:Missive.Tests.Interop:OrderSubmitted", sameType.Message, StringComparison.Ordinal);
        Assert.Contains("urn:message:Other:OrderSubmitted", sameType.Message, StringComparison.Ordinal);
        Assert.Contains("urn:message:", notUrn.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void ReadingAMassTransitEnvelope_AllocatesNoMoreThanItsMessageAndMetadata()
    {
        InboundMessageReader reader = Reader(fast: true);
        NativeMessageRules rules = Rules();
        SqsMessage message = Message(MassTransitBodies.Serialize(Submitted(), c => c.CorrelationId = Guid.NewGuid()), utf8: true);
        for (int i = 0; i < 50; i++)
        {
            reader.Read(message, rules);
        }

        long before = GC.GetAllocatedBytesForCurrentThread();
        reader.Read(message, rules);
        long allocated = GC.GetAllocatedBytesForCurrentThread() - before;

        // The body is never copied (nearly 1 KB with MassTransit's host block): what remains is the message, its strings and the metadata.
        Assert.True(message.Utf8Body.Length > 900, $"{message.Utf8Body.Length}");
        Assert.True(allocated < 1800, $"{allocated} bytes"); // 1,656 when written; a copy of the body would add its 958
    }

    private static OrderSubmitted Submitted() => new(OrderId, "ada", 42.50m, SubmittedAt, ["book", "pen"]);

    private static MessageTypeMap Map()
    {
        var map = new MessageTypeMap(new SerializationOptions { JsonSerializerContext = InteropJsonContext.Default });
        map.Add<Order>(TestSerializers.OrderType);
        map.Add<OrderSubmitted>("interop.order-submitted");
        map.Add<Shipping.Dispatched>("interop.dispatched");
        map.Add<Batch<Shipping.Dispatched>>("interop.dispatched-batch");
        return map;
    }

    private static InboundMessageReader Reader(bool fast, MessageTypeMap? map = null)
    {
        map ??= Map();
        EnvelopeSerializer json = fast ? new Utf8JsonEnvelopeSerializer(map) : new StandardJsonEnvelopeSerializer(map);
        return TestSerializers.Inbound(json, null, map.Options);
    }

    private static SqsMessage Message(byte[] body, IReadOnlyDictionary<string, MessageAttributeValue>? attributes = null, bool utf8 = false)
        => utf8
            ? new SqsMessage { MessageId = "sqs-message-1", ReceiptHandle = "handle-1", Utf8Body = body, MessageAttributes = attributes ?? new Dictionary<string, MessageAttributeValue>() }
            : Message(Encoding.UTF8.GetString(body), attributes);

    private static SqsMessage Message(string body, IReadOnlyDictionary<string, MessageAttributeValue>? attributes = null) => new()
    {
        MessageId = "sqs-message-1",
        ReceiptHandle = "handle-1",
        Body = body,
        MessageAttributes = attributes ?? new Dictionary<string, MessageAttributeValue>(),
        SystemAttributes = new Dictionary<string, string> { ["SentTimestamp"] = "1762180029441" },
    };
}
