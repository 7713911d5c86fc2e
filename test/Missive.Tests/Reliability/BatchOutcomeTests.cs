using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Linq;
using System.Net;
using System.Net.Http;
using System.Text;
using System.Text.Json;
using System.Threading;
using System.Threading.Tasks;
using Amazon.Runtime;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Time.Testing;
using Missive.Aws;
using Missive.Bus;
using Missive.InMemory;
using Missive.Tests.Bus;
using Missive.Tests.Infrastructure;
using Missive.Serialization;
using Missive.Transport;
using static Missive.Tests.Reliability.TimeAndPartialFailureTests;

namespace Missive.Tests.Reliability;

/// <summary>
/// The outcome rule of batched entries (<see cref="BatchEntryOutcome"/>), through the bus's public API: a visibility
/// extension entry the service fails is not a lost receipt; a deadline that cuts an extension between its calls does
/// not stop the rest from being extended; a batch publish cancelled in a retry backoff or between two destinations
/// reports what the service took as sent; shutdown releases every poller's messages together within its budget.
/// </summary>
public sealed class BatchOutcomeTests
{
    private static readonly TimeSpan Patience = BusTestHost.Patience;

    private static IHost Host(IMessageTransport transport, FakeTimeProvider clock, GateScript script, int concurrency, TimeSpan visibility)
    {
        HostApplicationBuilder builder = Microsoft.Extensions.Hosting.Host.CreateApplicationBuilder();
        builder.Logging.ClearProviders();
        builder.Services.AddSingleton(transport).AddSingleton<TimeProvider>(clock).AddSingleton(script);
        builder.Services.AddMessageBus(bus => bus
            .AddMessageType<Order>(TestSerializers.OrderType)
            .ConfigureSerialization(o => o.JsonSerializerContext = TestJsonContext.Default)
            .AddHandler<Order, GatedHandler>()
            .AddSqsPublisher<Order>("work")
            .AddQueuePoller("work", o =>
            {
                o.WaitTime = TimeSpan.FromSeconds(1);
                o.VisibilityTimeout = visibility;
                o.MaxConcurrency = concurrency;
            }));
        return builder.Build();
    }

    private static List<Order> Orders(int count)
        => Enumerable.Range(0, count).Select(i =>
        {
            Order order = Infrastructure.Orders.Create(1);
            order.OrderId = "ORD-" + i;
            return order;
        }).ToList();

    private static AwsTransport AwsOver(HttpMessageHandler endpoint, TimeProvider clock)
    {
        var options = new AwsTransportOptions { Region = "eu-west-1", Credentials = new BasicAWSCredentials("AKIDTEST", "test/secret"), VerifyMessageDigests = false };
        options.QueueUrls["work"] = new Uri(BrokerSqsEndpoint.QueueUrlPrefix + "work");
        options.QueueUrls["orders"] = new Uri(BrokerSqsEndpoint.QueueUrlPrefix + "orders");
        AwsSettings settings = AwsSettings.Resolve(options, static _ => null);
        return new AwsTransport(options, settings, service => new HttpClient(AwsTransport.CreateSigningHandler(settings, service, endpoint), disposeHandler: false), clock);
    }

    private static async Task StopAsync(IHost host, FakeTimeProvider clock)
    {
        Task stopped = host.StopAsync();
        await clock.AdvanceUntil(() => stopped.IsCompleted);
        await stopped;
    }

    // Item 1: an extension entry that SQS fails on its side (InternalError, not the sender's fault).
    [Fact]
    public async Task AnExtensionEntryTheServiceFails_IsTriedAgain_SoItsLongHandlerIsNeverDeliveredTwice()
    {
        var clock = new FakeTimeProvider();
        var broker = new InMemoryBroker(clock);
        broker.CreateQueue("work");
        var transport = new FailsFirstExtensionEntry(broker);
        var script = new GateScript { Duration = TimeSpan.FromSeconds(20), Clock = clock };
        using IHost host = Host(transport, clock, script, concurrency: 1, visibility: TimeSpan.FromSeconds(8));
        await host.Services.GetRequiredService<IMessagePublisher>().PublishAsync(Orders(1)[0]);
        await host.StartAsync();
        await script.Started(1).WaitAsync(Patience);

        await clock.AdvanceUntil(() => script.Completed == 1 && broker.GetQueue("work").Count == 0, step: TimeSpan.FromMilliseconds(250));

        Assert.Equal(1, transport.FailedEntries); // the service did fail an extension entry
        Assert.Equal(1, script.StartCount); // and the message was extended again in time, never delivered twice
        await StopAsync(host, clock);
    }

