using System;
using System.Collections.Generic;
using System.Text.Json;
using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Missive.Bus;
using Missive.InMemory;
using Missive.Tests.Infrastructure;
using Missive.Transport;

namespace Missive.Tests.Interop;

/// <summary>
/// <c>PublishAsNServiceBus</c>: what Missive sends is the unwrapped shape NServiceBus's SQS transport reads (its
/// <c>SqsHeadersTranslator</c>: headers as a JSON object of strings in <c>NServiceBus.AmazonSQS.Headers</c>, the id in
/// the <c>NServiceBus.MessageId</c> attribute, the body as it is), with the headers an endpoint needs to dispatch it;
/// it reads back through <c>WhenNServiceBus</c>. NServiceBus is not served, so its side is its source's rules.
/// </summary>
public sealed class NServiceBusPublishingTests
{
    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task WhatMissiveSends_HasTheHeadersAnEndpointDispatchesBy_AndReadsBack(bool throughTopic)
    {
        using IHost host = BusTestHost.Build(
            broker =>
            {
                broker.CreateQueue("shipping");
                broker.CreateTopic("Billing-Messages-OrderBilled");
                broker.Subscribe("Billing-Messages-OrderBilled", "shipping", rawMessageDelivery: true); // NServiceBus subscribes so
            },
            bus =>
            {
                bus.AddMessageType<Shipping.Dispatched>("interop.dispatched")
                    .ConfigureSerialization(o => o.JsonSerializerContext = InteropJsonContext.Default)
                    .PublishAsNServiceBus<Shipping.Dispatched>("Billing.Messages.OrderBilled");
                _ = throughTopic ? bus.AddSnsPublisher<Shipping.Dispatched>("Billing-Messages-OrderBilled") : bus.AddSqsPublisher<Shipping.Dispatched>("shipping");
            });
        InMemoryBroker broker = host.Services.GetRequiredService<InMemoryBroker>();

        await host.Services.GetRequiredService<IMessagePublisher>().PublishAsync(new Shipping.Dispatched("P-7", 3));
        SqsMessage sent = Assert.Single(await broker.ReceiveAsync("shipping", 1, TimeSpan.Zero));

        Assert.Equal("{\"Parcel\":\"P-7\",\"Items\":3}", sent.Body);
        Dictionary<string, string> headers = JsonSerializer.Deserialize<Dictionary<string, string>>(sent.MessageAttributes["NServiceBus.AmazonSQS.Headers"].StringValue!)!;
        Assert.Equal("Billing.Messages.OrderBilled", headers["NServiceBus.EnclosedMessageTypes"]);
        Assert.Equal("application/json", headers["NServiceBus.ContentType"]);
        Assert.Equal(throughTopic ? "Publish" : "Send", headers["NServiceBus.MessageIntent"]);
        Assert.Matches(@"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}:\d{6} Z$", headers["NServiceBus.TimeSent"]);
        Assert.False(headers.ContainsKey("NServiceBus.MessageId")); // the transport sends it as an attribute of its own
        string id = sent.MessageAttributes["NServiceBus.MessageId"].StringValue!;

        InboundMessage back = TestSerializers.Inbound(new Missive.Json.Utf8JsonEnvelopeSerializer(Map()), null, Map().Options)
            .Read(sent, new NativeMessageRules().WhenNServiceBus<Shipping.Dispatched>("Billing.Messages.OrderBilled"));
        var envelope = Assert.IsType<MessageEnvelope<Shipping.Dispatched>>(back.Envelope);
        Assert.Equal(new Shipping.Dispatched("P-7", 3), envelope.Message);
        Assert.Equal(id, envelope.Id);
        Assert.Equal(throughTopic ? "Publish" : "Send", envelope.NServiceBusMetadata!.MessageIntent);
    }

    [Fact]
    public async Task ThePublishsTraceContext_TravelsAsTheTraceparentHeader_AndIsContinuedOnRead()
    {
        using var source = new System.Diagnostics.ActivitySource("tests.nservicebus");
        using var listener = new System.Diagnostics.ActivityListener { ShouldListenTo = _ => true, Sample = (ref System.Diagnostics.ActivityCreationOptions<System.Diagnostics.ActivityContext> _) => System.Diagnostics.ActivitySamplingResult.AllDataAndRecorded };
        System.Diagnostics.ActivitySource.AddActivityListener(listener);
        using IHost host = BusTestHost.Build(
            broker => broker.CreateQueue("shipping"),
            bus => bus.AddMessageType<Shipping.Dispatched>("interop.dispatched")
                .ConfigureSerialization(o => o.JsonSerializerContext = InteropJsonContext.Default)
                .AddSqsPublisher<Shipping.Dispatched>("shipping")
                .PublishAsNServiceBus<Shipping.Dispatched>());
        using System.Diagnostics.Activity parent = source.StartActivity("dispatch")!;

        await host.Services.GetRequiredService<IMessagePublisher>().PublishAsync(new Shipping.Dispatched("P-9", 1));
        SqsMessage sent = Assert.Single(await host.Services.GetRequiredService<InMemoryBroker>().ReceiveAsync("shipping", 1, TimeSpan.Zero));

        Dictionary<string, string> headers = JsonSerializer.Deserialize<Dictionary<string, string>>(sent.MessageAttributes["NServiceBus.AmazonSQS.Headers"].StringValue!)!;
        Assert.StartsWith($"00-{parent.TraceId}-", headers["traceparent"], StringComparison.Ordinal);
        InboundMessage back = TestSerializers.Inbound(new Missive.Json.Utf8JsonEnvelopeSerializer(Map()), null, Map().Options)
            .Read(sent, new NativeMessageRules().WhenNServiceBus<Shipping.Dispatched>());
        Assert.Equal(headers["traceparent"], back.Envelope!.Extensions[CloudEventAttributeNames.TraceParent].AsString());
    }

    [Fact]
    public void ATypeInTwoShapes_OrOnAnEventBus_StopsTheHost()
    {
        var services = new ServiceCollection();
        services.AddMessageBus(bus => bus
            .AddMessageType<OrderSubmitted>("interop.order-submitted")
            .AddMessageType<Shipping.Dispatched>("interop.dispatched")
            .ConfigureSerialization(o => o.JsonSerializerContext = InteropJsonContext.Default)
            .AddSqsPublisher<OrderSubmitted>("q")
            .PublishAsNServiceBus<OrderSubmitted>()
            .PublishAsMassTransit<OrderSubmitted>()
            .AddEventBridgePublisher<Shipping.Dispatched>("bus")
            .PublishAsNServiceBus<Shipping.Dispatched>()
            .UseInMemoryBroker(b => b.CreateQueue("q")));
        using ServiceProvider provider = services.BuildServiceProvider();

        var error = Assert.Throws<MessageBusConfigurationException>(() => provider.GetRequiredService<IMessagePublisher>());

        Assert.Contains("is set to PublishAsMassTransit and to PublishAsNServiceBus", error.Message, StringComparison.Ordinal);
        Assert.Contains("NServiceBus's SQS transport reads SQS and SNS, not EventBridge", error.Message, StringComparison.Ordinal);
    }

    private static Missive.Serialization.MessageTypeMap Map()
    {
        var map = new Missive.Serialization.MessageTypeMap(new Missive.Serialization.SerializationOptions { JsonSerializerContext = InteropJsonContext.Default });
        map.Add<Shipping.Dispatched>("interop.dispatched");
        return map;
    }
}
