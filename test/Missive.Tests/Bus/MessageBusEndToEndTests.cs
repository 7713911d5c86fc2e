using System;
using System.Collections.Concurrent;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Missive.Bus;
using Missive.InMemory;
using Missive.Serialization;
using Missive.Tests.Infrastructure;
using Missive.Transport;

namespace Missive.Tests.Bus;

/// <summary>The whole bus on a generic host: publisher → broker → pump → handler, and what happens when things go wrong.</summary>
public sealed class MessageBusEndToEndTests
{
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(30);

    [Theory]
    [InlineData(false, EnvelopeFormat.Json)]
    [InlineData(true, EnvelopeFormat.Json)]
    [InlineData(true, EnvelopeFormat.Protobuf)]
    public async Task SnsFanOut_ToARawAndAWrappedQueue_EveryMessageIsHandledOnceOnEachQueue(bool experimental, EnvelopeFormat format)
    {
        var recorder = new Recorder<Order>(expected: 2 * 50);
        using IHost host = BuildHost(recorder, bus =>
        {
            bus.AddSnsPublisher<Order>("orders");
            bus.AddQueuePoller("wrapped", o => o.WaitTime = TimeSpan.FromSeconds(1));
            bus.AddQueuePoller("raw", o => o.WaitTime = TimeSpan.FromSeconds(1));
            if (experimental)
            {
                bus.EnableExperimentalFeatures(x => x.PublishFormat = format);
            }
        });
        await host.StartAsync();
        IMessagePublisher publisher = host.Services.GetRequiredService<IMessagePublisher>();

        for (int i = 0; i < 50; i++)
        {
            await publisher.PublishAsync(Orders.Create(i % 4, "customer " + i), new PublishOptions { ConfigureEnvelope = e => e.Extensions["seq"] = CloudEventAttributeValue.FromInteger(i) });
        }

        await recorder.AllReceived.WaitAsync(Patience);
        await host.StopAsync();

        Assert.Equal(50, recorder.Count(e => e.SnsMetadata is not null));
        Assert.Equal(50, recorder.Count(e => e.SnsMetadata is null));
        Assert.All(recorder.Envelopes, e => Assert.Equal("customer " + e.Extensions["seq"].AsInteger(), e.Message.CustomerName));
        InMemoryBroker broker = host.Services.GetRequiredService<InMemoryBroker>();
        Assert.Equal(0, broker.GetQueue("raw").Count);
        Assert.Equal(0, broker.GetQueue("wrapped").Count);
    }

    [Fact]
    public async Task FailingHandler_IsRetriedThenDeadLetteredWithTheOriginalBody()
    {
        var recorder = new Recorder<Order>(expected: 3, fail: true);
        using IHost host = BuildHost(recorder, bus =>
        {
            bus.AddSqsPublisher<Order>("work");
            bus.AddQueuePoller("work", o => { o.RetryDelay = TimeSpan.Zero; o.WaitTime = TimeSpan.FromMilliseconds(200); });
        });
        await host.StartAsync();
        InMemoryBroker broker = host.Services.GetRequiredService<InMemoryBroker>();

        MessageEnvelope<Order> sent = await host.Services.GetRequiredService<IMessagePublisher>().PublishAsync(Orders.Create(2));
        await recorder.AllReceived.WaitAsync(Patience);
        await WaitUntil(() => broker.GetQueue("work-dlq").Count == 1);
        await host.StopAsync();

        Assert.Equal(0, broker.GetQueue("work").Count);
        string deadBody = Assert.Single(broker.GetQueue("work-dlq").PeekBodies());
        Assert.Contains(sent.Id, deadBody, StringComparison.Ordinal);
        Assert.Equal([1, 2, 3], recorder.ReceiveCounts);
    }

    [Fact]
    public async Task UnreadableBody_IsDeadLetteredIntact_AndLoggedWithoutContent()
    {
        var logs = new ConcurrentQueue<string>();
        var recorder = new Recorder<Order>(expected: 1);
        using IHost host = BuildHost(recorder, bus => bus.AddQueuePoller("work", o => { o.RetryDelay = TimeSpan.Zero; o.WaitTime = TimeSpan.FromMilliseconds(200); }), logs);
        await host.StartAsync();
        InMemoryBroker broker = host.Services.GetRequiredService<InMemoryBroker>();
        const string poison = """{"id":"1","source":"/s","specversion":"1.0","type":"Orders.OrderPlaced","data":{"Total":"SECRET-CARD-4111"}}""";

        await broker.SendAsync(new SqsSendRequest { QueueName = "work", Body = poison });
        await WaitUntil(() => broker.GetQueue("work-dlq").Count == 1);
        await host.StopAsync();

        Assert.Equal(poison, Assert.Single(broker.GetQueue("work-dlq").PeekBodies()));
        Assert.Empty(recorder.Envelopes);
        Assert.Contains(logs, l => l.Contains("could not be read: InvalidData", StringComparison.Ordinal));
        Assert.DoesNotContain(logs, l => l.Contains("SECRET-CARD-4111", StringComparison.Ordinal));
    }

