using Microsoft.Extensions.Time.Testing;
using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Missive.Bus;
using Missive.InMemory;
using Missive.Serialization;
using Missive.Tests.Infrastructure;
using Missive.Transport;

namespace Missive.Tests.Bus;

/// <summary>
/// A delivery delay and message attributes on a publish (<see cref="PublishOptions.Delay"/>,
/// <see cref="PublishOptions.MessageAttributes"/>), as SQS's SendMessage and SNS's Publish take them, and refused where
/// the service does not take them, before anything is sent.
/// </summary>
public sealed class PublishDeliveryOptionsTests
{
    private static readonly DateTimeOffset Start = new(2025, 11, 3, 14, 27, 9, TimeSpan.Zero);

    [Fact]
    public async Task ADelayedMessage_IsInvisibleUntilItsDelayPasses()
    {
        var time = new FakeTimeProvider(Start);
        using IHost host = BusTestHost.Build(b => b.CreateQueue("orders"), bus => bus.AddSqsPublisher<Order>("orders"), s => s.AddSingleton<TimeProvider>(time));
        InMemoryBroker broker = host.Services.GetRequiredService<InMemoryBroker>();

        await host.Services.GetRequiredService<IMessagePublisher>().PublishAsync(Orders.Create(1), new PublishOptions { Delay = TimeSpan.FromSeconds(30) });

        Assert.Empty(await broker.ReceiveAsync("orders", 10, TimeSpan.Zero));
        time.Advance(TimeSpan.FromSeconds(29));
        Assert.Empty(await broker.ReceiveAsync("orders", 10, TimeSpan.Zero));
        time.Advance(TimeSpan.FromSeconds(1));
        Assert.Single(await broker.ReceiveAsync("orders", 10, TimeSpan.Zero));
    }

    [Theory]
    [InlineData("sqs", "json")]
    [InlineData("sqs", "protobuf")]
    [InlineData("sns", "json")]
    [InlineData("sns", "protobuf")]
    public async Task MessageAttributes_ReachTheQueue_BesideMissivesOwn_AndTheHandlerReadsThem(string route, string format)
    {
        using IHost host = BusTestHost.Build(
            b =>
            {
                b.CreateQueue("orders");
                b.CreateTopic("orders-topic");
                b.Subscribe("orders-topic", "orders", rawMessageDelivery: true);
            },
            bus =>
            {
                bus.EnableExperimentalFeatures();
                _ = route == "sqs" ? bus.AddSqsPublisher<Order>("orders") : bus.AddSnsPublisher<Order>("orders-topic");
            });
        InMemoryBroker broker = host.Services.GetRequiredService<InMemoryBroker>();
        var options = new PublishOptions
        {
            Format = format == "protobuf" ? EnvelopeFormat.Protobuf : EnvelopeFormat.Json,
            MessageAttributes = new Dictionary<string, MessageAttributeValue>
            {
                ["tenant"] = MessageAttributeValue.FromString("acme"),
                ["priority"] = new MessageAttributeValue { DataType = "Number", StringValue = "7" },
            },
        };

        await host.Services.GetRequiredService<IMessagePublisher>().PublishAsync(Orders.Create(1), options);

        SqsMessage received = Assert.Single(await broker.ReceiveAsync("orders", 10, TimeSpan.Zero));
        Assert.Equal("acme", received.MessageAttributes["tenant"].StringValue);
        Assert.Equal("Number", received.MessageAttributes["priority"].DataType);
        Assert.Equal(format == "protobuf", received.MessageAttributes.ContainsKey("contentType"));
        MessageEnvelope envelope = host.Services.GetRequiredService<InboundMessageReader>().Read(received).Envelope!;
        Assert.Equal("acme", envelope.SqsMetadata!.MessageAttributes["tenant"].StringValue);
        Assert.IsType<MessageEnvelope<Order>>(envelope);
    }

    public static TheoryData<string, string> Refused => new()
    {
        { "delay to a topic", "is for SQS queues" },
        { "delay to a bus", "is for SQS queues" },
        { "delay to a FIFO queue", "no per-message delay on FIFO queues" },
        { "delay over 15 minutes", "from zero to 15 minutes" },
        { "negative delay", "from zero to 15 minutes" },
        { "attributes to a bus", "carries none" },
        { "attribute named contentType", "which Missive sets" },
        { "attribute name of AWS", "must not start with 'AWS.'" },
        { "attribute without a value", "has no value" },
        { "eleven attributes", "at most 10" },
        { "SNS subject to a queue", "PublishOptions.SnsSubject is the Subject of an SNS message; 'orders' is an SQS queue" },
        { "SNS subject to a bus", "'orders-bus' is an EventBridge bus, which has none" },
    };