    // Item 1: fifteen held messages, the extension's deadline firing between its two calls (10 and 5 entries).
    [Fact]
    public async Task FifteenHeldMessages_TheExtensionsDeadlineFiringBetweenItsCalls_NoneIsDeliveredTwice()
    {
        var clock = new FakeTimeProvider();
        var broker = new InMemoryBroker(clock);
        broker.CreateQueue("work");
        TimeSpan visibility = TimeSpan.FromSeconds(8);
        int cut = 0;
        var endpoint = new BrokerSqsEndpoint(broker)
        {
            BeforeAnswer = async (operation, entries, token) =>
            {
                if (operation == "ChangeMessageVisibilityBatch" && entries == 5 && Interlocked.Exchange(ref cut, 1) == 0)
                {
                    clock.Advance((visibility / 8) + TimeSpan.FromMilliseconds(10)); // the deadline fires during the second call
                    await Task.Delay(Timeout.InfiniteTimeSpan, token); // and the call ends as a connection would: cancelled
                }
            },
        };
        using AwsTransport transport = AwsOver(endpoint, clock);
        var script = new GateScript { Duration = TimeSpan.FromSeconds(20), Clock = clock };
        using IHost host = Host(transport, clock, script, concurrency: 15, visibility);
        IMessagePublisher publisher = host.Services.GetRequiredService<IMessagePublisher>();
        foreach (Order order in Orders(15))
        {
            await publisher.PublishAsync(order);
        }

        await host.StartAsync();
        await clock.AdvanceUntil(() => script.StartCount == 15, step: TimeSpan.FromMilliseconds(10), limit: TimeSpan.FromSeconds(2));
        await clock.AdvanceUntil(() => script.Completed >= 15 && broker.GetQueue("work").Count == 0, step: TimeSpan.FromMilliseconds(250));

        Assert.Equal(1, Volatile.Read(ref cut)); // the deadline did cut an extension between its calls
        Assert.Equal(15, script.StartCount); // every message handled once
        await StopAsync(host, clock);
    }

    // Item 2: a batch publish cancelled while entries the service failed wait for their retry.
    [Fact]
    public async Task ABatchPublishCancelledDuringARetryBackoff_ReportsEveryStoredMessageSent_AndNoneCancelled()
    {
        var clock = new BackoffSignallingClock();
        var endpoint = new PartlyFailingSqs(failOnFirstCall: ["ORD-1", "ORD-2"]);
        using AwsTransport transport = AwsOver(endpoint, clock);
        using IHost host = PublishingHost(transport);
        using var cancel = new CancellationTokenSource();
        List<Order> orders = Orders(5);

        Task<IReadOnlyList<PublishResult<Order>>> publishing = host.Services.GetRequiredService<IMessagePublisher>().PublishBatchAsync(orders, cancellationToken: cancel.Token);
        await Task.WhenAny(clock.BackoffStarted.Task, endpoint.RetryEntered.Task).WaitAsync(Patience); // in the backoff (or, if it drew zero, in the retry's call)
        await cancel.CancelAsync();
        IReadOnlyList<PublishResult<Order>> results = await publishing.WaitAsync(Patience);

        Assert.Equal(["ORD-0", "ORD-3", "ORD-4"], endpoint.Stored);
        foreach (PublishResult<Order> result in results)
        {
            if (endpoint.Stored.Contains(result.Message.OrderId))
            {
                Assert.True(result.Succeeded, $"{result.Message.OrderId} was stored but reported {result.Error}");
            }
            else
            {
                Assert.False(result.Succeeded); // not stored: cancelled (or, had its retry begun, may have been sent)
            }
        }
    }

