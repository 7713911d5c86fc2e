using System;
using System.Collections.Generic;
using System.Text.Json;
using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Configs;
using Missive.Bus;
using Missive.InMemory;
using Missive.Transport;
using Reference = Missive.Tests.Protobuf.Reference;

namespace Missive.Benchmarks;

/// <summary>
/// Reading one received message, as it arrives in an SQS body. Baseline of each body shape: the
/// conventional DOM path (<see cref="ConventionalInbound"/>) on the JSON form of that shape; for the
/// protobuf body it is the conventional read of the same message as a raw JSON body, since the
/// conventional path cannot read protobuf. Missive's reader is built as docs/serializers.md shows a user building it
/// (<see cref="Setup.Inbound"/>). Two floors: System.Text.Json reading the bare payload, and (raw and EventBridge)
/// reading the very bytes of the body into plain classes.
/// </summary>
[MemoryDiagnoser]
[GroupBenchmarksBy(BenchmarkLogicalGroupRule.ByCategory)]
[CategoriesColumn]
public class DeserializeBenchmarks
{
    private SqsMessage _raw = null!;
    private SqsMessage _sns = null!;
    private SqsMessage _eventBridge = null!;
    private SqsMessage _protobuf = null!;
    private SqsMessage _nativeRaw = null!;
    private SqsMessage _nativeTyped = null!;
    private SqsMessage _nativeEventBridge = null!;
    private NativeMessageRules _rules = null!;
    private SqsMessage _massTransit = null!;
    private NativeMessageRules _massTransitRules = null!;
    private SqsMessage _nServiceBus = null!;
    private NativeMessageRules _nServiceBusRules = null!;
    private byte[] _payload = null!;

    public static IEnumerable<int> ItemCountValues => Setup.ItemCounts;

    [ParamsSource(nameof(ItemCountValues))]
    public int ItemCount { get; set; }

