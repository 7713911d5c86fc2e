using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Linq;
using System.Net;
using System.Net.Http;
using System.Text;
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
using Missive.Tests.Infrastructure;
using Missive.Transport;

namespace Missive.Tests.Bus;

/// <summary>
/// <see cref="IMessagePublisher.PublishBatchAsync{T}"/>: every message as a single publish would go (middleware, checks,
/// its own result), sent in the service's batch calls, with a failure kept on its entry.
/// </summary>
public sealed class BatchPublishTests
{
    private static List<Order> Orders(int count)
    {
        var orders = new List<Order>(count);
        for (int i = 0; i < count; i++)
        {
            Order order = Infrastructure.Orders.Create(1);
            order.OrderId = "ORD-" + i;
            orders.Add(order);
        }

        return orders;
    }

    [Fact]
    public async Task ABatch_IsPublishedInOrder_WithOneResultPerMessage_OnTheInMemoryBroker()
    {
        using IHost host = BusTestHost.Build(b => b.CreateQueue("orders"), bus => bus.AddSqsPublisher<Order>("orders"));
        InMemoryBroker broker = host.Services.GetRequiredService<InMemoryBroker>();
        List<Order> orders = Orders(25);

        IReadOnlyList<PublishResult<Order>> results = await host.Services.GetRequiredService<IMessagePublisher>().PublishBatchAsync(orders);

        Assert.Equal(25, results.Count);
        Assert.All(results, r => Assert.True(r.Succeeded));
        Assert.Equal(Enumerable.Range(0, 25), results.Select(r => r.Index));
        Assert.Equal(orders, results.Select(r => r.Message));
        var bodies = new List<string>();
        for (IReadOnlyList<SqsMessage> got; (got = await broker.ReceiveAsync("orders", 10, TimeSpan.Zero)).Count > 0;)
        {
            bodies.AddRange(got.Select(m => m.Body));
        }

        Assert.Equal(orders.Select(o => o.OrderId), bodies.Select(b => "ORD-" + b.Split("\"ORD-")[1].Split('"')[0]));
    }

    [Fact]
    public async Task AHundredMessages_OnTheAwsTransport_AreTenSendMessageBatchCalls()
    {
        var endpoint = new BatchEchoEndpoint();
        using AwsTransport transport = AwsOver(endpoint);
        using IHost host = OnTransport(transport, bus => bus.AddSqsPublisher<Order>("orders"));

        IReadOnlyList<PublishResult<Order>> results = await host.Services.GetRequiredService<IMessagePublisher>().PublishBatchAsync(Orders(100));

        Assert.All(results, r => Assert.True(r.Succeeded, r.Error?.Message));
        Assert.Equal(10, endpoint.Calls);
        Assert.Equal(100, endpoint.Entries);
    }

    [Fact]
    public async Task OnATransportThatAnswersAtOnce_ABatchPublishEndsOnTheCallersThread_WithoutAHopPerMessage()
    {
        // Each message's send waits for the batch call; when the call answers, the waiting sends go on where it answered,
        // not one thread-pool hop per message (which, in process CPU, cost as much as the rest of the bus's work).
        var transport = new ScriptedTransport(_ => null);
        using IHost host = OnTransport(transport, bus => bus.AddSqsPublisher<Order>("orders"));
        IMessagePublisher publisher = host.Services.GetRequiredService<IMessagePublisher>();
        await publisher.PublishBatchAsync(Orders(1)); // the first publish checks the bus's configuration

        // Off the test framework's synchronization context (continuations are never inlined under one), as in a host.
        (Task<IReadOnlyList<PublishResult<Order>>> batch, bool completedAtOnce) = await Task.Run(() =>
        {
            Task<IReadOnlyList<PublishResult<Order>>> started = publisher.PublishBatchAsync(Orders(50));
            return (started, started.IsCompletedSuccessfully);
        });

        Assert.True(completedAtOnce);
        Assert.All(await batch, r => Assert.True(r.Succeeded));
        Assert.Equal(1 + 5, transport.Calls); // calls of 10, as the batch is written
    }

