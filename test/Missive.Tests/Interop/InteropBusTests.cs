using System;
using System.Collections.Generic;
using System.Linq;
using System.Text;
using System.Text.Json.Nodes;
using System.Threading.Tasks;
using Missive.Bus;
using MassTransit;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Missive.InMemory;
using Missive.Offload;
using Missive.Tests.Infrastructure;
using Missive.Tests.Native;
using Missive.Transport;

namespace Missive.Tests.Interop;

/// <summary>
/// A Missive service on a queue it shares with MassTransit and NServiceBus services, through the poller on the
/// in-memory broker: MassTransit's envelopes as its SQS transport sends them and as its SNS topics deliver them (raw and
/// wrapped), NServiceBus's three shapes, beside Missive's own envelopes; a URN nobody registered dead-lettered as
/// received; a FIFO group kept in order.
/// </summary>
public sealed class InteropBusTests
{
    [Fact]
    public async Task ASharedQueue_HandlesMassTransitsEnvelopesAndMissivesOwn_WithTheMetadataReachingTheHandler()
    {
        var seen = new HandledEnvelopes();
        using IHost host = BusTestHost.Build(
            broker =>
            {
                broker.CreateQueue("billing-dlq");
                broker.CreateQueue("billing", q => { q.DeadLetterQueue = "billing-dlq"; q.MaxReceiveCount = 1; });
                broker.CreateTopic("Missive_Tests_Interop-OrderSubmitted");
                broker.Subscribe("Missive_Tests_Interop-OrderSubmitted", "billing", rawMessageDelivery: true);
                broker.CreateTopic("Missive_Tests_Interop-Shipping_Dispatched");
                broker.Subscribe("Missive_Tests_Interop-Shipping_Dispatched", "billing");
            },
            bus => Register(bus).AddSqsPublisher<Order>("billing").AddQueuePoller("billing", o =>
            {
                o.RetryDelay = TimeSpan.Zero;
                o.NativeMessages.WhenMassTransit<OrderSubmitted>().WhenMassTransit<Shipping.Dispatched>();
            }),
            services => services.AddSingleton(seen));
        InMemoryBroker broker = host.Services.GetRequiredService<InMemoryBroker>();
        Guid correlation = Guid.NewGuid();
        string traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
        await broker.SendAsync(new SqsSendRequest
        {
            QueueName = "billing",
            Body = Text(MassTransitBodies.Serialize(Submitted(1), c => c.CorrelationId = correlation)),
            MessageAttributes = MassTransitAttributes(correlation, traceparent),
        });
        await broker.PublishAsync(new SnsPublishRequest { TopicArn = "Missive_Tests_Interop-OrderSubmitted", Message = Text(MassTransitBodies.Serialize(Submitted(2))) });
        await broker.PublishAsync(new SnsPublishRequest { TopicArn = "Missive_Tests_Interop-Shipping_Dispatched", Message = Text(MassTransitBodies.Serialize(new Shipping.Dispatched("P-3", 3))) });
        string unknown = Text(MassTransitBodies.Serialize(new Batch<int>([1, 2])));
        await broker.SendAsync(new SqsSendRequest { QueueName = "billing", Body = unknown });
        await host.Services.GetRequiredService<IMessagePublisher>().PublishAsync(Orders.Create(4));

        await host.StartAsync();
        await BusTestHost.WaitUntil(() => seen.Count == 4 && broker.GetQueue("billing").Count == 0 && broker.GetQueue("billing-dlq").Count == 1);
        await host.StopAsync();

        MessageEnvelope<OrderSubmitted>[] orders = [.. seen.All.OfType<MessageEnvelope<OrderSubmitted>>().OrderBy(e => e.Message.Total)];
        Assert.Equal([1m, 2m], orders.Select(o => o.Message.Total));
        Assert.Equal(correlation, orders[0].MassTransitMetadata!.CorrelationId);
        Assert.Equal(traceparent, orders[0].Extensions[CloudEventAttributeNames.TraceParent].AsString());
        Assert.Null(orders[1].SnsMetadata); // raw delivery: the envelope as MassTransit published it
        var dispatched = seen.Single<Shipping.Dispatched>();
        Assert.Equal("P-3", dispatched.Message.Parcel);
        Assert.NotNull(dispatched.SnsMetadata); // delivered wrapped: unwrapped first
        Assert.False(seen.Single<Order>().IsNative);
        Assert.Equal(unknown, broker.GetQueue("billing-dlq").PeekBodies().Single()); // as it was received
    }