    // Item 2: a batch cancelled between two destinations, at the transport's public API.
    [Fact]
    public async Task ABatchCancelledBetweenTwoQueues_KeepsTheFirstQueuesResults_AndReportsTheSecondsNotSent()
    {
        var clock = new FakeTimeProvider();
        var broker = new InMemoryBroker(clock);
        broker.CreateQueue("orders");
        broker.CreateQueue("audit");
        using var cancel = new CancellationTokenSource();
        var endpoint = new BatchSendingBrokerSqs(broker, onGetQueueUrl: async (name, token) =>
        {
            if (name == "audit")
            {
                await cancel.CancelAsync(); // the caller cancels while the second queue's URL is resolved
                await Task.Delay(Timeout.InfiniteTimeSpan, token);
            }
        });
        using AwsTransport transport = AwsOver(endpoint, clock);
        SqsSendRequest[] requests = [.. Enumerable.Range(0, 4).Select(i => new SqsSendRequest { QueueName = i < 2 ? "orders" : "audit", Body = "{\"n\":" + i + "}" })];

        IReadOnlyList<BatchEntryResult> results = await transport.SendBatchAsync(requests, cancel.Token).WaitAsync(Patience);

        Assert.Equal(2, broker.GetQueue("orders").Count);
        Assert.Equal(0, broker.GetQueue("audit").Count);
        Assert.All(results.Take(2), r => Assert.Equal(BatchEntryOutcome.Succeeded, r.Outcome));
        Assert.All(results.Skip(2), r => Assert.Equal(BatchEntryOutcome.NotSent, r.Outcome));
    }

    // Item 4: at shutdown, every poller's abandoned messages are released together, each call within a short budget.
    [Fact]
    public async Task AtShutdown_EveryPollersAbandonedMessagesAreReleasedTogether_WithinAShortBudget()
    {
        var clock = new FakeTimeProvider();
        var broker = new InMemoryBroker(clock);
        broker.CreateQueue("a");
        broker.CreateQueue("b");
        var transport = new ReleasesNeverAnswer(broker);
        var stuck = new Stuck();
        HostApplicationBuilder builder = Microsoft.Extensions.Hosting.Host.CreateApplicationBuilder();
        builder.Logging.ClearProviders();
        builder.Services.Configure<HostOptions>(o => o.ShutdownTimeout = TimeSpan.FromMilliseconds(100));
        builder.Services.AddSingleton<IMessageTransport>(transport).AddSingleton<TimeProvider>(clock).AddSingleton(stuck);
        builder.Services.AddMessageBus(bus => bus
            .AddMessageType<Order>(TestSerializers.OrderType)
            .ConfigureSerialization(o => o.JsonSerializerContext = TestJsonContext.Default)
            .AddHandler<Order, StuckHandler>()
            .AddQueuePoller("a", o => o.VisibilityTimeout = TimeSpan.FromMinutes(10))
            .AddQueuePoller("b", o => o.VisibilityTimeout = TimeSpan.FromMinutes(10)));
        using IHost host = builder.Build();
        IEnvelopeSerializer serializer = host.Services.GetRequiredService<IEnvelopeSerializer>();
        foreach (string queue in new[] { "a", "b" })
        {
            string body = serializer.SerializeToString(host.Services.GetRequiredService<IEnvelopeFactory>().CreateEnvelope(Orders(1)[0]));
            await broker.SendAsync(new SqsSendRequest { QueueName = queue, Body = body });
        }

        await host.StartAsync();
        await clock.AdvanceUntil(() => stuck.Started == 2, step: TimeSpan.FromMilliseconds(10), limit: TimeSpan.FromSeconds(5));

        Task stopped = host.StopAsync(); // the handlers ignore cancellation: the host stops waiting after 100 ms
        await BusTestHost.WaitUntil(() => transport.Releases == 2); // both pollers' releases under way, the clock standing still
        Assert.False(stopped.IsCompleted);
        clock.Advance(TimeSpan.FromSeconds(5)); // the release budget, far short of the 10-minute visibility timeout
        await stopped.WaitAsync(Patience);
        stuck.Release.SetResult();
    }

