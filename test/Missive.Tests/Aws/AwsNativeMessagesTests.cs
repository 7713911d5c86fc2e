using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Diagnostics;
using System.Linq;
using System.Text.Json;
using System.Text.Json.Nodes;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Missive.Aws;
using Missive.Bus;
using Missive.Tests.Infrastructure;
using Missive.Tests.Native;
using Missive.Transport;

namespace Missive.Tests.Aws;

/// <summary>
/// Native messages on the local endpoint (fauxqs behind the signature-checking proxy), on both SQS clients: AWS's
/// documented bodies as S3 and EventBridge deliver them (sent to the queue as they would be), an SES bounce through an
/// SNS topic, and an envelope, on one queue; and messages published without an envelope, read by the AWS SDK for
/// JavaScript as a foreign consumer would read them.
/// </summary>
[Collection(AwsEmulatorCollection.Name)]
public sealed class AwsNativeMessagesTests(AwsEmulatorFixture fixture)
{
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(60);

    private AwsEmulator Emulator => fixture.Emulator;

    [EmulatorTheory]
    [InlineData(AwsTransportSqsTests.BuiltIn)]
    [InlineData(AwsTransportSqsTests.Sdk)]
    public async Task AMixedQueue_OnTheLocalEndpoint_HandlesEachBodyByItsTypeOnce(string client)
    {
        string name = AwsTransportSqsTests.NewName("native");
        string queue = name + "-inbox";
        await Emulator.CreateQueueAsync(queue);
        string topicArn = await Emulator.CreateTopicAsync(name + "-ses");
        await Emulator.SubscribeAsync(topicArn, queue);
        var seen = new HandledEnvelopes();
        HostApplicationBuilder builder = Host.CreateApplicationBuilder();
        builder.Logging.ClearProviders();
        builder.Services.AddSingleton(seen);
        builder.Services.AddMessageBus(bus => bus
            .AddMessageType<Order>(TestSerializers.OrderType)
            .AddMessageType<S3EventNotification>(AwsEvents.S3Type)
            .AddMessageType<Ec2StateChange>(AwsEvents.Ec2Type)
            .AddMessageType<SesNotification>(AwsEvents.SesType)
            .ConfigureSerialization(o => o.JsonSerializerContext = TestJsonContext.Default)
            .AddSqsPublisher<Order>(queue)
            .AddHandler<Order, EnvelopeRecorder<Order>>()
            .AddHandler<S3EventNotification, EnvelopeRecorder<S3EventNotification>>()
            .AddHandler<Ec2StateChange, EnvelopeRecorder<Ec2StateChange>>()
            .AddHandler<SesNotification, EnvelopeRecorder<SesNotification>>()
            .AddQueuePoller(queue, o =>
            {
                o.WaitTime = TimeSpan.FromSeconds(1);
                o.NativeMessages
                    .WhenEventBridgeEvent<Ec2StateChange>("aws.ec2")
                    .WhenS3Notification<S3EventNotification>("ObjectCreated:")
                    .When<SesNotification>(static (body, _) => body.IndexOf("\"notificationType\""u8) >= 0, "an SES notification");
            })
            .UseAws(o =>
            {
                Emulator.Apply(o);
                o.SqsClient = client == AwsTransportSqsTests.Sdk ? Emulator.CreateSqsClient() : null;
            }));
        using IHost host = builder.Build();
        using (AwsTransport transport = Emulator.CreateTransport())
        {
            await transport.SendAsync(new SqsSendRequest { QueueName = queue, Body = AwsEvents.Body("s3-test-event.json") });
            await transport.SendAsync(new SqsSendRequest { QueueName = queue, Body = AwsEvents.Body("s3-object-created-put.json") });
            await transport.SendAsync(new SqsSendRequest { QueueName = queue, Body = AwsEvents.Body("eventbridge-ec2-state-change.json") });
            await transport.PublishAsync(new SnsPublishRequest { TopicArn = topicArn, Message = AwsEvents.Body("ses-bounce.json"), Subject = "Amazon SES Email Event Notification" });
        }

        await host.StartAsync();
        await host.Services.GetRequiredService<IMessagePublisher>().PublishAsync(Orders.Create(1));
        var watch = Stopwatch.StartNew();
        while (seen.Count < 4 && watch.Elapsed < Patience)
        {
            await Task.Delay(50);
        }

        await Task.Delay(1500); // anything handled twice would show up by now
        await host.StopAsync();

        Assert.Equal(4, seen.Count);
        Assert.Equal("HappyFace.jpg", seen.All.OfType<MessageEnvelope<S3EventNotification>>().Single().Message.Records[0].S3.Object.Key);
        MessageEnvelope<Ec2StateChange> ec2 = seen.All.OfType<MessageEnvelope<Ec2StateChange>>().Single();
        Assert.Equal(("7bf73129-1428-4cd3-a780-95db273d1602", "aws.ec2"), (ec2.Id, ec2.Source));
        Assert.NotNull(ec2.SqsMetadata!.SentTimestamp); // asked for on every receive, on both clients
        MessageEnvelope<SesNotification> ses = seen.All.OfType<MessageEnvelope<SesNotification>>().Single();
        Assert.Equal(("Bounce", topicArn), (ses.Message.NotificationType, ses.Source));
        Assert.False(seen.All.OfType<MessageEnvelope<Order>>().Single().IsNative);
        Assert.Equal(0, (await Emulator.StatsAsync()).Rejected);
    }

