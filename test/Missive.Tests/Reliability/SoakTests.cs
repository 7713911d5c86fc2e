using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Missive.Bus;
using Missive.InMemory;
using Missive.Tests.Infrastructure;
using Missive.Transport;
using Xunit.Abstractions;

namespace Missive.Tests.Reliability;

/// <summary>
/// The whole bus under load and faults: SNS fan-out to a notification queue and a raw queue, each with a dead-letter queue;
/// handlers that fail now and then and for some messages always; receives and deletes that fail now and then. Every
/// message is accounted for on each queue: handled, or dead-lettered with its body intact; none missing, none handled
/// twice except where a delete failed (at-least-once).
/// </summary>
/// <remarks>
/// CI publishes <see cref="DefaultMessages"/> messages; <c>MISSIVE_SOAK_MESSAGES=100000</c> runs the long mode:
/// <c>MISSIVE_SOAK_MESSAGES=100000 dotnet test Missive.slnx -c Release --filter FullyQualifiedName~SoakTests</c>.
/// </remarks>
public sealed class SoakTests
{
    public const int DefaultMessages = 2_000;
    private const int PermanentEvery = 101;   // orders whose handler always fails: dead-lettered
    private const int TransientEvery = 7;     // orders whose handler fails on their first receive
    private const int MaxReceiveCount = 3;
    private static readonly string[] Queues = ["notify", "raw"];

    private readonly ITestOutputHelper _output;

    public SoakTests(ITestOutputHelper output) => _output = output;

