using System;
using System.Linq;
using System.Threading.Tasks;
using MassTransit;
using MassTransit.Serialization;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Missive.Bus;
using Missive.InMemory;
using Missive.Tests.Infrastructure;
using Missive.Transport;

namespace Missive.Tests.Interop;

/// <summary>
/// <c>PublishAsMassTransit</c>: what Missive publishes to a queue and to a topic is read by MassTransit 8.5.12's own
/// deserializer with the same values (its message, id, time, source and message type), carries the attributes
/// MassTransit's SQS transport reads, and reads back through <c>WhenMassTransit</c>; what cannot work stops the host.
/// </summary>
public sealed class MassTransitPublishingTests
{
    private static readonly Guid OrderId = Guid.Parse("63276a04-4452-430f-a5df-ae1d31727408");

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task WhatMissivePublishes_MassTransitsOwnDeserializerReads_WithTheSameValues(bool throughTopic)
    {
        using IHost host = BusTestHost.Build(
            broker =>
            {
                broker.CreateQueue("billing");
                broker.CreateTopic("Missive_Tests_Interop-OrderSubmitted");
                broker.Subscribe("Missive_Tests_Interop-OrderSubmitted", "billing", rawMessageDelivery: true); // MassTransit subscribes so
            },
            bus =>
            {
                bus.AddMessageType<OrderSubmitted>("interop.order-submitted")
                    .ConfigureSerialization(o => o.JsonSerializerContext = InteropJsonContext.Default)
                    .PublishAsMassTransit<OrderSubmitted>();
                _ = throughTopic ? bus.AddSnsPublisher<OrderSubmitted>("Missive_Tests_Interop-OrderSubmitted") : bus.AddSqsPublisher<OrderSubmitted>("billing");
            });
        InMemoryBroker broker = host.Services.GetRequiredService<InMemoryBroker>();
        var order = new OrderSubmitted(OrderId, "ada", 42.50m, new DateTimeOffset(2026, 12, 1, 9, 30, 0, TimeSpan.Zero), ["book", "pen"]);

        await host.Services.GetRequiredService<IMessagePublisher>().PublishAsync(order);
        SqsMessage sent = Assert.Single(await broker.ReceiveAsync("billing", 1, TimeSpan.Zero));

        Assert.Equal("application/vnd.masstransit+json", sent.MessageAttributes["Content-Type"].StringValue);
        var deserializer = new SystemTextJsonMessageSerializer();
        SerializerContext context = deserializer.Deserialize(new BytesMessageBody(sent.Utf8Body.ToArray()), EmptyHeaders.Instance, new Uri("loopback://localhost/billing"));
        Assert.True(context.TryGetMessage(out OrderSubmitted? read));
        Assert.Equal((OrderId, "ada", 42.50m, order.SubmittedAt), (read!.OrderId, read.Customer, read.Total, read.SubmittedAt));
        Assert.Equal(["book", "pen"], read.Lines);
        Assert.Contains(MessageUrn.ForTypeString<OrderSubmitted>(), context.SupportedMessageTypes);
        Assert.NotNull(context.MessageId);
        Assert.NotNull(context.SentTime);

        InboundMessage back = TestReader().Read(sent, new NativeMessageRules().WhenMassTransit<OrderSubmitted>());
        var envelope = Assert.IsType<MessageEnvelope<OrderSubmitted>>(back.Envelope);
        Assert.Equal(context.MessageId!.Value.ToString(), envelope.Id);
        Assert.Equal(42.50m, envelope.Message.Total);
    }

    [Fact]
    public async Task ThePublishsTraceContext_TravelsAsMtActivityId()
    {
        using var source = new System.Diagnostics.ActivitySource("tests.masstransit");
        using var listener = new System.Diagnostics.ActivityListener { ShouldListenTo = _ => true, Sample = (ref System.Diagnostics.ActivityCreationOptions<System.Diagnostics.ActivityContext> _) => System.Diagnostics.ActivitySamplingResult.AllDataAndRecorded };
        System.Diagnostics.ActivitySource.AddActivityListener(listener);
        using IHost host = BusTestHost.Build(
            broker => broker.CreateQueue("billing"),
            bus => bus.AddMessageType<OrderSubmitted>("interop.order-submitted")
                .ConfigureSerialization(o => o.JsonSerializerContext = InteropJsonContext.Default)
                .AddSqsPublisher<OrderSubmitted>("billing")
                .PublishAsMassTransit<OrderSubmitted>());
        using System.Diagnostics.Activity parent = source.StartActivity("checkout")!;

        await host.Services.GetRequiredService<IMessagePublisher>().PublishAsync(new OrderSubmitted(OrderId, "ada", 1m, DateTimeOffset.UnixEpoch, []));
        SqsMessage sent = Assert.Single(await host.Services.GetRequiredService<InMemoryBroker>().ReceiveAsync("billing", 1, TimeSpan.Zero));

        Assert.StartsWith($"00-{parent.TraceId}-", sent.MessageAttributes["MT-Activity-Id"].StringValue, StringComparison.Ordinal);
    }