    // Item 3: a coalesced call that never answers holds its destination's later publishes no longer than its deadline.
    [Fact]
    public async Task ACoalescedCallThatNeverAnswers_FailsAsMaybeSentAtItsDeadline_AndLaterPublishesGoOn()
    {
        var clock = new FakeTimeProvider();
        var transport = new FirstBatchCall(new InMemoryBroker(clock), answerNull: false);
        using IHost host = CoalescingHost(transport, clock);
        IMessagePublisher publisher = host.Services.GetRequiredService<IMessagePublisher>();
        List<Order> orders = Orders(3);

        Task<MessageEnvelope<Order>> first = publisher.PublishAsync(orders[0]);
        await transport.FirstEntered.Task.WaitAsync(Patience);
        Task<MessageEnvelope<Order>>[] later = [publisher.PublishAsync(orders[1]), publisher.PublishAsync(orders[2])];
        clock.Advance(BatchSends.CallDeadline);

        var error = await Assert.ThrowsAsync<MessageTransportException>(() => first.WaitAsync(Patience));
        Assert.Contains("may have taken it", error.Message, StringComparison.Ordinal);
        Assert.True(error.IsTransient);
        await Task.WhenAll(later).WaitAsync(Patience);
        Assert.Equal(2, transport.Inner2.GetQueue("work").Count);
    }

    // Item 3: a transport answering a coalesced call with no results fails that call's publishes, and the chain goes on.
    [Fact]
    public async Task ACoalescedCallAnsweredWithNoResults_FailsItsPublishes_AndLaterPublishesGoOn()
    {
        var clock = new FakeTimeProvider();
        var transport = new FirstBatchCall(new InMemoryBroker(clock), answerNull: true);
        using IHost host = CoalescingHost(transport, clock);
        IMessagePublisher publisher = host.Services.GetRequiredService<IMessagePublisher>();
        List<Order> orders = Orders(2);

        await Assert.ThrowsAsync<MessageTransportException>(() => publisher.PublishAsync(orders[0]).WaitAsync(Patience));
        await publisher.PublishAsync(orders[1]).WaitAsync(Patience);

        Assert.Equal(1, transport.Inner2.GetQueue("work").Count);
    }

    private static IHost CoalescingHost(IMessageTransport transport, TimeProvider clock)
    {
        HostApplicationBuilder builder = Microsoft.Extensions.Hosting.Host.CreateApplicationBuilder();
        builder.Logging.ClearProviders();
        builder.Services.AddSingleton(transport).AddSingleton(clock);
        builder.Services.AddMessageBus(bus => bus
            .AddMessageType<Order>(TestSerializers.OrderType)
            .ConfigureSerialization(o => o.JsonSerializerContext = TestJsonContext.Default)
            .AddSqsPublisher<Order>("work")
            .CoalescePublishes(TimeSpan.FromMilliseconds(5)));
        return builder.Build();
    }

    private static IHost PublishingHost(IMessageTransport transport)
    {
        HostApplicationBuilder builder = Microsoft.Extensions.Hosting.Host.CreateApplicationBuilder();
        builder.Logging.ClearProviders();
        builder.Services.AddSingleton(transport);
        builder.Services.AddMessageBus(bus => bus
            .AddMessageType<Order>(TestSerializers.OrderType)
            .ConfigureSerialization(o => o.JsonSerializerContext = TestJsonContext.Default)
            .AddSqsPublisher<Order>("work"));
        return builder.Build();
    }

    /// <summary>The first extension entry is failed as SQS fails one on its side; everything else goes to the broker.</summary>
    private sealed class FailsFirstExtensionEntry(InMemoryBroker broker) : ForwardingTransport(broker), IMessageTransport
    {
        private int _failed;

        public int FailedEntries => Volatile.Read(ref _failed);

