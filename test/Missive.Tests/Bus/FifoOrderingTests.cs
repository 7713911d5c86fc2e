using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Missive.Bus;
using Missive.InMemory;
using Missive.Tests.Infrastructure;
using Missive.Transport;

namespace Missive.Tests.Bus;

/// <summary>
/// What a FIFO consumer is promised: the messages of one group are handled one after another, in the order they were
/// published, whatever the concurrency; a message of a group that is not handled holds back the rest of its group
/// until it is. SQS returns as many messages of one group as fit in a receive (SQS developer guide, FIFO delivery
/// logic), which the in-memory broker does and a scripted transport does below.
/// </summary>
public sealed class FifoOrderingTests
{
    private const int Groups = 6;
    private const int PerGroup = 12;

    [Theory]
    [InlineData(1)]
    [InlineData(10)]
    [InlineData(64)]
    public async Task OnTheInMemoryBroker_EachGroupIsHandledInPublishOrder_OneAtATime_EvenWithFailuresMidGroup(int maxConcurrency)
    {
        var journal = new Journal(failOnce: static (group, seq) => seq == 4 || (group == 2 && seq == 9));
        using IHost host = BusTestHost.Build(
            b => b.CreateQueue("orders.fifo", o => o.ContentBasedDeduplication = true),
            bus => bus
                .AddSqsPublisher<Order>("orders.fifo")
                .AddFifoIds<Order>(order => "g" + order.OrderId.Split(':')[0], order => order.OrderId)
                .AddHandler<Order, JournalHandler>()
                .AddQueuePoller("orders.fifo", o =>
                {
                    o.MaxConcurrency = maxConcurrency;
                    o.WaitTime = TimeSpan.FromMilliseconds(50);
                    o.RetryDelay = TimeSpan.FromMilliseconds(20);
                }),
            services => services.AddSingleton(journal));
        IMessagePublisher publisher = host.Services.GetRequiredService<IMessagePublisher>();
        for (int seq = 0; seq < PerGroup; seq++)
        {
            for (int group = 0; group < Groups; group++)
            {
                await publisher.PublishAsync(OrderOf(group, seq));
            }
        }

        await host.StartAsync();
        await BusTestHost.WaitUntil(() => journal.Handled == Groups * PerGroup);
        await host.StopAsync();

        journal.AssertOrder(Groups, PerGroup);
        Assert.True(journal.Failures >= Groups + 1, "every group failed mid-way at least once");
        if (maxConcurrency > 1)
        {
            Assert.True(journal.MaxConcurrent > 1, "different groups ran side by side");
        }
    }

    [Theory]
    [InlineData(1)]
    [InlineData(10)]
    [InlineData(64)]
    public async Task OnWholeGroupBatches_TheRestOfAFailedGroupIsReleasedUnhandled_AndTheOtherGroupsGoOnInOrder(int maxConcurrency)
    {
        // One receive of ten, as SQS answers a FIFO queue: as many of a group as possible, in order, then the next group.
        var transport = new ScriptedFifoTransport(
        [
            ("a", 0), ("a", 1), ("a", 2), ("a", 3),
            ("b", 0), ("b", 1), ("b", 2),
            ("c", 0), ("c", 1), ("c", 2),
        ]);
        var journal = new Journal(failOnce: static (group, seq) => group == 0 && seq == 1);
        using IHost host = Host(transport, journal, maxConcurrency);
        await host.StartAsync();
        await BusTestHost.WaitUntil(() => transport.Settled == 10);
        await host.StopAsync();

        Assert.Equal(["a0", "b0", "b1", "b2", "c0", "c1", "c2"], transport.Deleted.Order());
        Assert.Equal(["a2", "a3"], transport.Released.Order()); // never handled: they come back after a1
        Assert.Equal(["a1"], transport.RetriedLater);
        Assert.DoesNotContain(journal.Calls, call => call is (0, 2) or (0, 3));
        journal.AssertEachGroupInOrder();
    }