    [Fact]
    public async Task FanOutWithFaults_EveryMessageIsHandledOrDeadLetteredIntact_NoneMissing()
    {
        int messages = int.TryParse(Environment.GetEnvironmentVariable("MISSIVE_SOAK_MESSAGES"), out int configured) ? configured : DefaultMessages;
        var ledger = new Ledger();
        var broker = new InMemoryBroker();
        foreach (string queue in Queues)
        {
            broker.CreateQueue(queue + "-dlq");
            broker.CreateQueue(queue, o =>
            {
                o.DeadLetterQueue = queue + "-dlq";
                o.MaxReceiveCount = MaxReceiveCount;
            });
        }

        broker.CreateTopic("orders");
        broker.Subscribe("orders", "notify");
        broker.Subscribe("orders", "raw", rawMessageDelivery: true);
        var faults = new FaultyTransport(broker, seed: 20261122);

        HostApplicationBuilder builder = Host.CreateApplicationBuilder();
        builder.Logging.ClearProviders();
        builder.Services.AddSingleton(ledger);
        builder.Services.AddSingleton<IMessageTransport>(faults);
        builder.Services.AddMessageBus(bus =>
        {
            bus.AddMessageType<Order>(TestSerializers.OrderType)
                .ConfigureSerialization(o => o.JsonSerializerContext = TestJsonContext.Default)
                .EnableExperimentalFeatures()
                .AddSnsPublisher<Order>("orders")
                .AddHandler<Order, SoakHandler>();
            foreach (string queue in Queues)
            {
                bus.AddQueuePoller(queue, o =>
                {
                    o.MaxConcurrency = 16;
                    o.WaitTime = TimeSpan.FromMilliseconds(200);
                    // Long enough that no handled message outlives it on a loaded machine (one did at 2 s, with the
                    // tests sharing two cores with another process): a duplicate then comes only from a failed delete.
                    o.VisibilityTimeout = TimeSpan.FromSeconds(5);
                    o.RetryDelay = TimeSpan.FromMilliseconds(1);
                    o.ReceiveErrorDelay = TimeSpan.FromMilliseconds(5);
                    o.MaxReceiveErrorDelay = TimeSpan.FromMilliseconds(50);
                });
            }
        });
        using IHost host = builder.Build();
        long memoryBefore = GC.GetTotalMemory(forceFullCollection: true);
        var clock = Stopwatch.StartNew();
        await host.StartAsync();

        IMessagePublisher publisher = host.Services.GetRequiredService<IMessagePublisher>();
        for (int i = 0; i < messages; i++)
        {
            await publisher.PublishAsync(Order(i), new PublishOptions { Format = i % 2 == 0 ? Missive.Serialization.EnvelopeFormat.Json : Missive.Serialization.EnvelopeFormat.Protobuf });
        }

        int permanent = (messages + PermanentEvery - 1) / PermanentEvery;
        // Done when every queue is empty (nothing in flight either); by then every message was deleted or dead-lettered.
        // A guard against a hang, not a timing assertion.
        TimeSpan patience = TimeSpan.FromMinutes(2) + TimeSpan.FromMilliseconds(messages * 5);
        while (!(Drained(broker) && broker.GetQueue("notify-dlq").Count >= permanent && broker.GetQueue("raw-dlq").Count >= permanent))
        {
            Assert.True(
                clock.Elapsed < patience,
                $"Not drained after {clock.Elapsed}: notify {broker.GetQueue("notify").Count}, raw {broker.GetQueue("raw").Count}, dead letters {broker.GetQueue("notify-dlq").Count} and {broker.GetQueue("raw-dlq").Count} of {permanent} each, {ledger.Total} handled");
            await Task.Delay(50);
        }

        await host.StopAsync();
        clock.Stop();
        long memoryAfter = GC.GetTotalMemory(forceFullCollection: true);

        InboundMessageReader reader = host.Services.GetRequiredService<InboundMessageReader>();
        int duplicates = 0;
        int handledAndDeadLettered = 0;
        foreach (string queue in Queues)
        {
            var deadLettered = new HashSet<int>();
            foreach (SqsMessage dead in await ReceiveAll(broker, queue + "-dlq"))
            {
                // Intact: it reads back to the order that was published, data and all.
                var order = ((MessageEnvelope<Order>)reader.Read(dead).Envelope!).Message!;
                int n = int.Parse(order.OrderId, CultureInfo.InvariantCulture);
                Assert.Equal(Order(n).CustomerName, order.CustomerName);
                Assert.Equal(Order(n).Lines.Count, order.Lines.Count);
                Assert.True(deadLettered.Add(n), $"{queue}: order {n} dead-lettered twice");
            }

            for (int n = 0; n < messages; n++)
            {
                int handled = ledger.Handled(queue, n);
                if (n % PermanentEvery == 0)
                {
                    Assert.True(handled == 0 && deadLettered.Contains(n), $"{queue}: order {n} should be dead-lettered (handled {handled})");
                }
                else
                {
                    Assert.True(handled >= 1, $"{queue}: order {n} is missing");
                    duplicates += handled - 1;
                    if (deadLettered.Contains(n))
                    {
                        handledAndDeadLettered++; // handled, its deletes failed, and it came back past the max receive count
                    }
                }
            }
        }

        // A second handling, or a handled message dead-lettered too, happens only when a handled message's delete failed.
        Assert.True(duplicates + handledAndDeadLettered <= faults.FailedDeletes, $"{duplicates} duplicates and {handledAndDeadLettered} handled messages dead-lettered, but only {faults.FailedDeletes} failed deletes");
        Assert.True(faults.FailedReceives > 0 && faults.FailedDeletes > 0, "the faults were not injected");
        _output.WriteLine(
            $"soak: {messages} messages × 2 queues in {clock.Elapsed.TotalSeconds:0.0} s; handled {ledger.Total} times " +
            $"({duplicates} duplicates after {faults.FailedDeletes} failed deletes), {2 * permanent} always-failing orders dead-lettered intact " +
            $"(and {handledAndDeadLettered} handled ones after failed deletes), 0 missing; " +
            $"{faults.FailedReceives} failed receives; managed heap {memoryBefore / 1024} KiB before, {memoryAfter / 1024} KiB after");
    }

    private static async Task<List<SqsMessage>> ReceiveAll(InMemoryBroker broker, string queue)
    {
        var all = new List<SqsMessage>();
        IReadOnlyList<SqsMessage> batch;
        while ((batch = await broker.ReceiveAsync(queue, 10, TimeSpan.Zero)).Count > 0)
        {
            all.AddRange(batch); // received and left invisible: each is read once
        }

        return all;
    }