    [Fact]
    public async Task AFifoGroupOfMassTransitEnvelopes_IsHandledInOrder()
    {
        var seen = new HandledEnvelopes();
        using IHost host = BusTestHost.Build(
            broker => broker.CreateQueue("billing.fifo"),
            bus => Register(bus).AddQueuePoller("billing.fifo", o =>
            {
                o.MaxConcurrency = 8;
                o.NativeMessages.WhenMassTransit<OrderSubmitted>();
            }),
            services => services.AddSingleton(seen));
        InMemoryBroker broker = host.Services.GetRequiredService<InMemoryBroker>();
        for (int i = 1; i <= 20; i++)
        {
            await broker.SendAsync(new SqsSendRequest { QueueName = "billing.fifo", Body = Text(MassTransitBodies.Serialize(Submitted(i))), MessageGroupId = i % 2 == 0 ? "even" : "odd", MessageDeduplicationId = "d" + i });
        }

        await host.StartAsync();
        await BusTestHost.WaitUntil(() => seen.Count == 20);
        await host.StopAsync();

        decimal[] handled = [.. seen.All.OfType<MessageEnvelope<OrderSubmitted>>().Select(e => e.Message.Total)];
        Assert.Equal(Enumerable.Range(1, 10).Select(i => (decimal)(2 * i)), handled.Where(t => t % 2 == 0));
        Assert.Equal(Enumerable.Range(0, 10).Select(i => (decimal)((2 * i) + 1)), handled.Where(t => t % 2 == 1));
    }

    [Fact]
    public async Task AQueueOfAllFourFormats_HandlesEach_ByTheTypeItNames()
    {
        var seen = new HandledEnvelopes();
        using IHost host = BusTestHost.Build(
            broker => broker.CreateQueue("shared"),
            bus => Register(bus).AddSqsPublisher<Order>("shared").AddQueuePoller("shared", o => o.NativeMessages
                .WhenMassTransit<OrderSubmitted>()
                .WhenNServiceBus<Shipping.Dispatched>()
                .WhenS3Notification<Order>()),
            services => services.AddSingleton(seen));
        InMemoryBroker broker = host.Services.GetRequiredService<InMemoryBroker>();
        string fullName = typeof(Shipping.Dispatched).FullName + ", Missive.Tests";
        string headers = "{\"NServiceBus.EnclosedMessageTypes\":\"" + fullName + "\",\"NServiceBus.MessageId\":\"nsb-2\"}";
        await broker.SendAsync(new SqsSendRequest { QueueName = "shared", Body = Text(MassTransitBodies.Serialize(Submitted(1))) });
        await broker.SendAsync(new SqsSendRequest { QueueName = "shared", Body = "{\"Body\":\"" + Convert.ToBase64String(Encoding.UTF8.GetBytes("{\"Parcel\":\"wrapped\",\"Items\":1}")) + "\",\"S3BodyKey\":null,\"Headers\":" + headers + "}" });
        await broker.SendAsync(new SqsSendRequest { QueueName = "shared", Body = "{\"Parcel\":\"unwrapped\",\"Items\":2}", MessageAttributes = new Dictionary<string, MessageAttributeValue> { ["NServiceBus.AmazonSQS.Headers"] = MessageAttributeValue.FromString(headers.Replace("nsb-2", "nsb-3", StringComparison.Ordinal)) } });
        await broker.SendAsync(new SqsSendRequest { QueueName = "shared", Body = "{\"Parcel\":\"native\",\"Items\":3}", MessageAttributes = new Dictionary<string, MessageAttributeValue> { ["MessageTypeFullName"] = MessageAttributeValue.FromString(typeof(Shipping.Dispatched).FullName!) } });
        await host.Services.GetRequiredService<IMessagePublisher>().PublishAsync(Orders.Create(5));

        await host.StartAsync();
        await BusTestHost.WaitUntil(() => seen.Count == 5);
        await host.StopAsync();

        Assert.Equal(1m, seen.Single<OrderSubmitted>().Message.Total);
        Assert.Equal(["native", "unwrapped", "wrapped"], seen.All.OfType<MessageEnvelope<Shipping.Dispatched>>().Select(e => e.Message.Parcel).Order());
        Assert.Contains(seen.All, e => e.Id == "nsb-2" && e.NServiceBusMetadata is not null);
        Assert.False(seen.Single<Order>().IsNative);
        Assert.Equal(0, broker.GetQueue("shared").Count);
    }