    private static IHost Host(IMessageTransport transport, Journal journal, int maxConcurrency)
    {
        HostApplicationBuilder builder = Microsoft.Extensions.Hosting.Host.CreateApplicationBuilder();
        builder.Logging.ClearProviders();
        builder.Services.AddSingleton(journal);
        builder.Services.AddSingleton(transport);
        builder.Services.AddMessageBus(bus => bus
            .AddMessageType<Order>(TestSerializers.OrderType)
            .ConfigureSerialization(o => o.JsonSerializerContext = TestJsonContext.Default)
            .AddHandler<Order, JournalHandler>()
            .AddQueuePoller("orders.fifo", o =>
            {
                o.MaxConcurrency = maxConcurrency;
                o.WaitTime = TimeSpan.FromMilliseconds(20);
                o.RetryDelay = TimeSpan.FromSeconds(5);
            }));
        return builder.Build();
    }

    private static Order OrderOf(int group, int seq)
    {
        Order order = Orders.Create(1);
        order.OrderId = $"{group}:{seq}";
        return order;
    }

    /// <summary>Every handler call, as (group, sequence), with the checks of the promise.</summary>
    public sealed class Journal(Func<int, int, bool> failOnce)
    {
        private readonly object _gate = new();
        private readonly Dictionary<int, int> _lastHandled = [];
        private readonly HashSet<(int, int)> _failed = [];
        private readonly HashSet<int> _runningGroups = [];
        private readonly List<string> _violations = [];
        private int _running;

        public ConcurrentQueue<(int Group, int Seq)> Calls { get; } = new();

        public int Handled { get; private set; }

        public int Failures { get; private set; }

        public int MaxConcurrent { get; private set; }

        public async Task RunAsync(Order order)
        {
            string[] parts = order.OrderId.Split(':');
            int group = int.Parse(parts[0], CultureInfo.InvariantCulture), seq = int.Parse(parts[1], CultureInfo.InvariantCulture);
            Calls.Enqueue((group, seq));
            bool fail;
            lock (_gate)
            {
                if (!_runningGroups.Add(group))
                {
                    _violations.Add($"two handlers of group {group} at once (at {seq})");
                }

                int expected = _lastHandled.TryGetValue(group, out int last) ? last + 1 : 0;
                if (seq != expected)
                {
                    _violations.Add($"group {group}: {seq} handled when {expected} was next");
                }

                MaxConcurrent = Math.Max(MaxConcurrent, ++_running);
                fail = failOnce(group, seq) && _failed.Add((group, seq));
            }

            await Task.Delay(Random.Shared.Next(0, 4));
            lock (_gate)
            {
                _running--;
                _runningGroups.Remove(group);
                if (fail)
                {
                    Failures++;
                }
                else
                {
                    _lastHandled[group] = seq;
                    Handled++;
                }
            }

            if (fail)
            {
                throw new InvalidOperationException($"order {order.OrderId} fails once");
            }
        }

        public void AssertOrder(int groups, int perGroup)
        {
            AssertEachGroupInOrder();
            for (int group = 0; group < groups; group++)
            {
                Assert.Equal(perGroup - 1, _lastHandled[group]);
            }
        }

        public void AssertEachGroupInOrder()
        {
            lock (_gate)
            {
                Assert.True(_violations.Count == 0, string.Join("; ", _violations));
            }
        }
    }

    public sealed class JournalHandler(Journal journal) : IMessageHandler<Order>
    {
        public Task HandleAsync(MessageEnvelope<Order> envelope, CancellationToken cancellationToken) => journal.RunAsync(envelope.Message);
    }

    /// <summary>Answers one receive with the scripted FIFO batch (then nothing), and records what becomes of each message.</summary>
    private sealed class ScriptedFifoTransport : ForwardingTransport, IMessageTransport
    {
        private readonly List<SqsMessage> _batch = [];
        private int _received;

