using System;
using System.Collections.Concurrent;
using System.Linq;
using System.Text;
using System.Text.Json.Nodes;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Missive.Bus;
using Missive.InMemory;
using Missive.Lambda;
using Missive.Tests.Infrastructure;
using Missive.Transport;

namespace Missive.Tests.Native;

/// <summary>
/// Native messages through the bus: a poller on the in-memory broker whose queue carries S3 notifications, an EC2 event
/// through an event bus, an SES notification through a topic, Missive's own envelopes and a body nobody can read, each
/// handled by its type; the Lambda processor with the same rules; the startup check of the rules.
/// </summary>
public sealed class NativeMessageBusTests
{
    private const string Unmatched = "{\"legacy\":true,\"amount\":12}";

    [Fact]
    public async Task AMixedQueue_HandlesEachBodyByItsType_SkipsS3sTestEvent_AndDeadLettersWhatNoRuleMatches_AsReceived()
    {
        var seen = new HandledEnvelopes();
        using IHost host = BusTestHost.Build(
            broker =>
            {
                broker.CreateQueue("inbox-dlq");
                broker.CreateQueue("inbox", q => { q.DeadLetterQueue = "inbox-dlq"; q.MaxReceiveCount = 2; });
                broker.CreateTopic("ses-events");
                broker.Subscribe("ses-events", "inbox");
                broker.CreateEventBus("aws");
                broker.AddRule("aws", "inbox", "EC2 Instance State-change Notification");
            },
            bus => Register(bus)
                .AddSqsPublisher<Order>("inbox")
                .AddQueuePoller("inbox", o =>
                {
                    o.RetryDelay = TimeSpan.Zero;
                    o.NativeMessages
                        .WhenS3Notification<S3EventNotification>()
                        .WhenEventBridgeEvent<Ec2StateChange>("aws.ec2")
                        .When<SesNotification>(static (body, _) => body.IndexOf("\"notificationType\""u8) >= 0, "an SES notification");
                }),
            services => services.AddSingleton(seen));
        InMemoryBroker broker = host.Services.GetRequiredService<InMemoryBroker>();
        await broker.SendAsync(new SqsSendRequest { QueueName = "inbox", Body = AwsEvents.Body("s3-test-event.json") });
        await broker.SendAsync(new SqsSendRequest { QueueName = "inbox", Body = AwsEvents.Body("s3-object-created-put.json") });
        await broker.PutEventAsync(new EventBridgeEntry { EventBusName = "aws", Source = "aws.ec2", DetailType = "EC2 Instance State-change Notification", Detail = "{\"instance-id\":\"i-abcd1111\",\"state\":\"pending\"}" });
        await broker.PublishAsync(new SnsPublishRequest { TopicArn = "ses-events", Message = AwsEvents.Body("ses-bounce.json"), Subject = "Amazon SES Email Event Notification" });
        await broker.SendAsync(new SqsSendRequest { QueueName = "inbox", Body = Unmatched });
        await host.Services.GetRequiredService<IMessagePublisher>().PublishAsync(Orders.Create(1));

        await host.StartAsync();
        await BusTestHost.WaitUntil(() => seen.Count == 4 && broker.GetQueue("inbox").Count == 0 && broker.GetQueue("inbox-dlq").Count == 1);
        await host.StopAsync();

        var s3 = seen.Single<S3EventNotification>();
        Assert.True(s3.IsNative);
        Assert.Equal("HappyFace.jpg", s3.Message.Records[0].S3.Object.Key);
        var ec2 = seen.Single<Ec2StateChange>();
        Assert.Equal(("aws.ec2", "i-abcd1111"), (ec2.Source, ec2.Message.InstanceId));
        Assert.Equal(ec2.EventBridgeMetadata!.EventId, ec2.Id);
        var ses = seen.Single<SesNotification>();
        Assert.Equal("Bounce", ses.Message.NotificationType);
        Assert.Equal("Amazon SES Email Event Notification", ses.SnsMetadata!.Subject);
        var order = seen.Single<Order>();
        Assert.False(order.IsNative);
        Assert.Equal(Unmatched, broker.GetQueue("inbox-dlq").PeekBodies().Single()); // as it was received
    }

    [Fact]
    public async Task ANativeMessageNoRuleMatches_GoesToTheFallbackHandler_WhenOneIsRegistered()
    {
        var seen = new HandledEnvelopes();
        using IHost host = BusTestHost.Build(
            broker => broker.CreateQueue("inbox"),
            bus => Register(bus)
                .AddFallbackHandler<Fallback>()
                .AddQueuePoller("inbox", o => o.NativeMessages.WhenEventBridgeEvent<Ec2StateChange>("aws.ec2")),
            services => services.AddSingleton(seen));
        InMemoryBroker broker = host.Services.GetRequiredService<InMemoryBroker>();
        await broker.SendAsync(new SqsSendRequest { QueueName = "inbox", Body = AwsEvents.Body("eventbridge-s3-object-created.json") });

        await host.StartAsync();
        await BusTestHost.WaitUntil(() => seen.Count == 1 && broker.GetQueue("inbox").Count == 0);
        await host.StopAsync();

        var fallback = seen.Single<UnregisteredMessage>();
        Assert.True(fallback.IsNative);
        Assert.Equal("Object Created", fallback.Type); // the event's detail-type names what it is
        Assert.Equal("example-key", fallback.Message.ToJsonElement().GetProperty("object").GetProperty("key").GetString());
    }