    [Fact]
    public async Task ShutdownDuringHandling_DoesNotDeleteOrDropTheMessage()
    {
        var recorder = new Recorder<Order>(expected: 1, block: true);
        using IHost host = BuildHost(recorder, bus =>
        {
            bus.AddSqsPublisher<Order>("work");
            bus.AddQueuePoller("work", o => o.WaitTime = TimeSpan.FromMilliseconds(200));
        });
        await host.StartAsync();
        InMemoryBroker broker = host.Services.GetRequiredService<InMemoryBroker>();

        await host.Services.GetRequiredService<IMessagePublisher>().PublishAsync(Orders.Create(1));
        await recorder.AllReceived.WaitAsync(Patience); // the handler is now blocked inside HandleAsync
        await host.StopAsync();

        Assert.Equal(1, broker.GetQueue("work").Count);
        Assert.Single(await broker.ReceiveAsync("work", 10, TimeSpan.Zero)); // released: visible again at once
    }

    [Fact]
    public async Task EventBridgeAndSnsControlMessages_AreHandledAndSkipped()
    {
        var recorder = new Recorder<Order>(expected: 1);
        using IHost host = BuildHost(recorder, bus =>
        {
            bus.AddEventBridgePublisher<Order>("bus");
            bus.AddQueuePoller("from-bus", o => o.WaitTime = TimeSpan.FromMilliseconds(200));
        });
        await host.StartAsync();
        InMemoryBroker broker = host.Services.GetRequiredService<InMemoryBroker>();

        await broker.SendAsync(new SqsSendRequest { QueueName = "from-bus", Body = """{"Type":"SubscriptionConfirmation","MessageId":"m","TopicArn":"arn:aws:sns:x:1:t","Token":"t"}""" });
        await host.Services.GetRequiredService<IMessagePublisher>().PublishAsync(Orders.Create(1));
        await recorder.AllReceived.WaitAsync(Patience);
        await WaitUntil(() => broker.GetQueue("from-bus").Count == 0);
        await host.StopAsync();

        MessageEnvelope<Order> envelope = Assert.Single(recorder.Envelopes);
        Assert.Equal(TestSerializers.OrderType, envelope.EventBridgeMetadata!.DetailType);
    }

    [Fact]
    public async Task TransportFailureWhileDeleting_KeepsThePumpRunning_AndTheMessageComesBack()
    {
        var recorder = new Recorder<Order>(expected: 2);
        var logs = new ConcurrentQueue<string>();
        HostApplicationBuilder builder = Host.CreateApplicationBuilder();
        builder.Logging.ClearProviders();
        builder.Logging.AddProvider(new CapturingLoggerProvider(logs));
        builder.Services.AddSingleton(recorder);
        var broker = new InMemoryBroker();
        broker.CreateQueue("work");
        builder.Services.AddSingleton<IMessageTransport>(new FlakyDeleteTransport(broker, failures: 1));
        builder.Services.AddMessageBus(bus => bus
            .AddMessageType<Order>(TestSerializers.OrderType)
            .ConfigureSerialization(o => o.JsonSerializerContext = TestJsonContext.Default)
            .AddHandler<Order, RecordingHandler>()
            .AddSqsPublisher<Order>("work")
            .AddQueuePoller("work", o =>
            {
                o.WaitTime = TimeSpan.FromMilliseconds(100);
                o.VisibilityTimeout = TimeSpan.FromSeconds(2);
            }));
        using IHost host = builder.Build();
        await host.StartAsync();

        await host.Services.GetRequiredService<IMessagePublisher>().PublishAsync(Orders.Create(1));
        await recorder.AllReceived.WaitAsync(Patience); // handled, delete failed, received again after the timeout, handled
        await WaitUntil(() => broker.GetQueue("work").Count == 0);
        await host.StopAsync();

        Assert.Equal([1, 2], recorder.ReceiveCounts);
        Assert.Contains(logs, l => l.Contains("deleting it failed", StringComparison.Ordinal) && l.Contains("Simulated network failure", StringComparison.Ordinal));
    }