        public async Task<IReadOnlyList<BatchEntryResult>> ChangeVisibilityBatchAsync(string queueName, IReadOnlyList<string> receiptHandles, TimeSpan visibilityTimeout, CancellationToken cancellationToken = default)
        {
            var results = new BatchEntryResult[receiptHandles.Count];
            for (int i = 0; i < results.Length; i++)
            {
                results[i] = visibilityTimeout > TimeSpan.Zero && Interlocked.CompareExchange(ref _failed, 1, 0) == 0
                    ? new BatchEntryResult(i, null, "InternalError", "We encountered an internal error. Please try again.", SenderFault: false)
                    : await Inner.ChangeVisibilityAsync(queueName, receiptHandles[i], visibilityTimeout, cancellationToken)
                        ? BatchEntryResult.Success(i, null)
                        : new BatchEntryResult(i, null, "ReceiptHandleIsInvalid", "gone", SenderFault: true);
            }

            return results;
        }
    }

    /// <summary>Releases (a visibility change to zero) that never answer and ignore their token; everything else goes to the broker.</summary>
    private sealed class ReleasesNeverAnswer(InMemoryBroker broker) : ForwardingTransport(broker), IMessageTransport
    {
        private int _releases;

        public int Releases => Volatile.Read(ref _releases);

        public bool IsReceiveCancellationSafe => true;

        public Task<IReadOnlyList<BatchEntryResult>> ChangeVisibilityBatchAsync(string queueName, IReadOnlyList<string> receiptHandles, TimeSpan visibilityTimeout, CancellationToken cancellationToken = default)
        {
            if (visibilityTimeout == TimeSpan.Zero)
            {
                Interlocked.Increment(ref _releases);
                return new TaskCompletionSource<IReadOnlyList<BatchEntryResult>>().Task;
            }

            return ((IMessageTransport)Inner).ChangeVisibilityBatchAsync(queueName, receiptHandles, visibilityTimeout, cancellationToken);
        }
    }

    public sealed class Stuck
    {
        private int _started;

        public int Started => Volatile.Read(ref _started);

        public TaskCompletionSource Release { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public Task RunAsync()
        {
            Interlocked.Increment(ref _started);
            return Release.Task; // ignores cancellation
        }
    }

    public sealed class StuckHandler(Stuck stuck) : IMessageHandler<Order>
    {
        public Task HandleAsync(MessageEnvelope<Order> envelope, CancellationToken cancellationToken) => stuck.RunAsync();
    }

    /// <summary>The first batch send never answers (ignoring its token), or answers null; the others go to the broker.</summary>
    private sealed class FirstBatchCall : ForwardingTransport, IMessageTransport
    {
        private readonly bool _answerNull;
        private int _calls;

        public FirstBatchCall(InMemoryBroker broker, bool answerNull)
            : base(broker)
        {
            broker.CreateQueue("work");
            _answerNull = answerNull;
        }

        public InMemoryBroker Inner2 => Inner;

        public TaskCompletionSource FirstEntered { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public Task<IReadOnlyList<BatchEntryResult>> SendBatchAsync(IReadOnlyList<SqsSendRequest> requests, CancellationToken cancellationToken = default)
        {
            if (Interlocked.Increment(ref _calls) == 1)
            {
                FirstEntered.TrySetResult();
                return _answerNull ? Task.FromResult<IReadOnlyList<BatchEntryResult>>(null!) : new TaskCompletionSource<IReadOnlyList<BatchEntryResult>>().Task;
            }

            return ((IMessageTransport)Inner).SendBatchAsync(requests, cancellationToken);
        }
    }

    /// <summary>A fake clock that says when a short timer starts: the backoff before entries are sent again.</summary>
    private sealed class BackoffSignallingClock : FakeTimeProvider
    {
        public TaskCompletionSource BackoffStarted { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public override ITimer CreateTimer(TimerCallback callback, object? state, TimeSpan dueTime, TimeSpan period)
        {
            if (dueTime > TimeSpan.Zero && dueTime <= TimeSpan.FromSeconds(1) && period == Timeout.InfiniteTimeSpan)
            {
                BackoffStarted.TrySetResult();
            }

            return base.CreateTimer(callback, state, dueTime, period);
        }
    }