    [Fact]
    public async Task TheLambdaProcessor_ReadsNativeRecords_AndReportsOnlyTheOneNoRuleMatches()
    {
        var seen = new HandledEnvelopes();
        var services = new ServiceCollection();
        services.AddSingleton(seen);
        services.AddMessageBus(bus => Register(bus, order: true)
            .ConfigureLambdaProcessor(o => o.NativeMessages.WhenS3Notification<S3EventNotification>().WhenEventBridgeEvent<Ec2StateChange>("aws.ec2")));
        await using ServiceProvider provider = services.BuildServiceProvider();
        var records = new JsonArray(Record("m-s3", AwsEvents.Body("s3-object-created-put.json")), Record("m-ec2", AwsEvents.Body("eventbridge-ec2-state-change.json")), Record("m-bad", Unmatched), Record("m-test", AwsEvents.Body("s3-test-event.json")));

        SqsBatchResponse response = await provider.GetRequiredService<SqsEventProcessor>().ProcessAsync(Encoding.UTF8.GetBytes(new JsonObject { ["Records"] = records }.ToJsonString()));

        Assert.Equal(["m-bad"], response.BatchItemFailures.Select(f => f.ItemIdentifier));
        Assert.Equal("HappyFace.jpg", seen.Single<S3EventNotification>().Message.Records[0].S3.Object.Key);
        Assert.Equal("pending", seen.Single<Ec2StateChange>().Message.State);
        Assert.Equal(2, seen.Count);
    }

    [Fact]
    public void ARuleNamingATypeNobodyRegistered_StopsTheHost_NamingTheFix()
    {
        using IHost host = BusTestHost.Build(
            broker => broker.CreateQueue("inbox"),
            bus => bus.AddQueuePoller("inbox", o => o.NativeMessages.WhenEventBridgeEvent<Ec2StateChange>("aws.ec2")));

        var error = Assert.Throws<MessageBusConfigurationException>(() => host.Services.GetRequiredService<IMessagePublisher>());

        Assert.Contains("The poller of 'inbox' reads native messages as Missive.Tests.Native.Ec2StateChange", error.Message, StringComparison.Ordinal);
        Assert.Contains("AddMessageType<Ec2StateChange>", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void ARuleNamingATypeWithoutAHandler_StopsTheHost()
    {
        using IHost host = BusTestHost.Build(
            broker => broker.CreateQueue("inbox"),
            bus => bus.AddMessageType<Ec2StateChange>(AwsEvents.Ec2Type)
                .AddQueuePoller("inbox", o => o.NativeMessages.WhenEventBridgeEvent<Ec2StateChange>("aws.ec2")));

        var error = Assert.Throws<MessageBusConfigurationException>(() => host.Services.GetRequiredService<IMessagePublisher>());

        Assert.Contains("which has no handler: add AddHandler<Ec2StateChange, TheHandler>()", error.Message, StringComparison.Ordinal);
    }

    /// <summary>The AWS event types and their handlers (BusTestHost registers <see cref="Order"/> itself; the Lambda test's bus does here).</summary>
    private static MessageBusBuilder Register(MessageBusBuilder bus, bool order = false) => (order ? bus.AddMessageType<Order>(TestSerializers.OrderType) : bus)
        .AddMessageType<S3EventNotification>(AwsEvents.S3Type)
        .AddMessageType<Ec2StateChange>(AwsEvents.Ec2Type)
        .AddMessageType<SesNotification>(AwsEvents.SesType)
        .ConfigureSerialization(o => o.JsonSerializerContext = TestJsonContext.Default)
        .AddHandler<Order, EnvelopeRecorder<Order>>()
        .AddHandler<S3EventNotification, EnvelopeRecorder<S3EventNotification>>()
        .AddHandler<Ec2StateChange, EnvelopeRecorder<Ec2StateChange>>()
        .AddHandler<SesNotification, EnvelopeRecorder<SesNotification>>();

    private static JsonObject Record(string id, string body) => new()
    {
        ["messageId"] = id,
        ["receiptHandle"] = "handle-" + id,
        ["body"] = body,
        ["attributes"] = new JsonObject { ["ApproximateReceiveCount"] = "1", ["SentTimestamp"] = "1545082649183" },
        ["messageAttributes"] = new JsonObject(),
        ["md5OfBody"] = "",
        ["eventSource"] = "aws:sqs",
        ["eventSourceARN"] = "arn:aws:sqs:us-east-2:123456789012:inbox",
        ["awsRegion"] = "us-east-2",
    };

    private sealed class Fallback(HandledEnvelopes seen) : IFallbackMessageHandler
    {
        public Task<HandleOutcome> HandleAsync(MessageEnvelope<UnregisteredMessage> envelope, CancellationToken cancellationToken)
        {
            seen.All.Enqueue(envelope);
            return Task.FromResult(HandleOutcome.Handled);
        }
    }
}