    [Fact]
    public async Task Publish_UnroutedType_FailsWithAClearMessage()
    {
        using IHost host = BuildHost(new Recorder<Order>(1), bus => { });

        var error = await Assert.ThrowsAsync<MessageBusConfigurationException>(() => host.Services.GetRequiredService<IMessagePublisher>().PublishAsync(Orders.Create(1)));

        Assert.Contains("AddSqsPublisher<Order>", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task ProtobufPublisherWithoutExperimentalFeatures_FailsAtStartup()
    {
        using IHost host = BuildHost(new Recorder<Order>(expected: 0), bus => bus.AddSqsPublisher<Order>("work", EnvelopeFormat.Protobuf));

        var error = await Assert.ThrowsAsync<MessageBusConfigurationException>(() => host.StartAsync());

        Assert.Contains("EnableExperimentalFeatures()", error.Message, StringComparison.Ordinal);
    }

    private static IHost BuildHost(Recorder<Order> recorder, Action<MessageBusBuilder> configure, ConcurrentQueue<string>? logs = null)
    {
        HostApplicationBuilder builder = Host.CreateApplicationBuilder();
        builder.Logging.ClearProviders();
        if (logs is not null)
        {
            builder.Logging.AddProvider(new CapturingLoggerProvider(logs));
        }

        builder.Services.AddSingleton(recorder);
        builder.Services.AddMessageBus(bus =>
        {
            bus.AddMessageType<Order>(TestSerializers.OrderType);
            bus.ConfigureSerialization(o => o.JsonSerializerContext = TestJsonContext.Default);
            bus.AddHandler<Order, RecordingHandler>();
            bus.UseInMemoryBroker(broker =>
            {
                broker.CreateQueue("work-dlq");
                broker.CreateQueue("work", o => { o.DeadLetterQueue = "work-dlq"; o.MaxReceiveCount = 3; });
                broker.CreateTopic("orders");
                broker.Subscribe("orders", "wrapped");
                broker.Subscribe("orders", "raw", rawMessageDelivery: true);
                broker.CreateEventBus("bus");
                broker.AddRule("bus", "from-bus");
            });
            configure(bus);
        });
        return builder.Build();
    }

    private static async Task WaitUntil(Func<bool> condition)
    {
        using var timeout = new CancellationTokenSource(Patience);
        while (!condition())
        {
            await Task.Delay(10, timeout.Token);
        }
    }

    public sealed class Recorder<T>(int expected, bool fail = false, bool block = false)
    {
        private readonly TaskCompletionSource _all = new(TaskCreationOptions.RunContinuationsAsynchronously);
        private int _calls;

        public ConcurrentQueue<MessageEnvelope<T>> Envelopes { get; } = new();

        public ConcurrentQueue<int> ReceiveCountsQueue { get; } = new();

        public int[] ReceiveCounts => ReceiveCountsQueue.ToArray();

        public Task AllReceived => _all.Task;

        public int Count(Func<MessageEnvelope<T>, bool> predicate)
        {
            int count = 0;
            foreach (MessageEnvelope<T> envelope in Envelopes)
            {
                count += predicate(envelope) ? 1 : 0;
            }

            return count;
        }

        public async Task HandleAsync(MessageEnvelope<T> envelope, CancellationToken cancellationToken)
        {
            ReceiveCountsQueue.Enqueue(envelope.SqsMetadata!.ApproximateReceiveCount);
            if (!fail)
            {
                Envelopes.Enqueue(envelope);
            }

            if (Interlocked.Increment(ref _calls) == expected)
            {
                _all.TrySetResult();
            }

            if (block)
            {
                await Task.Delay(Timeout.Infinite, cancellationToken);
            }

            if (fail)
            {
                throw new InvalidOperationException("The handler failed on purpose.");
            }
        }
    }

    public sealed class RecordingHandler(Recorder<Order> recorder) : IMessageHandler<Order>
    {
        public Task HandleAsync(MessageEnvelope<Order> envelope, CancellationToken cancellationToken) => recorder.HandleAsync(envelope, cancellationToken);
    }
}

/// <summary>A transport whose delete fails a given number of times, as a network error would.</summary>
public sealed class FlakyDeleteTransport(Missive.Transport.IMessageTransport inner, int failures) : Missive.Transport.IMessageTransport
{
    private int _failures = failures;

    public Task<string> SendAsync(SqsSendRequest request, CancellationToken cancellationToken = default) => inner.SendAsync(request, cancellationToken);

    public Task<string> PublishAsync(SnsPublishRequest request, CancellationToken cancellationToken = default) => inner.PublishAsync(request, cancellationToken);

    public Task<string> PutEventAsync(EventBridgeEntry entry, CancellationToken cancellationToken = default) => inner.PutEventAsync(entry, cancellationToken);

    public Task<System.Collections.Generic.IReadOnlyList<SqsMessage>> ReceiveAsync(string queueName, int maxMessages, TimeSpan waitTime, TimeSpan? visibilityTimeout = null, CancellationToken cancellationToken = default)
        => inner.ReceiveAsync(queueName, maxMessages, waitTime, visibilityTimeout, cancellationToken);

    public Task<bool> DeleteAsync(string queueName, string receiptHandle, CancellationToken cancellationToken = default)
        => Interlocked.Decrement(ref _failures) >= 0 ? throw new MessageTransportException("Simulated network failure.") : inner.DeleteAsync(queueName, receiptHandle, cancellationToken);

    public Task<bool> ChangeVisibilityAsync(string queueName, string receiptHandle, TimeSpan visibilityTimeout, CancellationToken cancellationToken = default)
        => inner.ChangeVisibilityAsync(queueName, receiptHandle, visibilityTimeout, cancellationToken);
}
