using System;
using System.Collections.Generic;
using System.Threading.Tasks;
using Missive.Bus;
using Missive.InMemory;
using Missive.Json;
using Missive.Protobuf;
using Missive.Serialization;
using Missive.Tests.Infrastructure;
using Missive.Transport;

namespace Missive.Tests.Transport;

/// <summary>
/// {JSON, protobuf} × {raw SQS, SNS→SQS, SNS raw delivery→SQS, EventBridge→SQS} × {small,
/// unicode-heavy, near the size limit, every extension type}: what is published arrives equal, with
/// the right metadata, through the broker's real wire shapes.
/// </summary>
public sealed class TransportRoundTripTests
{
    private static readonly MessageTypeMap Map = TestSerializers.Map(EnvelopeCorpus.Options());
    private static readonly EnvelopeSerializerProvider Serializers = new(new Utf8JsonEnvelopeSerializer(Map), new ProtobufEnvelopeSerializer(Map));
    private static readonly OutboundMessageWriter Writer = new(Serializers);
    private static readonly InboundMessageReader Reader = new(Serializers, Map.Options);

    public static TheoryData<EnvelopeFormat, string, string> Matrix()
    {
        var data = new TheoryData<EnvelopeFormat, string, string>();
        foreach (EnvelopeFormat format in new[] { EnvelopeFormat.Json, EnvelopeFormat.Protobuf })
        {
            foreach (string path in new[] { "sqs", "sns", "sns-raw", "eventbridge" })
            {
                foreach (string payload in new[] { "small", "unicode", "near-limit", "extensions" })
                {
                    data.Add(format, path, payload);
                }
            }
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(Matrix))]
    public async Task Publish_ThroughThePath_ArrivesEqualWithItsMetadata(EnvelopeFormat format, string path, string payload)
    {
        var broker = new InMemoryBroker();
        broker.CreateQueue("q");
        string topicArn = broker.CreateTopic("topic");
        broker.Subscribe("topic", "q", rawMessageDelivery: path == "sns-raw");
        broker.CreateEventBus("bus");
        broker.AddRule("bus", "q");
        MessageEnvelope envelope = Payload(payload, format, path);

        await Send(broker, envelope, format, path);
        SqsMessage received = Assert.Single(await broker.ReceiveAsync("q", 10, TimeSpan.Zero));
        InboundMessage inbound = Reader.Read(received);

        EnvelopeAssert.Equal(envelope, inbound.Envelope!);
        Assert.Equal(received.MessageId, inbound.Envelope!.SqsMetadata!.MessageId);
        Assert.Equal(1, inbound.Envelope.SqsMetadata.ApproximateReceiveCount);
        switch (path)
        {
            case "sns":
                Assert.Equal(InboundMessageKind.SnsNotification, inbound.Kind);
                Assert.Equal(topicArn, inbound.Envelope.SnsMetadata!.TopicArn);
                Assert.False(string.IsNullOrEmpty(inbound.Envelope.SnsMetadata.MessageId));
                Assert.NotNull(inbound.Envelope.SnsMetadata.Timestamp);
                Assert.Null(inbound.Envelope.EventBridgeMetadata);
                break;
            case "eventbridge":
                Assert.Equal(InboundMessageKind.EventBridgeEvent, inbound.Kind);
                Assert.Equal(envelope.Type, inbound.Envelope.EventBridgeMetadata!.DetailType);
                Assert.Equal(envelope.Source, inbound.Envelope.EventBridgeMetadata.Source);
                Assert.Equal("123456789012", inbound.Envelope.EventBridgeMetadata.Account);
                Assert.Null(inbound.Envelope.SnsMetadata);
                break;
            default:
                Assert.Equal(InboundMessageKind.Raw, inbound.Kind);
                Assert.Null(inbound.Envelope.SnsMetadata);
                Assert.Null(inbound.Envelope.EventBridgeMetadata);
                Assert.Equal(format == EnvelopeFormat.Protobuf, received.MessageAttributes.ContainsKey(ContentTypeAttribute.Name));
                break;
        }
    }

    private static async Task Send(InMemoryBroker broker, MessageEnvelope envelope, EnvelopeFormat format, string path)
    {
        switch (envelope)
        {
            case MessageEnvelope<Order> e:
                await Send(broker, e, format, path);
                break;
            case MessageEnvelope<string> e:
                await Send(broker, e, format, path);
                break;
            default:
                throw new NotSupportedException();
        }
    }

    private static async Task Send<T>(InMemoryBroker broker, MessageEnvelope<T> envelope, EnvelopeFormat format, string path)
    {
        switch (path)
        {
            case "sqs":
                await broker.SendAsync(Writer.ToSqs(envelope, "q", format));
                break;
            case "eventbridge":
                await broker.PutEventAsync(Writer.ToEventBridge(envelope, "bus", format));
                break;
            default:
                await broker.PublishAsync(Writer.ToSns(envelope, "topic", format));
                break;
        }
    }

    /// <summary>The test payloads; "near the limit" lands the published text at about 95% of the path's limit.</summary>
    private static MessageEnvelope Payload(string payload, EnvelopeFormat format, string path)
    {
        DateTimeOffset time = new DateTimeOffset(2025, 11, 3, 14, 27, 9, TimeSpan.Zero).AddTicks(4418273);
        switch (payload)
        {
            case "small":
                return new MessageEnvelope<Order> { Id = "small-1", Source = "/orders", Type = TestSerializers.OrderType, Time = time, DataContentType = ContentTypes.ApplicationJson, Message = Orders.Create(1) };
            case "unicode":
                return new MessageEnvelope<Order>
                {
                    Id = "ユニコード-😀",
                    Source = "/注文/ë",
                    Type = TestSerializers.OrderType,
                    Time = time,
                    DataContentType = ContentTypes.ApplicationJson,
                    Subject = "件名 \"quoted\" \\ /slash",
                    Message = Orders.Create(20, "顧客 Zoë 😀 \"quotes\" \\back\\ /slash/ \u2028 \t"),
                };
            case "near-limit":
                int limit = path is "sns" or "sns-raw" ? SqsRules.DefaultSnsMaxMessageSize : SqsRules.MaxMessageSize;
                int target = (int)(limit * 0.95);
                int textLength = (format == EnvelopeFormat.Protobuf ? target / 4 * 3 : target) - 400;
                return new MessageEnvelope<string> { Id = "big-1", Source = "/big", Type = TestSerializers.TextType, Time = time, DataContentType = ContentTypes.TextPlain, Message = new string('x', textLength) };
            default:
                var envelope = (MessageEnvelope<Order>)EnvelopeCorpus.Get("every-attribute-and-extension-type");
                return envelope;
        }
    }
}