    [Theory]
    [MemberData(nameof(Refused))]
    public async Task OptionsTheServiceDoesNotTake_AreRefusedBeforeAnythingIsSent(string mistake, string message)
    {
        using IHost host = BusTestHost.Build(
            b =>
            {
                b.CreateQueue("orders");
                b.CreateQueue("orders.fifo", o =>
                {
                    o.Fifo = true;
                    o.ContentBasedDeduplication = true;
                });
                b.CreateTopic("orders-topic");
                b.Subscribe("orders-topic", "orders", rawMessageDelivery: true);
                b.CreateEventBus("orders-bus");
                b.AddRule("orders-bus", "orders");
            },
            bus =>
            {
                Action<MessageBusBuilder> route = mistake switch
                {
                    "delay to a topic" => b => b.AddSnsPublisher<Order>("orders-topic"),
                    "delay to a bus" or "attributes to a bus" or "SNS subject to a bus" => b => b.AddEventBridgePublisher<Order>("orders-bus"),
                    "delay to a FIFO queue" => b => b.AddSqsPublisher<Order>("orders.fifo").AddFifoIds<Order>(o => o.OrderId),
                    _ => b => b.AddSqsPublisher<Order>("orders"),
                };
                route(bus);
            });
        var attributes = new Dictionary<string, MessageAttributeValue>();
        var options = new PublishOptions();
        switch (mistake)
        {
            case "delay over 15 minutes":
                options.Delay = TimeSpan.FromMinutes(16);
                break;
            case "negative delay":
                options.Delay = TimeSpan.FromSeconds(-1);
                break;
            case "attributes to a bus":
                attributes["tenant"] = MessageAttributeValue.FromString("acme");
                options.MessageAttributes = attributes;
                break;
            case "attribute named contentType":
                attributes["contentType"] = MessageAttributeValue.FromString("text/plain");
                options.MessageAttributes = attributes;
                break;
            case "attribute name of AWS":
                attributes["AWS.tenant"] = MessageAttributeValue.FromString("acme");
                options.MessageAttributes = attributes;
                break;
            case "attribute without a value":
                attributes["tenant"] = null!;
                options.MessageAttributes = attributes;
                break;
            case "SNS subject to a queue" or "SNS subject to a bus":
                options.SnsSubject = "Order placed";
                break;
            case "eleven attributes":
                for (int i = 0; i < 11; i++)
                {
                    attributes["a" + i] = MessageAttributeValue.FromString("v");
                }

                options.MessageAttributes = attributes;
                break;
            default:
                options.Delay = TimeSpan.FromSeconds(5);
                break;
        }

        ArgumentException error = await Assert.ThrowsAnyAsync<ArgumentException>(() => host.Services.GetRequiredService<IMessagePublisher>().PublishAsync(Orders.Create(1), options));

        Assert.Contains(message, error.Message, StringComparison.Ordinal);
        InMemoryBroker broker = host.Services.GetRequiredService<InMemoryBroker>();
        Assert.Empty(await broker.ReceiveAsync("orders", 10, TimeSpan.Zero));
        Assert.Empty(await broker.ReceiveAsync("orders.fifo", 10, TimeSpan.Zero));
    }

    [Fact]
    public async Task PutEvents_OnATransportWithoutABatchCall_PutsEachEvent_AndKeepsEachFailureOnItsEntry()
    {
        IMessageTransport transport = new OneEventAtATime();
        EventBridgeEntry Entry(string bus) => new() { EventBusName = bus, Source = "/s", DetailType = "t", Detail = "{}" };

        IReadOnlyList<BatchEntryResult> results = await transport.PutEventBatchAsync([Entry("a"), Entry("missing"), Entry("b")]);

        Assert.Equal([0, 1, 2], [results[0].Index, results[1].Index, results[2].Index]);
        Assert.Equal("event-a", results[0].MessageId);
        Assert.False(results[1].Succeeded);
        Assert.Equal("ResourceNotFoundException", results[1].ErrorCode);
        Assert.Equal("event-b", results[2].MessageId);
    }

    [Fact]
    public async Task PutEvents_OnTheInMemoryBroker_DeliversEveryEventToItsRules()
    {
        var broker = new InMemoryBroker();
        broker.CreateQueue("q");
        broker.CreateEventBus("b");
        broker.AddRule("b", "q");

        IReadOnlyList<BatchEntryResult> results = await ((IMessageTransport)broker).PutEventBatchAsync(
        [
            new EventBridgeEntry { EventBusName = "b", Source = "/s", DetailType = "t", Detail = "{\"n\":1}" },
            new EventBridgeEntry { EventBusName = "b", Source = "/s", DetailType = "t", Detail = "{\"n\":2}" },
        ]);

        Assert.True(results[0].Succeeded && results[1].Succeeded);
        Assert.Equal(2, (await broker.ReceiveAsync("q", 10, TimeSpan.Zero)).Count);
    }

    /// <summary>A transport with no batch calls of its own: every batch goes through the interface's one-by-one default.</summary>
    private sealed class OneEventAtATime : IMessageTransport
    {
        public Task<string> PutEventAsync(EventBridgeEntry entry, CancellationToken cancellationToken = default)
            => entry.EventBusName == "missing"
                ? throw new MessageTransportException("No such bus.") { ErrorCode = "ResourceNotFoundException" }
                : Task.FromResult("event-" + entry.EventBusName);

        public Task<string> SendAsync(SqsSendRequest request, CancellationToken cancellationToken = default) => throw new NotSupportedException();

        public Task<string> PublishAsync(SnsPublishRequest request, CancellationToken cancellationToken = default) => throw new NotSupportedException();

        public Task<IReadOnlyList<SqsMessage>> ReceiveAsync(string queueName, int maxMessages, TimeSpan waitTime, TimeSpan? visibilityTimeout = null, CancellationToken cancellationToken = default) => throw new NotSupportedException();

        public Task<bool> DeleteAsync(string queueName, string receiptHandle, CancellationToken cancellationToken = default) => throw new NotSupportedException();

        public Task<bool> ChangeVisibilityAsync(string queueName, string receiptHandle, TimeSpan visibilityTimeout, CancellationToken cancellationToken = default) => throw new NotSupportedException();
    }
}