    [Theory]
    [InlineData(true, false)]
    [InlineData(true, true)]
    [InlineData(false, false)]
    [InlineData(false, true)]
    public async Task ABodyIsPooledOnlyForATransportDoneWithItWhenTheCallCompletes_AndClearedWhenItGoesBack(bool doneWithBodies, bool batch)
    {
        var transport = new KeepingTransport(doneWithBodies);
        using IHost host = OnTransport(transport, bus => bus.AddSqsPublisher<Order>("orders"));
        IMessagePublisher publisher = host.Services.GetRequiredService<IMessagePublisher>();
        List<Order> orders = Orders(3);

        if (batch)
        {
            Assert.All(await publisher.PublishBatchAsync(orders), r => Assert.True(r.Succeeded));
        }
        else
        {
            foreach (Order order in orders)
            {
                await publisher.PublishAsync(order);
            }
        }

        Assert.Equal(3, transport.Kept.Count);
        foreach ((ReadOnlyMemory<byte> body, byte[] atTheCall) in transport.Kept)
        {
            Assert.Contains("\"ORD-", Encoding.UTF8.GetString(atTheCall), StringComparison.Ordinal);
            if (doneWithBodies)
            {
                // Given back after the call, cleared (the pool may have lent the array again since: it no longer holds the body).
                Assert.False(body.Span.SequenceEqual(atTheCall));
            }
            else
            {
                Assert.True(body.Span.SequenceEqual(atTheCall)); // a transport that may keep requests keeps whole bodies
            }
        }
    }

    [Fact]
    public async Task ALargeBatch_IsSentInCallsWhileItIsStillBeingWritten()
    {
        var transport = new ScriptedTransport(_ => null);
        var seen = new ConcurrentBag<string>();
        int callsWhenTheLastWasWritten = -1;
        using IHost host = OnTransport(transport, bus => bus.AddSqsPublisher<Order>("orders").UsePublishMiddleware<Watch>(), new Watch(seen, () => callsWhenTheLastWasWritten = transport.Calls));

        IReadOnlyList<PublishResult<Order>> results = await host.Services.GetRequiredService<IMessagePublisher>().PublishBatchAsync(Orders(100));

        Assert.All(results, r => Assert.True(r.Succeeded));
        Assert.Equal(9, callsWhenTheLastWasWritten); // the first 90 were sent before the last message reached its send
        Assert.Equal(10, transport.Calls);
    }

    [Fact]
    public async Task OnAFifoQueue_MessagesThatReachTheirSendOutOfOrder_AreSentInTheBatchsOrder()
    {
        // A publish middleware that takes a different time for each message: they reach their sends in another order.
        var transport = new ScriptedTransport(_ => null);
        using IHost host = OnTransport(transport, bus => bus.AddSqsPublisher<Order>("orders.fifo").AddFifoIds<Order>(_ => "one-group").UsePublishMiddleware<Shuffle>());

        IReadOnlyList<PublishResult<Order>> results = await host.Services.GetRequiredService<IMessagePublisher>().PublishBatchAsync(Orders(30));

        Assert.All(results, r => Assert.True(r.Succeeded));
        Assert.Equal(Enumerable.Range(0, 30).Select(i => "ORD-" + i), transport.Sent);
    }

    [Fact]
    public async Task AnEntryTheTransportFailed_IsThatEntrysError_TransientWhenNotTheSendersFault_AndTheBusSendsNothingAgain()
    {
        var transport = new ScriptedTransport(request =>
            request.Body.Contains("\"ORD-2\"", StringComparison.Ordinal) ? "InternalError"
            : request.Body.Contains("\"ORD-4\"", StringComparison.Ordinal) ? "InvalidParameterValue"
            : null);
        using IHost host = OnTransport(transport, bus => bus.AddSqsPublisher<Order>("orders"));

        IReadOnlyList<PublishResult<Order>> results = await host.Services.GetRequiredService<IMessagePublisher>().PublishBatchAsync(Orders(6));

        var failed = Assert.IsType<MessageTransportException>(results[2].Error); // retrying is the transport's
        Assert.Equal("InternalError", failed.ErrorCode);
        Assert.True(failed.IsTransient);
        var refused = Assert.IsType<MessageTransportException>(results[4].Error);
        Assert.Equal("InvalidParameterValue", refused.ErrorCode);
        Assert.False(refused.IsTransient);
        Assert.Null(results[4].Envelope);
        Assert.Equal(4, results.Count(r => r.Succeeded));
        Assert.Equal(1, transport.Calls);
        Assert.Equal(4, transport.Sent.Count); // nothing reported sent that was not
    }