    [EmulatorFact]
    public async Task PublishedWithoutAnEnvelope_TheJavaScriptSdkReadsTheMessagesJson_AndItsTypeAttribute()
    {
        string name = AwsTransportSqsTests.NewName("native-out");
        string queue = name + "-orders", rawQueue = name + "-raw", wrappedQueue = name + "-wrapped";
        string queueUrl = await Emulator.CreateQueueAsync(queue);
        string rawUrl = await Emulator.CreateQueueAsync(rawQueue);
        string wrappedUrl = await Emulator.CreateQueueAsync(wrappedQueue);
        string topicArn = await Emulator.CreateTopicAsync(name + "-alarms");
        await Emulator.SubscribeAsync(topicArn, rawQueue, raw: true);
        await Emulator.SubscribeAsync(topicArn, wrappedQueue);
        await using ServiceProvider provider = new ServiceCollection()
            .AddMessageBus(bus => bus
                .AddMessageType<Order>(TestSerializers.OrderType)
                .AddMessageType<CloudWatchAlarm>(AwsEvents.AlarmType)
                .AddMessageType<Ec2StateChange>(AwsEvents.Ec2Type)
                .ConfigureSerialization(o => o.JsonSerializerContext = TestJsonContext.Default)
                .UseMessageSource("/tests/native")
                .AddSqsPublisher<Order>(queue)
                .AddSnsPublisher<CloudWatchAlarm>("alarms")
                .AddEventBridgePublisher<Ec2StateChange>("default")
                .PublishWithoutEnvelope<Order>()
                .PublishWithoutEnvelope<CloudWatchAlarm>()
                .PublishWithoutEnvelope<Ec2StateChange>()
                .UseAws(o =>
                {
                    Emulator.Apply(o);
                    o.TopicArns["alarms"] = topicArn;
                }))
            .BuildServiceProvider();
        IMessagePublisher publisher = provider.GetRequiredService<IMessagePublisher>();
        await Emulator.ResetAsync();

        await publisher.PublishAsync(Orders.Create(1));
        await publisher.PublishAsync(new CloudWatchAlarm { AlarmName = "cpu", NewStateValue = "ALARM", OldStateValue = "OK" });
        await publisher.PublishAsync(new Ec2StateChange { InstanceId = "i-1", State = "running" });

        JsonElement order = await ReceiveWithJs(queueUrl);
        Assert.Equal(JsonSerializer.Serialize(Orders.Create(1), TestJsonContext.Default.Order), order.GetProperty("Body").GetString());
        Assert.Equal(TestSerializers.OrderType, order.GetProperty("MessageAttributes").GetProperty("MessageType").GetProperty("StringValue").GetString());
        const string Alarm = "{\"AlarmName\":\"cpu\",\"NewStateValue\":\"ALARM\",\"OldStateValue\":\"OK\"}";
        JsonElement raw = await ReceiveWithJs(rawUrl);
        Assert.Equal(Alarm, raw.GetProperty("Body").GetString());
        Assert.Equal(AwsEvents.AlarmType, raw.GetProperty("MessageAttributes").GetProperty("MessageType").GetProperty("StringValue").GetString());
        JsonElement wrapped = await ReceiveWithJs(wrappedUrl);
        using (JsonDocument notification = JsonDocument.Parse(wrapped.GetProperty("Body").GetString()!))
        {
            Assert.Equal(Alarm, notification.RootElement.GetProperty("Message").GetString());
            Assert.Equal(AwsEvents.AlarmType, notification.RootElement.GetProperty("MessageAttributes").GetProperty("MessageType").GetProperty("Value").GetString());
        }

        ProxyRequest putEvents = Assert.Single(await Emulator.CapturedAsync());
        using JsonDocument request = JsonDocument.Parse(putEvents.Body);
        JsonElement entry = Assert.Single(request.RootElement.GetProperty("Entries").EnumerateArray().ToList());
        Assert.Equal((AwsEvents.Ec2Type, "/tests/native", "{\"instance-id\":\"i-1\",\"state\":\"running\"}"), (entry.GetProperty("DetailType").GetString(), entry.GetProperty("Source").GetString(), entry.GetProperty("Detail").GetString()));
    }

    private async Task<JsonElement> ReceiveWithJs(string queueUrl)
    {
        using JsonDocument received = await Emulator.JsClientAsync(new JsonObject { ["op"] = "receive", ["queueUrl"] = queueUrl, ["waitSeconds"] = 1 });
        return Assert.Single(received.RootElement.EnumerateArray().ToList()).Clone();
    }
}