    [GlobalSetup]
    public void GlobalSetup()
    {
        MessageEnvelope<OrderPlaced> envelope = Payloads.Envelope(Payloads.Order(ItemCount), Payloads.OrderType);
        envelope.Extensions["traceparent"] = CloudEventAttributeValue.FromString("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
        _payload = JsonSerializer.SerializeToUtf8Bytes(envelope.Message, BenchJsonContext.Default.OrderPlaced);
        var broker = new InMemoryBroker();
        broker.CreateQueue("q");
        broker.CreateTopic("t", maxMessageSize: SqsRules.MaxMessageSize);
        broker.Subscribe("t", "q");
        broker.CreateEventBus("b");
        broker.AddRule("b", "q");
        var writer = new OutboundMessageWriter(Setup.Serializers);
        _raw = Through(broker, () => broker.SendAsync(writer.ToSqs(envelope, "q")));
        _sns = Through(broker, () => broker.PublishAsync(writer.ToSns(envelope, "t")));
        _eventBridge = Through(broker, () => broker.PutEventAsync(writer.ToEventBridge(envelope, "b")));
        _protobuf = Through(broker, () => broker.SendAsync(writer.ToSqs(envelope, "q", Serialization.EnvelopeFormat.Protobuf)));

        // Native messages: the order's own JSON, straight to the queue and as an EventBridge event's detail, read by
        // rules as a mixed queue would have them (an S3 rule tried first, which the order does not match).
        string order = System.Text.Encoding.UTF8.GetString(_payload);
        _nativeRaw = Through(broker, () => broker.SendAsync(new SqsSendRequest { QueueName = "q", Body = order }));
        _nativeTyped = Through(broker, () => broker.SendAsync(new SqsSendRequest { QueueName = "q", Body = order, MessageAttributes = new Dictionary<string, MessageAttributeValue> { [OutboundMessageWriter.MessageTypeAttribute] = MessageAttributeValue.FromString(Payloads.OrderType) } }));
        _nativeEventBridge = Through(broker, () => broker.PutEventAsync(new EventBridgeEntry { EventBusName = "b", Source = "shop.orders", DetailType = "Order Placed", Detail = order }));
        _rules = new NativeMessageRules()
            .WhenMessageAttribute<OrderPlaced>(OutboundMessageWriter.MessageTypeAttribute, Payloads.OrderType)
            .WhenEventBridgeEvent<OrderPlaced>("shop.orders")
            .WhenS3Notification<OrderPlaced>()
            .Otherwise<OrderPlaced>();

        // MassTransit's envelope as MassTransit 8.5.12's own serializer writes it, on a queue that also has S3 notifications.
        byte[] massTransit = Missive.Tests.Interop.MassTransitBodies.Serialize(envelope.Message, c => c.CorrelationId = Guid.NewGuid());
        _massTransit = Through(broker, () => broker.SendAsync(new SqsSendRequest { QueueName = "q", Body = System.Text.Encoding.UTF8.GetString(massTransit) }));
        _massTransitRules = new NativeMessageRules().WhenS3Notification<OrderPlaced>().WhenMassTransit<OrderPlaced>();

        // NServiceBus's wrapped transport message, as its SQS transport writes it (the default encoder escapes '+').
        var headers = new Dictionary<string, string>
        {
            ["NServiceBus.MessageId"] = Guid.NewGuid().ToString(),
            ["NServiceBus.EnclosedMessageTypes"] = typeof(OrderPlaced).AssemblyQualifiedName!,
            ["NServiceBus.ConversationId"] = Guid.NewGuid().ToString(),
            ["NServiceBus.MessageIntent"] = "Publish",
            ["NServiceBus.OriginatingEndpoint"] = "Sales",
            ["NServiceBus.TimeSent"] = "2026-12-01 09:30:00:123456 Z",
            ["NServiceBus.ContentType"] = "application/json",
        };
        string wrapped = JsonSerializer.Serialize(new PlainNServiceBusTransportMessage { Body = _payload, Headers = headers }, BenchJsonContext.Default.PlainNServiceBusTransportMessage);
        _nServiceBus = Through(broker, () => broker.SendAsync(new SqsSendRequest { QueueName = "q", Body = wrapped }));
        _nServiceBusRules = new NativeMessageRules().WhenS3Notification<OrderPlaced>().WhenNServiceBus<OrderPlaced>();
    }

    [Benchmark(Baseline = true, Description = "Floor: JsonSerializer reading the wrapper into plain classes (Body decoded), then the order from Body")]
    [BenchmarkCategory("NServiceBus")]
    public OrderPlaced? NServiceBusFloor()
    {
        PlainNServiceBusTransportMessage wrapper = JsonSerializer.Deserialize(_nServiceBus.Utf8Body.Span, BenchJsonContext.Default.PlainNServiceBusTransportMessage)!;
        return JsonSerializer.Deserialize(wrapper.Body, BenchJsonContext.Default.OrderPlaced);
    }

    [Benchmark(Description = "Missive: NServiceBus wrapped transport message (WhenNServiceBus rule)")]
    [BenchmarkCategory("NServiceBus")]
    public MessageEnvelope? NServiceBusMissive() => Setup.Inbound.Read(_nServiceBus, _nServiceBusRules).Envelope;

    [Benchmark(Baseline = true, Description = "Floor: JsonSerializer reading the same bytes into plain classes, as MassTransit reads them")]
    [BenchmarkCategory("MassTransit")]
    public PlainMassTransitEnvelope<OrderPlaced>? MassTransitFloor() => JsonSerializer.Deserialize(_massTransit.Utf8Body.Span, MassTransitFloorContext.Default.PlainMassTransitEnvelopeOrderPlaced);

    [Benchmark(Description = "Missive: MassTransit envelope (WhenMassTransit rule)")]
    [BenchmarkCategory("MassTransit")]
    public MessageEnvelope? MassTransitMissive() => Setup.Inbound.Read(_massTransit, _massTransitRules).Envelope;

    [Benchmark(Baseline = true, Description = "Floor: JsonSerializer reading the same bytes into plain classes")]
    [BenchmarkCategory("NativeRaw")]
    public OrderPlaced? NativeRawFloor() => JsonSerializer.Deserialize(_nativeRaw.Utf8Body.Span, BenchJsonContext.Default.OrderPlaced);

    [Benchmark(Description = "Missive: native JSON body, its type in a message attribute")]
    [BenchmarkCategory("NativeRaw")]
    public MessageEnvelope? NativeTypedMissive() => Setup.Inbound.Read(_nativeTyped, _rules).Envelope;

    [Benchmark(Description = "Missive: native JSON body, no attribute (rules over the body, mixed queue)")]
    [BenchmarkCategory("NativeRaw")]
    public MessageEnvelope? NativeRawMissive() => Setup.Inbound.Read(_nativeRaw, _rules).Envelope;

    [Benchmark(Baseline = true, Description = "Floor: JsonSerializer reading the same bytes into plain classes")]
    [BenchmarkCategory("NativeEventBridge")]
    public PlainEventBridgeEvent<OrderPlaced>? NativeEventBridgeFloor() => JsonSerializer.Deserialize(_nativeEventBridge.Utf8Body.Span, BenchJsonContext.Default.PlainEventBridgeEventOrderPlaced);

    [Benchmark(Description = "Missive: EventBridge event with a native detail (rules)")]
    [BenchmarkCategory("NativeEventBridge")]
    public MessageEnvelope? NativeEventBridgeMissive() => Setup.Inbound.Read(_nativeEventBridge, _rules).Envelope;

    [Benchmark(Baseline = true, Description = "Standard: raw body")]
    [BenchmarkCategory("Raw")]
    public MessageEnvelope RawConventional() => ConventionalInbound.Read(_raw.Body, Setup.Standard);

    [Benchmark(Description = "Missive: raw body")]
    [BenchmarkCategory("Raw")]
    public MessageEnvelope? RawMissive() => Setup.Inbound.Read(_raw).Envelope;

    [Benchmark(Description = "Floor: JsonSerializer reading the bare payload")]
    [BenchmarkCategory("Raw")]
    public OrderPlaced? RawFloor() => JsonSerializer.Deserialize(_payload, BenchJsonContext.Default.OrderPlaced);

    [Benchmark(Description = "Floor: JsonSerializer reading the same bytes into plain classes")]
    [BenchmarkCategory("Raw")]
    public PlainCloudEvent? RawSameBytesFloor() => JsonSerializer.Deserialize(_raw.Utf8Body.Span, BenchJsonContext.Default.PlainCloudEvent);

    [Benchmark(Baseline = true, Description = "Standard: SNS-wrapped body")]
    [BenchmarkCategory("Sns")]
    public MessageEnvelope SnsConventional() => ConventionalInbound.Read(_sns.Body, Setup.Standard);

    [Benchmark(Description = "Missive: SNS-wrapped body")]
    [BenchmarkCategory("Sns")]
    public MessageEnvelope? SnsMissive() => Setup.Inbound.Read(_sns).Envelope;

    [Benchmark(Description = "Floor: JsonSerializer reading the bare payload")]
    [BenchmarkCategory("Sns")]
    public OrderPlaced? SnsFloor() => JsonSerializer.Deserialize(_payload, BenchJsonContext.Default.OrderPlaced);

    [Benchmark(Baseline = true, Description = "Standard: EventBridge-wrapped body")]
    [BenchmarkCategory("EventBridge")]
    public MessageEnvelope EventBridgeConventional() => ConventionalInbound.Read(_eventBridge.Body, Setup.Standard);

    [Benchmark(Description = "Missive: EventBridge-wrapped body")]
    [BenchmarkCategory("EventBridge")]
    public MessageEnvelope? EventBridgeMissive() => Setup.Inbound.Read(_eventBridge).Envelope;

    [Benchmark(Description = "Floor: JsonSerializer reading the bare payload")]
    [BenchmarkCategory("EventBridge")]
    public OrderPlaced? EventBridgeFloor() => JsonSerializer.Deserialize(_payload, BenchJsonContext.Default.OrderPlaced);

    [Benchmark(Description = "Floor: JsonSerializer reading the same bytes into plain classes")]
    [BenchmarkCategory("EventBridge")]
    public PlainEventBridgeEvent<PlainCloudEvent>? EventBridgeSameBytesFloor() => JsonSerializer.Deserialize(_eventBridge.Utf8Body.Span, BenchJsonContext.Default.PlainEventBridgeEventPlainCloudEvent);

    [Benchmark(Baseline = true, Description = "Standard: raw JSON body of the same message")]
    [BenchmarkCategory("ProtobufBase64")]
    public MessageEnvelope ProtobufBaseline() => ConventionalInbound.Read(_raw.Body, Setup.Standard);

    [Benchmark(Description = "Missive: protobuf base64 body")]
    [BenchmarkCategory("ProtobufBase64")]
    public MessageEnvelope? ProtobufMissive() => Setup.Inbound.Read(_protobuf).Envelope;

    [Benchmark(Description = "Peer: Google.Protobuf parse of the base64 body")]
    [BenchmarkCategory("ProtobufBase64")]
    public OrderPlaced? ProtobufGoogle()
    {
        Reference.CloudEvent ce = Reference.CloudEvent.Parser.ParseFrom(Convert.FromBase64String(_protobuf.Body));
        return JsonSerializer.Deserialize(ce.TextData, BenchJsonContext.Default.OrderPlaced);
    }

    [Benchmark(Description = "Floor: JsonSerializer reading the bare payload")]
    [BenchmarkCategory("ProtobufBase64")]
    public OrderPlaced? ProtobufFloor() => JsonSerializer.Deserialize(_payload, BenchJsonContext.Default.OrderPlaced);

    private static SqsMessage Through(InMemoryBroker broker, Func<System.Threading.Tasks.Task> send)
    {
        send().GetAwaiter().GetResult();
        SqsMessage message = broker.ReceiveAsync("q", 1, TimeSpan.Zero).GetAwaiter().GetResult()[0];
        broker.DeleteAsync("q", message.ReceiptHandle).GetAwaiter().GetResult();
        return message;
    }
}