    private static bool Drained(InMemoryBroker broker)
    {
        foreach (string queue in Queues)
        {
            if (broker.GetQueue(queue).Count != 0)
            {
                return false;
            }
        }

        return true;
    }

    private static Order Order(int n)
    {
        Order order = Orders.Create(1 + (n % 4), customer: "customer-" + n.ToString(CultureInfo.InvariantCulture));
        order.OrderId = n.ToString(CultureInfo.InvariantCulture);
        return order;
    }

    public sealed class Ledger
    {
        private readonly ConcurrentDictionary<(string Queue, int Order), int> _handled = new();
        private int _total;

        public int Total => _total;

        public int Handled(string queue, int order) => _handled.TryGetValue((queue, order), out int count) ? count : 0;

        public void Record(string queue, int order)
        {
            _handled.AddOrUpdate((queue, order), 1, static (_, c) => c + 1);
            Interlocked.Increment(ref _total);
        }
    }

    public sealed class SoakHandler(Ledger ledger) : IMessageHandler<Order>
    {
        public Task HandleAsync(MessageEnvelope<Order> envelope, CancellationToken cancellationToken)
        {
            int n = int.Parse(envelope.Message!.OrderId, CultureInfo.InvariantCulture);
            if (n % PermanentEvery == 0)
            {
                throw new InvalidOperationException("This order always fails.");
            }

            if (n % TransientEvery == 0 && envelope.SqsMetadata!.ApproximateReceiveCount == 1)
            {
                throw new InvalidOperationException("This order fails on its first receive.");
            }

            ledger.Record(envelope.SnsMetadata is null ? "raw" : "notify", n);
            return Task.CompletedTask;
        }
    }

    /// <summary>Fails about 2% of receives and 1% of deletes, as a network would; everything else goes to the broker.</summary>
    private sealed class FaultyTransport(InMemoryBroker inner, int seed) : IMessageTransport
    {
        private readonly Random _random = new(seed);
        private int _failedReceives;
        private int _failedDeletes;

        public int FailedReceives => _failedReceives;

        public int FailedDeletes => _failedDeletes;

        public Task<string> SendAsync(SqsSendRequest request, CancellationToken cancellationToken = default) => inner.SendAsync(request, cancellationToken);

        public Task<string> PublishAsync(SnsPublishRequest request, CancellationToken cancellationToken = default) => inner.PublishAsync(request, cancellationToken);

        public Task<string> PutEventAsync(EventBridgeEntry entry, CancellationToken cancellationToken = default) => inner.PutEventAsync(entry, cancellationToken);

        public Task<IReadOnlyList<SqsMessage>> ReceiveAsync(string queueName, int maxMessages, TimeSpan waitTime, TimeSpan? visibilityTimeout = null, CancellationToken cancellationToken = default)
        {
            if (Roll(0.02))
            {
                Interlocked.Increment(ref _failedReceives);
                throw new MessageTransportException("Simulated receive failure.") { FailureKind = TransportFailureKind.Transient };
            }

            return inner.ReceiveAsync(queueName, maxMessages, waitTime, visibilityTimeout, cancellationToken);
        }

        public Task<bool> DeleteAsync(string queueName, string receiptHandle, CancellationToken cancellationToken = default)
        {
            if (Roll(0.01))
            {
                Interlocked.Increment(ref _failedDeletes);
                throw new MessageTransportException("Simulated delete failure.") { FailureKind = TransportFailureKind.Transient };
            }

            return inner.DeleteAsync(queueName, receiptHandle, cancellationToken);
        }

        public Task<bool> ChangeVisibilityAsync(string queueName, string receiptHandle, TimeSpan visibilityTimeout, CancellationToken cancellationToken = default)
            => inner.ChangeVisibilityAsync(queueName, receiptHandle, visibilityTimeout, cancellationToken);

        private bool Roll(double probability)
        {
            lock (_random)
            {
                return _random.NextDouble() < probability;
            }
        }
    }
}
