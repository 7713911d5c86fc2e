using System;
using System.Collections.Concurrent;
using System.Linq;
using System.Text.Json;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Missive.Bus;
using Missive.InMemory;
using Missive.Tests.Infrastructure;
using Missive.Transport;

namespace Missive.Tests.Native;

/// <summary>
/// Publishing without an envelope: the body is the message's JSON with its type in the <c>MessageType</c> attribute (SQS,
/// SNS) or as the <c>detail-type</c> (EventBridge), and a Missive consumer with native rules reads each back as its type.
/// </summary>
public sealed class NativePublishingTests
{
    [Fact]
    public async Task TheBody_IsTheMessagesJsonAlone_WithItsTypeInAnAttribute_OnEveryDestination()
    {
        using IHost host = BusTestHost.Build(
            Topology,
            bus => bus.AddMessageType<Ec2StateChange>(AwsEvents.Ec2Type)
                .AddMessageType<CloudWatchAlarm>(AwsEvents.AlarmType)
                .AddSqsPublisher<Order>("orders")
                .AddSnsPublisher<CloudWatchAlarm>("alarms")
                .AddEventBridgePublisher<Ec2StateChange>("aws")
                .PublishWithoutEnvelope<Order>()
                .PublishWithoutEnvelope<CloudWatchAlarm>()
                .PublishWithoutEnvelope<Ec2StateChange>()
                .UseMessageSource("/tests/native"));
        InMemoryBroker broker = host.Services.GetRequiredService<InMemoryBroker>();
        IMessagePublisher publisher = host.Services.GetRequiredService<IMessagePublisher>();

        await publisher.PublishAsync(Orders.Create(1));
        await publisher.PublishAsync(new CloudWatchAlarm { AlarmName = "cpu", NewStateValue = "ALARM", OldStateValue = "OK" });
        await publisher.PublishAsync(new Ec2StateChange { InstanceId = "i-1", State = "running" });

        SqsMessage order = (await broker.ReceiveAsync("orders", 1, TimeSpan.Zero)).Single();
        Assert.Equal(JsonSerializer.Serialize(Orders.Create(1), TestJsonContext.Default.Order), order.Body);
        Assert.Equal(TestSerializers.OrderType, order.MessageAttributes["MessageType"].StringValue);

        SqsMessage raw = (await broker.ReceiveAsync("alarms-raw", 1, TimeSpan.Zero)).Single();
        Assert.Equal("{\"AlarmName\":\"cpu\",\"NewStateValue\":\"ALARM\",\"OldStateValue\":\"OK\"}", raw.Body);
        Assert.Equal(AwsEvents.AlarmType, raw.MessageAttributes["MessageType"].StringValue);

        SqsMessage wrapped = (await broker.ReceiveAsync("alarms-wrapped", 1, TimeSpan.Zero)).Single();
        using (JsonDocument notification = JsonDocument.Parse(wrapped.Body))
        {
            Assert.Equal("{\"AlarmName\":\"cpu\",\"NewStateValue\":\"ALARM\",\"OldStateValue\":\"OK\"}", notification.RootElement.GetProperty("Message").GetString());
            Assert.Equal(AwsEvents.AlarmType, notification.RootElement.GetProperty("MessageAttributes").GetProperty("MessageType").GetProperty("Value").GetString());
        }

        SqsMessage ec2 = (await broker.ReceiveAsync("events", 1, TimeSpan.Zero)).Single();
        using (JsonDocument evt = JsonDocument.Parse(ec2.Body))
        {
            Assert.Equal(AwsEvents.Ec2Type, evt.RootElement.GetProperty("detail-type").GetString());
            Assert.Equal("/tests/native", evt.RootElement.GetProperty("source").GetString());
            Assert.Equal("{\"instance-id\":\"i-1\",\"state\":\"running\"}", evt.RootElement.GetProperty("detail").GetRawText());
        }
    }

    [Fact]
    public async Task AMissiveConsumerWithRules_ReadsEachBackAsItsType()
    {
        var seen = new HandledEnvelopes();
        using IHost host = BusTestHost.Build(
            Topology,
            bus =>
            {
                bus.AddMessageType<Ec2StateChange>(AwsEvents.Ec2Type)
                    .AddMessageType<CloudWatchAlarm>(AwsEvents.AlarmType)
                    .AddSqsPublisher<Order>("orders")
                    .AddSnsPublisher<CloudWatchAlarm>("alarms")
                    .AddEventBridgePublisher<Ec2StateChange>("aws")
                    .PublishWithoutEnvelope<Order>()
                    .PublishWithoutEnvelope<CloudWatchAlarm>()
                    .PublishWithoutEnvelope<Ec2StateChange>()
                    .UseMessageSource("/tests/native")
                    .AddHandler<Order, EnvelopeRecorder<Order>>()
                    .AddHandler<CloudWatchAlarm, EnvelopeRecorder<CloudWatchAlarm>>()
                    .AddHandler<Ec2StateChange, EnvelopeRecorder<Ec2StateChange>>();
                foreach (string queue in new[] { "orders", "alarms-raw", "alarms-wrapped", "events" })
                {
                    bus.AddQueuePoller(queue, o => o.NativeMessages
                        .WhenMessageAttribute<Order>(OutboundMessageWriter.MessageTypeAttribute, TestSerializers.OrderType)
                        .WhenMessageAttribute<CloudWatchAlarm>(OutboundMessageWriter.MessageTypeAttribute, AwsEvents.AlarmType)
                        .WhenEventBridgeEvent<Ec2StateChange>("/tests/native", AwsEvents.Ec2Type));
                }
            },
            services => services.AddSingleton(seen));
        await host.StartAsync();
        IMessagePublisher publisher = host.Services.GetRequiredService<IMessagePublisher>();

        await publisher.PublishAsync(Orders.Create(2));
        await publisher.PublishAsync(new CloudWatchAlarm { AlarmName = "cpu", NewStateValue = "ALARM" });
        await publisher.PublishAsync(new Ec2StateChange { InstanceId = "i-1", State = "running" });
        await BusTestHost.WaitUntil(() => seen.Count == 4);
        await host.StopAsync();

        Assert.All(seen.All, e => Assert.True(e.IsNative));
        Assert.Equal(2, seen.All.OfType<MessageEnvelope<Order>>().Single().Message.Lines.Count);
        Assert.Equal(2, seen.All.OfType<MessageEnvelope<CloudWatchAlarm>>().Count(e => e.Message.AlarmName == "cpu")); // raw and wrapped
        Assert.Equal("running", seen.All.OfType<MessageEnvelope<Ec2StateChange>>().Single().Message.State);
    }

    [Fact]
    public void PublishingWithoutAnEnvelope_ATypeWithoutAPublisher_StopsTheHost()
    {
        using IHost host = BusTestHost.Build(_ => { }, bus => bus.PublishWithoutEnvelope<Order>());

        var error = Assert.Throws<MessageBusConfigurationException>(() => host.Services.GetRequiredService<IMessagePublisher>());

        Assert.Contains("PublishWithoutEnvelope<Order>() is set but", error.Message, StringComparison.Ordinal);
    }

    private static void Topology(InMemoryBroker broker)
    {
        broker.CreateQueue("orders");
        broker.CreateQueue("alarms-raw");
        broker.CreateQueue("alarms-wrapped");
        broker.CreateQueue("events");
        broker.CreateTopic("alarms");
        broker.Subscribe("alarms", "alarms-raw", rawMessageDelivery: true);
        broker.Subscribe("alarms", "alarms-wrapped");
        broker.CreateEventBus("aws");
        broker.AddRule("aws", "events");
    }
}