    /// <summary>SendMessageBatch as SQS answers it, failing the named orders' entries on its side in the first call; a later call is held until cancelled.</summary>
    private sealed class PartlyFailingSqs(string[] failOnFirstCall) : HttpMessageHandler
    {
        private readonly ConcurrentQueue<string> _stored = new();
        private int _calls;

        public TaskCompletionSource RetryEntered { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public List<string> Stored => [.. _stored];

        protected override async Task<HttpResponseMessage> SendAsync(HttpRequestMessage request, CancellationToken cancellationToken)
        {
            if (Interlocked.Increment(ref _calls) > 1)
            {
                RetryEntered.TrySetResult();
                await Task.Delay(Timeout.InfiniteTimeSpan, cancellationToken);
            }

            using JsonDocument body = JsonDocument.Parse(await request.Content!.ReadAsByteArrayAsync(cancellationToken));
            var successful = new List<string>();
            var failed = new List<string>();
            foreach (JsonElement entry in body.RootElement.GetProperty("Entries").EnumerateArray())
            {
                string id = entry.GetProperty("Id").GetString()!;
                string order = "ORD-" + entry.GetProperty("MessageBody").GetString()!.Split("\"ORD-")[1].Split('"')[0];
                if (failOnFirstCall.Contains(order))
                {
                    failed.Add($"{{\"Id\":\"{id}\",\"SenderFault\":false,\"Code\":\"InternalError\",\"Message\":\"Please try again.\"}}");
                }
                else
                {
                    _stored.Enqueue(order);
                    successful.Add($"{{\"Id\":\"{id}\",\"MessageId\":\"{Guid.NewGuid()}\"}}");
                }
            }

            return new HttpResponseMessage(HttpStatusCode.OK) { Content = new StringContent($"{{\"Successful\":[{string.Join(",", successful)}],\"Failed\":[{string.Join(",", failed)}]}}", Encoding.UTF8, "application/x-amz-json-1.0") };
        }
    }

    /// <summary>GetQueueUrl (with a hook) and SendMessageBatch into the broker, as SQS answers them.</summary>
    private sealed class BatchSendingBrokerSqs(InMemoryBroker broker, Func<string, CancellationToken, Task> onGetQueueUrl) : HttpMessageHandler
    {
        protected override async Task<HttpResponseMessage> SendAsync(HttpRequestMessage request, CancellationToken cancellationToken)
        {
            string operation = request.Headers.GetValues("X-Amz-Target").Single().Split('.')[1];
            using JsonDocument body = JsonDocument.Parse(await request.Content!.ReadAsByteArrayAsync(cancellationToken));
            string answer;
            if (operation == "GetQueueUrl")
            {
                string name = body.RootElement.GetProperty("QueueName").GetString()!;
                await onGetQueueUrl(name, cancellationToken);
                answer = $"{{\"QueueUrl\":\"{BrokerSqsEndpoint.QueueUrlPrefix}{name}\"}}";
            }
            else
            {
                string queue = body.RootElement.GetProperty("QueueUrl").GetString()![BrokerSqsEndpoint.QueueUrlPrefix.Length..];
                var successful = new List<string>();
                foreach (JsonElement entry in body.RootElement.GetProperty("Entries").EnumerateArray())
                {
                    string id = await broker.SendAsync(new SqsSendRequest { QueueName = queue, Body = entry.GetProperty("MessageBody").GetString()! }, cancellationToken);
                    successful.Add($"{{\"Id\":\"{entry.GetProperty("Id").GetString()}\",\"MessageId\":\"{id}\"}}");
                }

                answer = $"{{\"Successful\":[{string.Join(",", successful)}],\"Failed\":[]}}";
            }

            return new HttpResponseMessage(HttpStatusCode.OK) { Content = new StringContent(answer, Encoding.UTF8, "application/x-amz-json-1.0") };
        }
    }
}