    [Fact]
    public async Task OnTheAwsTransport_AnEntrySqsFailedOnItsSide_IsSentAgainByTheTransport_AndReportedSent()
    {
        var endpoint = new BatchEchoEndpoint { FailFirst = "ORD-2" };
        using AwsTransport transport = AwsOver(endpoint);
        using IHost host = OnTransport(transport, bus => bus.AddSqsPublisher<Order>("orders"));

        IReadOnlyList<PublishResult<Order>> results = await host.Services.GetRequiredService<IMessagePublisher>().PublishBatchAsync(Orders(6));

        Assert.All(results, r => Assert.True(r.Succeeded, r.Error?.Message));
        Assert.Equal(2, endpoint.Calls);
        Assert.Equal(7, endpoint.Entries); // six, then the failed one alone
    }

    [Fact]
    public async Task OnAFifoQueue_AFailedEntryIsNotSentAgain_AndTheLaterCallsOfItsGroupAreNotSent()
    {
        var transport = new ScriptedTransport(request => request.Body.Contains("\"ORD-3\"", StringComparison.Ordinal) ? "InternalError" : null);
        using IHost host = OnTransport(transport, bus => bus.AddSqsPublisher<Order>("orders.fifo").AddFifoIds<Order>(_ => "one-group"));

        IReadOnlyList<PublishResult<Order>> results = await host.Services.GetRequiredService<IMessagePublisher>().PublishBatchAsync(Orders(15));

        Assert.False(results[3].Succeeded);
        Assert.True(Assert.IsType<MessageTransportException>(results[3].Error).IsTransient);
        Assert.Equal(1, transport.Attempts["ORD-3"]);

        // The first call (0-9) went whole, the service failing ORD-3 alone; the second call (10-14) would put the rest of
        // the group after a message that failed, so it is not sent, and each of its entries says why.
        Assert.Equal(Enumerable.Range(0, 10).Where(i => i != 3).Select(i => "ORD-" + i), transport.Sent);
        for (int i = 10; i < 15; i++)
        {
            var notSent = Assert.IsType<MessageTransportException>(results[i].Error);
            Assert.Contains("FIFO group 'one-group'", notSent.Message, StringComparison.Ordinal);
            Assert.Same(results[3].Error, notSent.InnerException);
        }
    }

    [Fact]
    public async Task AMessageRefusedBeforeSending_IsThatEntrysError_AndTheOthersAreSent()
    {
        using IHost host = BusTestHost.Build(b => b.CreateQueue("orders"), bus => bus.AddSqsPublisher<Order>("orders"));
        InMemoryBroker broker = host.Services.GetRequiredService<InMemoryBroker>();

        IReadOnlyList<PublishResult<Order>> results = await host.Services.GetRequiredService<IMessagePublisher>().PublishBatchAsync(
            Orders(5),
            order => order.OrderId == "ORD-1" ? new PublishOptions { Delay = TimeSpan.FromHours(1) } : null);

        Assert.IsType<ArgumentOutOfRangeException>(results[1].Error);
        Assert.Equal(4, results.Count(r => r.Succeeded));
        Assert.Equal(4, (await broker.ReceiveAsync("orders", 10, TimeSpan.Zero)).Count);
    }