        public ScriptedFifoTransport((string Group, int Seq)[] batch)
            : base(new InMemoryBroker())
        {
            using ServiceProvider services = BodyServices();
            var outbound = new OutboundMessageWriter(services.GetRequiredService<Missive.Serialization.IEnvelopeSerializerProvider>());
            var factory = services.GetRequiredService<Missive.Serialization.IEnvelopeFactory>();
            for (int i = 0; i < batch.Length; i++)
            {
                (string group, int seq) = batch[i];
                string body = outbound.ToSqs(factory.CreateEnvelope(OrderOf(group[0] - 'a', seq)), "bodies").Body;
                _batch.Add(new SqsMessage
                {
                    Body = body,
                    MessageId = group + seq.ToString(CultureInfo.InvariantCulture),
                    ReceiptHandle = group + seq.ToString(CultureInfo.InvariantCulture),
                    SystemAttributes = new Dictionary<string, string>
                    {
                        [SqsSystemAttributes.MessageGroupId] = group,
                        [SqsSystemAttributes.SequenceNumber] = (1000 + i).ToString(CultureInfo.InvariantCulture),
                        [SqsSystemAttributes.ApproximateReceiveCount] = "1",
                    },
                });
            }
        }

        public ConcurrentBag<string> Deleted { get; } = [];

        public ConcurrentBag<string> Released { get; } = [];

        public ConcurrentQueue<string> RetriedLater { get; } = new();

        public int Settled => Deleted.Count + Released.Count + RetriedLater.Count;

        public override async Task<IReadOnlyList<SqsMessage>> ReceiveAsync(string queueName, int maxMessages, TimeSpan waitTime, TimeSpan? visibilityTimeout = null, CancellationToken cancellationToken = default)
        {
            Assert.Equal(10, maxMessages);
            if (Interlocked.Exchange(ref _received, 1) == 0)
            {
                return _batch;
            }

            await Task.Delay(waitTime, cancellationToken);
            return [];
        }

        public override Task<IReadOnlyList<BatchEntryResult>> DeleteBatchAsync(string queueName, IReadOnlyList<string> receiptHandles, CancellationToken cancellationToken = default)
        {
            foreach (string handle in receiptHandles)
            {
                Deleted.Add(handle);
            }

            return Task.FromResult<IReadOnlyList<BatchEntryResult>>(receiptHandles.Select((_, i) => BatchEntryResult.Success(i, null)).ToArray());
        }

        public override Task<bool> ChangeVisibilityAsync(string queueName, string receiptHandle, TimeSpan visibilityTimeout, CancellationToken cancellationToken = default)
        {
            Assert.Equal(TimeSpan.FromSeconds(5), visibilityTimeout); // the retry delay of a failed message
            RetriedLater.Enqueue(receiptHandle);
            return Task.FromResult(true);
        }

        public Task<IReadOnlyList<BatchEntryResult>> ChangeVisibilityBatchAsync(string queueName, IReadOnlyList<string> receiptHandles, TimeSpan visibilityTimeout, CancellationToken cancellationToken = default)
        {
            if (visibilityTimeout == TimeSpan.Zero)
            {
                foreach (string handle in receiptHandles)
                {
                    Released.Add(handle);
                }
            }
            else
            {
                Assert.Equal(TimeSpan.FromSeconds(5), visibilityTimeout); // the retry delay of a failed message
                foreach (string handle in receiptHandles)
                {
                    RetriedLater.Enqueue(handle);
                }
            }

            return Task.FromResult<IReadOnlyList<BatchEntryResult>>(receiptHandles.Select((_, i) => BatchEntryResult.Success(i, null)).ToArray());
        }

        private static ServiceProvider BodyServices()
        {
            var services = new ServiceCollection();
            services.AddMessageBus(bus => bus
                .AddMessageType<Order>(TestSerializers.OrderType)
                .ConfigureSerialization(o => o.JsonSerializerContext = TestJsonContext.Default));
            return services.BuildServiceProvider();
        }
    }
}