    [Fact]
    public async Task AnNServiceBusBodyInS3_IsFetchedByThePayloadOffload_AndHandled()
    {
        var seen = new HandledEnvelopes();
        var store = new InMemoryPayloadStore("nsb-large-messages");
        byte[] large = Encoding.UTF8.GetBytes("{\"Parcel\":\"large\",\"Items\":4}");
        PayloadLocation stored = await store.PutAsync(large);
        using IHost host = BusTestHost.Build(
            broker => broker.CreateQueue("shared"),
            bus => Register(bus)
                .AddQueuePoller("shared", o => o.NativeMessages.WhenNServiceBus<Shipping.Dispatched>())
                .UsePayloadOffload(o => o.NServiceBusBucket = "nsb-large-messages"),
            services => services.AddSingleton(seen).AddSingleton<IPayloadStore>(store));
        string headers = "{\"NServiceBus.EnclosedMessageTypes\":\"" + typeof(Shipping.Dispatched).FullName + "\",\"NServiceBus.MessageId\":\"nsb-large\"}";
        await host.Services.GetRequiredService<InMemoryBroker>().SendAsync(new SqsSendRequest { QueueName = "shared", Body = "{\"Body\":\"empty message\",\"S3BodyKey\":\"" + stored.Key + "\",\"Headers\":" + headers + "}" });

        await host.StartAsync();
        await BusTestHost.WaitUntil(() => seen.Count == 1);
        await host.StopAsync();

        MessageEnvelope<Shipping.Dispatched> envelope = seen.Single<Shipping.Dispatched>();
        Assert.Equal(("large", 4), (envelope.Message.Parcel, envelope.Message.Items));
        Assert.Equal("nsb-large", envelope.Id);
        Assert.Equal(large, (await store.GetAsync(stored, 1024)).ToArray()); // an endpoint's object: never deleted by Missive
    }

    [Fact]
    public async Task TheLambdaProcessor_ReadsBothBusesRecords_AndReportsOnlyTheOneNoRuleNames()
    {
        var seen = new HandledEnvelopes();
        var services = new ServiceCollection();
        services.AddSingleton(seen);
        services.AddMessageBus(bus => Register(bus)
            .AddMessageType<Order>(TestSerializers.OrderType)
            .ConfigureLambdaProcessor(o => o.NativeMessages.WhenMassTransit<OrderSubmitted>().WhenNServiceBus<Shipping.Dispatched>()));
        await using ServiceProvider provider = services.BuildServiceProvider();
        var typeAttribute = new JsonObject { ["MessageTypeFullName"] = new JsonObject { ["stringValue"] = typeof(Shipping.Dispatched).FullName, ["dataType"] = "String" } };
        var records = new JsonArray(
            Record("m-mt", Text(MassTransitBodies.Serialize(Submitted(7))), new JsonObject()),
            Record("m-nsb", "{\"Parcel\":\"P-8\",\"Items\":8}", typeAttribute),
            Record("m-unknown", Text(MassTransitBodies.Serialize(new Batch<int>([1]))), new JsonObject()));

        Missive.Lambda.SqsBatchResponse response = await provider.GetRequiredService<Missive.Lambda.SqsEventProcessor>().ProcessAsync(Encoding.UTF8.GetBytes(new JsonObject { ["Records"] = records }.ToJsonString()));

        Assert.Equal(["m-unknown"], response.BatchItemFailures.Select(f => f.ItemIdentifier));
        Assert.Equal(7m, seen.Single<OrderSubmitted>().Message.Total);
        Assert.Equal("P-8", seen.Single<Shipping.Dispatched>().Message.Parcel);
    }

    private static JsonObject Record(string id, string body, JsonObject attributes) => new()
    {
        ["messageId"] = id,
        ["receiptHandle"] = "handle-" + id,
        ["body"] = body,
        ["attributes"] = new JsonObject { ["ApproximateReceiveCount"] = "1", ["SentTimestamp"] = "1545082649183" },
        ["messageAttributes"] = attributes,
        ["md5OfBody"] = "",
        ["eventSource"] = "aws:sqs",
        ["eventSourceARN"] = "arn:aws:sqs:us-east-2:123456789012:billing",
        ["awsRegion"] = "us-east-2",
    };

    private static OrderSubmitted Submitted(int total) => new(Guid.NewGuid(), "ada", total, DateTimeOffset.UnixEpoch, []);

    private static string Text(byte[] body) => Encoding.UTF8.GetString(body);

    /// <summary>The attributes MassTransit's SQS transport sets (its transport's source: Content-Type, CorrelationId, MT-Activity-Id when sampled).</summary>
    private static Dictionary<string, MessageAttributeValue> MassTransitAttributes(Guid correlation, string traceparent) => new()
    {
        ["Content-Type"] = MessageAttributeValue.FromString("application/vnd.masstransit+json"),
        ["CorrelationId"] = MessageAttributeValue.FromString(correlation.ToString()),
        ["MT-Activity-Id"] = MessageAttributeValue.FromString(traceparent),
    };

    private static MessageBusBuilder Register(MessageBusBuilder bus) => bus
        .AddMessageType<OrderSubmitted>("interop.order-submitted")
        .AddMessageType<Shipping.Dispatched>("interop.dispatched")
        .ConfigureSerialization(o => o.JsonSerializerContext = InteropJsonContext.Default)
        .AddHandler<Order, EnvelopeRecorder<Order>>()
        .AddHandler<OrderSubmitted, EnvelopeRecorder<OrderSubmitted>>()
        .AddHandler<Shipping.Dispatched, EnvelopeRecorder<Shipping.Dispatched>>();
}