    [Fact]
    public async Task PublishMiddleware_RunsForEachMessage_AndOneThatSendsNothing_HoldsNoOtherBack()
    {
        var seen = new ConcurrentBag<string>();
        using IHost host = BusTestHost.Build(
            b => b.CreateQueue("orders"),
            bus => bus.AddSqsPublisher<Order>("orders").UsePublishMiddleware<SkipOrd3>(),
            s => s.AddSingleton(seen));
        InMemoryBroker broker = host.Services.GetRequiredService<InMemoryBroker>();

        IReadOnlyList<PublishResult<Order>> results = await host.Services.GetRequiredService<IMessagePublisher>().PublishBatchAsync(Orders(6));

        Assert.Equal(6, seen.Count);
        Assert.All(results, r => Assert.True(r.Succeeded)); // a short-circuit is no error, as for a single publish
        List<SqsMessage> received = [.. await broker.ReceiveAsync("orders", 10, TimeSpan.Zero)];
        Assert.Equal(5, received.Count);
        Assert.DoesNotContain(received, m => m.Body.Contains("\"ORD-3\"", StringComparison.Ordinal));
    }

    // The coalescer's tests run on a fake clock: its windows and deadlines move only when a test moves the clock.

    [Fact]
    public async Task CoalescedPublishes_GoInBatchCalls_AndEachCallerGetsItsOwnOutcome()
    {
        // The first publish goes at once and its call is held while the others come: they gather behind it, in tens.
        var clock = new FakeTimeProvider();
        var transport = new ScriptedTransport(request => request.Body.Contains("\"ORD-7\"", StringComparison.Ordinal) ? "InvalidParameterValue" : null)
        {
            Hold = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously),
        };
        using IHost host = OnTransport(transport, bus => bus.AddSqsPublisher<Order>("orders").CoalescePublishes(TimeSpan.FromSeconds(1)), clock: clock);
        IMessagePublisher publisher = host.Services.GetRequiredService<IMessagePublisher>();
        List<Order> orders = Orders(41);

        Task<MessageEnvelope<Order>>[] publishes = orders.Select(o => publisher.PublishAsync(o)).ToArray();
        await transport.Entered.Task.WaitAsync(BusTestHost.Patience);
        transport.Hold.SetResult();
        Exception? refused = await Record.ExceptionAsync(() => publishes[7].WaitAsync(BusTestHost.Patience));

        Assert.Equal("InvalidParameterValue", Assert.IsType<MessageTransportException>(refused).ErrorCode);
        for (int i = 0; i < publishes.Length; i++)
        {
            if (i != 7)
            {
                Assert.Equal(orders[i], (await publishes[i].WaitAsync(BusTestHost.Patience)).Message);
            }
        }