    [Fact]
    public void AnEventBusPublisher_OrNoPublisher_OrBothShapes_StopTheHost_NamingTheFix()
    {
        var services = new ServiceCollection();
        services.AddMessageBus(bus => bus
            .AddMessageType<OrderSubmitted>("interop.order-submitted")
            .AddMessageType<Shipping.Dispatched>("interop.dispatched")
            .AddMessageType<Batch<Shipping.Dispatched>>("interop.batch")
            .ConfigureSerialization(o => o.JsonSerializerContext = InteropJsonContext.Default)
            .AddEventBridgePublisher<OrderSubmitted>("orders-bus")
            .PublishAsMassTransit<OrderSubmitted>()
            .PublishAsMassTransit<Shipping.Dispatched>()
            .AddSqsPublisher<Batch<Shipping.Dispatched>>("q")
            .PublishAsMassTransit<Batch<Shipping.Dispatched>>()
            .PublishWithoutEnvelope<Batch<Shipping.Dispatched>>()
            .UseInMemoryBroker(b => b.CreateQueue("q")));
        using ServiceProvider provider = services.BuildServiceProvider();

        var error = Assert.Throws<MessageBusConfigurationException>(() => provider.GetRequiredService<IMessagePublisher>());

        Assert.Contains("MassTransit reads SQS and SNS, not EventBridge", error.Message, StringComparison.Ordinal);
        Assert.Contains("PublishAsMassTransit<Dispatched>() is set but", error.Message, StringComparison.Ordinal);
        Assert.Contains("is set to PublishWithoutEnvelope and to PublishAsMassTransit", error.Message, StringComparison.Ordinal);
    }

    /// <summary>
    /// MassTransit's ids are GUIDs: an envelope id written as <c>Guid.ToString()</c> writes one is written as it is, any
    /// other form of a GUID as the GUID it names, and an id that is no GUID as a new GUID, in each case what MassTransit's
    /// deserializer reads as the message id.
    /// </summary>
    [Theory]
    [InlineData("63276a04-4452-430f-a5df-ae1d31727408", "63276a04-4452-430f-a5df-ae1d31727408")]
    [InlineData("63276A04-4452-430F-A5DF-AE1D31727408", "63276a04-4452-430f-a5df-ae1d31727408")]
    [InlineData("{63276a04-4452-430f-a5df-ae1d31727408}", "63276a04-4452-430f-a5df-ae1d31727408")]
    [InlineData("63276a0444524-30f-a5df-ae1d31727408", null)] // a digit where a dash belongs
    [InlineData("63276a044452430fa5dfae1d31727408", "63276a04-4452-430f-a5df-ae1d31727408")]
    [InlineData("63276a04-4452-430f-a5df-ae1d3172740g", null)] // a letter beyond f
    [InlineData("63276a04-4452-430f-a5df-ae1d3172-408", null)] // a dash inside the last group
    [InlineData("order-1", null)]
    public void TheEnvelopesId_IsWrittenAsTheGuidItNames_OrANewOne(string id, string? written)
    {
        Missive.Serialization.MessageTypeMap map = new Missive.Serialization.MessageTypeMap(new Missive.Serialization.SerializationOptions { JsonSerializerContext = InteropJsonContext.Default });
        map.Add<OrderSubmitted>("interop.order-submitted");
        var writer = new OutboundMessageWriter(new Missive.Serialization.EnvelopeSerializerProvider(new Missive.Json.Utf8JsonEnvelopeSerializer(map), null));
        var envelope = new MessageEnvelope<OrderSubmitted> { Id = id, Source = "/shop", Type = "interop.order-submitted", Message = new OrderSubmitted(OrderId, "ada", 1m, DateTimeOffset.UnixEpoch, []) };

        string messageId = WrittenId();

        Assert.Equal(written ?? messageId, messageId);
        if (written is null)
        {
            Assert.True(Guid.TryParseExact(messageId, "D", out Guid fresh) && fresh != Guid.Empty);
            Assert.NotEqual(messageId, WrittenId()); // new for each message
        }

        string WrittenId()
        {
            SqsSendRequest request = writer.ToSqsAsMassTransit(envelope, "billing", MessageUrn.ForTypeString<OrderSubmitted>(), null, null);
            using var json = System.Text.Json.JsonDocument.Parse(request.Utf8Body);
            string text = json.RootElement.GetProperty("messageId").GetString()!;
            SerializerContext context = new SystemTextJsonMessageSerializer().Deserialize(new BytesMessageBody(request.Utf8Body.ToArray()), EmptyHeaders.Instance, new Uri("loopback://localhost/billing"));
            Assert.Equal(context.MessageId!.Value.ToString(), text); // what MassTransit reads, in the form it writes
            return text;
        }
    }

    private static InboundMessageReader TestReader()
    {
        Missive.Serialization.MessageTypeMap map = new Missive.Serialization.MessageTypeMap(new Missive.Serialization.SerializationOptions { JsonSerializerContext = InteropJsonContext.Default });
        map.Add<OrderSubmitted>("interop.order-submitted");
        return TestSerializers.Inbound(new Missive.Json.Utf8JsonEnvelopeSerializer(map), null, map.Options);
    }
}