        Assert.Equal(40, transport.Sent.Count);
        Assert.Equal(5, transport.Calls); // 1, then 40 in calls of 10, each as the one before it ends: no window closed (the clock stood still)
    }

    [Fact]
    public async Task ACoalescedPublishCancelledBeforeItsCall_SendsNothing_AndARefusedOne_StopsNoOther()
    {
        // The first publish goes at once (nothing under way) and its call is held; the next gathers behind it.
        var clock = new FakeTimeProvider();
        var transport = new ScriptedTransport(_ => null) { Hold = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously) };
        using IHost host = OnTransport(transport, bus => bus.AddSqsPublisher<Order>("orders").CoalescePublishes(TimeSpan.FromSeconds(1)), clock: clock);
        IMessagePublisher publisher = host.Services.GetRequiredService<IMessagePublisher>();
        List<Order> orders = Orders(3);
        using var cancel = new CancellationTokenSource();

        Task<MessageEnvelope<Order>> kept = publisher.PublishAsync(orders[0]);
        await transport.Entered.Task.WaitAsync(BusTestHost.Patience);
        Task<MessageEnvelope<Order>> cancelled = publisher.PublishAsync(orders[1], cancellationToken: cancel.Token);
        Task<MessageEnvelope<Order>> refused = publisher.PublishAsync(orders[2], new PublishOptions { Delay = TimeSpan.FromHours(1) });
        await cancel.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => cancelled.WaitAsync(BusTestHost.Patience)); // at once, the call still held
        transport.Hold.SetResult();

        await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() => refused.WaitAsync(BusTestHost.Patience));
        Assert.Equal(orders[0], (await kept.WaitAsync(BusTestHost.Patience)).Message);
        Assert.Equal(["ORD-0"], transport.Sent);
        Assert.Equal(1, transport.Calls);
    }

    [Fact]
    public async Task ACoalescedPublishWhoseCallerTimesOutWhileItsCallIsUnderWay_EndsWithTheServicesAnswer()
    {
        // Its call has begun: the entry may already be sent, so the caller learns what the service answered, not a guess.
        var clock = new FakeTimeProvider();
        var transport = new ScriptedTransport(_ => null) { Hold = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously) };
        using IHost host = OnTransport(transport, bus => bus.AddSqsPublisher<Order>("orders").CoalescePublishes(TimeSpan.FromMilliseconds(5)), clock: clock);
        IMessagePublisher publisher = host.Services.GetRequiredService<IMessagePublisher>();
        Order order = Orders(1)[0];
        using var timeout = new CancellationTokenSource(TimeSpan.FromMilliseconds(50), clock);

        Task<MessageEnvelope<Order>> publish = publisher.PublishAsync(order, cancellationToken: timeout.Token);
        await transport.Entered.Task.WaitAsync(BusTestHost.Patience);
        await clock.AdvanceUntil(() => timeout.IsCancellationRequested, limit: TimeSpan.FromSeconds(1));
        clock.Advance(TimeSpan.FromSeconds(1)); // well past the caller's timeout, well within the call's deadline
        await Task.Yield();
        Assert.False(publish.IsCompleted);
        transport.Hold!.SetResult();

        Assert.Equal(order, (await publish.WaitAsync(BusTestHost.Patience)).Message);
        Assert.Equal(["ORD-0"], transport.Sent);
    }

    [Fact]
    public async Task ACoalescedPublishAlone_GoesAtOnce_WithoutWaitingForItsWindow()
    {
        // The clock never moves: a publish that waited for its window (a second) would never end.
        var clock = new FakeTimeProvider();
        var transport = new ScriptedTransport(_ => null);
        using IHost host = OnTransport(transport, bus => bus.AddSqsPublisher<Order>("orders").CoalescePublishes(TimeSpan.FromSeconds(1)), clock: clock);
        IMessagePublisher publisher = host.Services.GetRequiredService<IMessagePublisher>();

        foreach (Order order in Orders(3))
        {
            await publisher.PublishAsync(order).WaitAsync(BusTestHost.Patience);
        }

        Assert.Equal(3, transport.Calls);
    }

    [Fact]
    public void ACoalescingWindowOutOfRange_IsAStartupError()
    {
        using IHost host = BusTestHost.Build(b => b.CreateQueue("orders"), bus => bus.AddSqsPublisher<Order>("orders").CoalescePublishes(TimeSpan.FromSeconds(5)));

        var error = Assert.Throws<MessageBusConfigurationException>(() => host.Services.GetRequiredService<IMessagePublisher>());

        Assert.Contains("CoalescePublishes", error.Message, StringComparison.Ordinal);
    }

    /// <summary>A host whose bus publishes through <paramref name="transport"/> (no in-memory broker).</summary>
    /// <summary>The AWS transport (queue "orders", digests not checked, a short backoff) over an endpoint in process.</summary>
    private static AwsTransport AwsOver(HttpMessageHandler endpoint)
    {
        var options = new AwsTransportOptions { Region = "eu-west-1", Credentials = new BasicAWSCredentials("AKIDTEST", "test/secret"), VerifyMessageDigests = false, MaxBackoff = TimeSpan.FromMilliseconds(5) };
        options.QueueUrls["orders"] = new Uri("https://sqs.eu-west-1.amazonaws.com/123456789012/orders");
        AwsSettings settings = AwsSettings.Resolve(options, static _ => null);
        return new AwsTransport(options, settings, service => new HttpClient(AwsTransport.CreateSigningHandler(settings, service, endpoint), disposeHandler: false), TimeProvider.System);
    }

    private static IHost OnTransport(IMessageTransport transport, Action<MessageBusBuilder> configure, object? middleware = null, TimeProvider? clock = null)
    {
        HostApplicationBuilder builder = Host.CreateApplicationBuilder();
        builder.Logging.ClearProviders();
        builder.Services.AddSingleton(transport);
        if (clock is not null)
        {
            builder.Services.AddSingleton(clock);
        }

        if (middleware is not null)
        {
            builder.Services.AddSingleton(middleware.GetType(), middleware);
        }

        builder.Services.AddMessageBus(bus =>
        {
            bus.AddMessageType<Order>(TestSerializers.OrderType).ConfigureSerialization(o => o.JsonSerializerContext = TestJsonContext.Default);
            configure(bus);
        });
        return builder.Build();
    }

    /// <summary>Calls <paramref name="onLast"/> when the last of 100 orders (ORD-99) comes through.</summary>
    private sealed class Watch(ConcurrentBag<string> seen, Action onLast) : IPublishMiddleware
    {
        public Task InvokeAsync(PublishContext context, PublishStep nextStep)
        {
            string id = ((MessageEnvelope<Order>)context.Envelope).Message!.OrderId;
            seen.Add(id);
            if (id == "ORD-99")
            {
                onLast();
            }

            return nextStep(context);
        }
    }

    /// <summary>Holds each message for a time that falls as the batch goes on, so later messages reach their sends first.</summary>
    private sealed class Shuffle : IPublishMiddleware
    {
        public async Task InvokeAsync(PublishContext context, PublishStep nextStep)
        {
            int n = int.Parse(((MessageEnvelope<Order>)context.Envelope).Message!.OrderId["ORD-".Length..], System.Globalization.CultureInfo.InvariantCulture);
            await Task.Delay(TimeSpan.FromMilliseconds((30 - n) * 3));
            await nextStep(context);
        }
    }

    private sealed class SkipOrd3(ConcurrentBag<string> seen) : IPublishMiddleware
    {
        public Task InvokeAsync(PublishContext context, PublishStep nextStep)
        {
            string id = ((MessageEnvelope<Order>)context.Envelope).Message!.OrderId;
            seen.Add(id);
            return id == "ORD-3" ? Task.CompletedTask : nextStep(context);
        }
    }

    /// <summary>A transport that keeps every request's body memory, and a copy of its bytes as they were during the call.</summary>
    private sealed class KeepingTransport(bool doneWithBodies) : IMessageTransport
    {
        public List<(ReadOnlyMemory<byte> Body, byte[] AtTheCall)> Kept { get; } = [];

        public bool IsDoneWithBodiesWhenCallsComplete => doneWithBodies;

        public Task<string> SendAsync(SqsSendRequest request, CancellationToken cancellationToken = default)
        {
            lock (Kept)
            {
                Kept.Add((request.Utf8Body, request.Utf8Body.ToArray()));
            }

            return Task.FromResult("m-" + Kept.Count);
        }

        public Task<string> PublishAsync(SnsPublishRequest request, CancellationToken cancellationToken = default) => throw new NotSupportedException();

        public Task<string> PutEventAsync(EventBridgeEntry entry, CancellationToken cancellationToken = default) => throw new NotSupportedException();

        public Task<IReadOnlyList<SqsMessage>> ReceiveAsync(string queueName, int maxMessages, TimeSpan waitTime, TimeSpan? visibilityTimeout = null, CancellationToken cancellationToken = default) => throw new NotSupportedException();

        public Task<bool> DeleteAsync(string queueName, string receiptHandle, CancellationToken cancellationToken = default) => throw new NotSupportedException();

        public Task<bool> ChangeVisibilityAsync(string queueName, string receiptHandle, TimeSpan visibilityTimeout, CancellationToken cancellationToken = default) => throw new NotSupportedException();
    }

    /// <summary>A transport whose batch send fails the entries a script names (the code), the first time for a service-side code.</summary>
    private sealed class ScriptedTransport(Func<SqsSendRequest, string?> failure) : IMessageTransport
    {
        public ConcurrentDictionary<string, int> Attempts { get; } = new();

        public List<string> Sent { get; } = [];

        public int Calls => _calls;

        /// <summary>Gets or sets a gate every call waits at, once it has said it began (<see cref="Entered"/>).</summary>
        public TaskCompletionSource? Hold { get; init; }

        public TaskCompletionSource Entered { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

        private int _calls;

        public async Task<IReadOnlyList<BatchEntryResult>> SendBatchAsync(IReadOnlyList<SqsSendRequest> requests, CancellationToken cancellationToken = default)
        {
            Interlocked.Increment(ref _calls);
            Entered.TrySetResult();
            if (Hold is not null)
            {
                await Hold.Task;
            }

            var results = new BatchEntryResult[requests.Count];
            for (int i = 0; i < requests.Count; i++)
            {
                string id = "ORD-" + requests[i].Body.Split("\"ORD-")[1].Split('"')[0];
                int attempt = Attempts.AddOrUpdate(id, 1, (_, n) => n + 1);
                string? code = failure(requests[i]);
                bool serviceSide = code == "InternalError";
                if (code is not null && (!serviceSide || attempt == 1))
                {
                    results[i] = new BatchEntryResult(i, null, code, "scripted", SenderFault: !serviceSide);
                    continue;
                }

                lock (Sent)
                {
                    Sent.Add(id);
                }

                results[i] = BatchEntryResult.Success(i, "m-" + id);
            }

            return results;
        }

        public Task<string> SendAsync(SqsSendRequest request, CancellationToken cancellationToken = default) => throw new NotSupportedException("batch only");

        public Task<string> PublishAsync(SnsPublishRequest request, CancellationToken cancellationToken = default) => throw new NotSupportedException();

        public Task<string> PutEventAsync(EventBridgeEntry entry, CancellationToken cancellationToken = default) => throw new NotSupportedException();

        public Task<IReadOnlyList<SqsMessage>> ReceiveAsync(string queueName, int maxMessages, TimeSpan waitTime, TimeSpan? visibilityTimeout = null, CancellationToken cancellationToken = default) => throw new NotSupportedException();

        public Task<bool> DeleteAsync(string queueName, string receiptHandle, CancellationToken cancellationToken = default) => throw new NotSupportedException();

        public Task<bool> ChangeVisibilityAsync(string queueName, string receiptHandle, TimeSpan visibilityTimeout, CancellationToken cancellationToken = default) => throw new NotSupportedException();
    }

    /// <summary>SQS in process answering each SendMessageBatch with every entry it was sent as successful, and counting.</summary>
    private sealed class BatchEchoEndpoint : HttpMessageHandler
    {
        private int _calls, _entries, _failed;

        public int Calls => _calls;

        public int Entries => _entries;

        /// <summary>Gets an order id whose entry the first time fails on the service's side (<c>InternalError</c>, <c>SenderFault</c> false).</summary>
        public string? FailFirst { get; init; }

        protected override async Task<HttpResponseMessage> SendAsync(HttpRequestMessage request, CancellationToken cancellationToken)
        {
            using System.Text.Json.JsonDocument body = System.Text.Json.JsonDocument.Parse(await request.Content!.ReadAsByteArrayAsync(cancellationToken));
            var answer = new StringBuilder("{\"Successful\":[");
            string failed = string.Empty;
            int n = 0, succeeded = 0;
            foreach (System.Text.Json.JsonElement entry in body.RootElement.GetProperty(nameof(Entries)).EnumerateArray())
            {
                n++;
                string id = entry.GetProperty("Id").GetString()!;
                if (FailFirst is not null && entry.GetProperty("MessageBody").GetString()!.Contains("\"" + FailFirst + "\"", StringComparison.Ordinal) && Interlocked.Exchange(ref _failed, 1) == 0)
                {
                    failed = "{\"Id\":\"" + id + "\",\"SenderFault\":false,\"Code\":\"InternalError\",\"Message\":\"try again\"}";
                    continue;
                }

                answer.Append(succeeded++ > 0 ? "," : string.Empty).Append("{\"Id\":\"").Append(id).Append("\",\"MessageId\":\"m").Append(n).Append("\"}");
            }

            Interlocked.Increment(ref _calls);
            Interlocked.Add(ref _entries, n);
            return new HttpResponseMessage(HttpStatusCode.OK) { Content = new StringContent(answer.Append("],\"Failed\":[" + failed + "]}").ToString(), Encoding.UTF8, "application/x-amz-json-1.0") };
        }
    }
}
