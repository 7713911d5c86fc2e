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
using Missive.Transport;

namespace Missive.Tests.Reliability;

/// <summary>
/// The bus under time and partial failure, through its public API only: each case a user met (a batch publish behind
/// a concurrency-limiting middleware, a batch split by size whose second call fails, an oversized message in a batch,
/// cancelled coalesced publishes behind a held call, a FIFO queue under another name, a transport's own cancellation, a
/// late and a stalled visibility extension, a configuration check that resolves the bus).
/// </summary>
public sealed class TimeAndPartialFailureTests
{
    private static readonly TimeSpan Patience = BusTestHost.Patience;

    private static List<Order> Orders(int count, int noteLength = 0)
    {
        var orders = new List<Order>(count);
        for (int i = 0; i < count; i++)
        {
            Order order = Infrastructure.Orders.Create(1);
            order.OrderId = "ORD-" + i;
            order.CustomerName = new string('x', noteLength);
            orders.Add(order);
        }

        return orders;
    }

    private static IHost Host(Action<MessageBusBuilder> configure, Action<IServiceCollection>? services = null)
    {
        HostApplicationBuilder builder = Microsoft.Extensions.Hosting.Host.CreateApplicationBuilder();
        builder.Logging.ClearProviders();
        services?.Invoke(builder.Services);
        builder.Services.AddMessageBus(bus =>
        {
            bus.AddMessageType<Order>(TestSerializers.OrderType).ConfigureSerialization(o => o.JsonSerializerContext = TestJsonContext.Default);
            configure(bus);
        });
        return builder.Build();
    }

    private static List<string> Drain(InMemoryBroker broker, string queue)
    {
        var ids = new List<string>();
        for (IReadOnlyList<SqsMessage> got; (got = broker.ReceiveAsync(queue, 10, TimeSpan.Zero).GetAwaiter().GetResult()).Count > 0;)
        {
            ids.AddRange(got.Select(m => "ORD-" + m.Body.Split("\"ORD-")[1].Split('"')[0]));
        }

        return ids;
    }

    // 1. A batch publish behind a middleware that lets one message through at a time.
    [Theory]
    [InlineData(3)]
    [InlineData(25)]
    public async Task ABatchPublish_BehindAMiddlewareHoldingASemaphoreAroundItsNextStep_SendsEveryMessageInOrder(int count)
    {
        using IHost host = Host(bus => bus.UseInMemoryBroker(b => b.CreateQueue("orders")).AddSqsPublisher<Order>("orders").UsePublishMiddleware<OneAtATime>(), s => s.AddSingleton(new OneAtATime()));
        InMemoryBroker broker = host.Services.GetRequiredService<InMemoryBroker>();
        List<Order> orders = Orders(count);

        IReadOnlyList<PublishResult<Order>> results = await host.Services.GetRequiredService<IMessagePublisher>().PublishBatchAsync(orders).WaitAsync(Patience);

        Assert.All(results, r => Assert.True(r.Succeeded, r.Error?.Message));
        Assert.Equal(orders.Select(o => o.OrderId), Drain(broker, "orders"));
    }

    // 2a. A batch split by size whose second call fails on every attempt.
    [Fact]
    public async Task ABatchSplitBySize_WhoseSecondCallFails_ReportsTheFirstCallsMessagesSent_AndTheOthersFailedAsMaybeTaken()
    {
        var endpoint = new SqsBatchEndpoint { FailCallsWith = entries => entries == 4 ? HttpStatusCode.InternalServerError : null };
        using AwsTransport transport = AwsOver(endpoint);
        using IHost host = Host(bus => bus.AddSqsPublisher<Order>("orders"), s => s.AddSingleton<IMessageTransport>(transport));
        List<Order> orders = Orders(10, noteLength: 157_000); // six fit under 1 MiB: calls of 6 and 4

        IReadOnlyList<PublishResult<Order>> results = await host.Services.GetRequiredService<IMessagePublisher>().PublishBatchAsync(orders).WaitAsync(Patience);

        Assert.Equal(Enumerable.Range(0, 6).Select(i => "ORD-" + i), endpoint.Stored);
        Assert.All(results.Take(6), r => Assert.True(r.Succeeded, r.Error?.Message));
        foreach (PublishResult<Order> failed in results.Skip(6))
        {
            var error = Assert.IsType<MessageTransportException>(failed.Error);
            Assert.Equal("InternalError", error.ErrorCode);
            Assert.Contains("may have taken", error.Message, StringComparison.Ordinal);
        }
    }

    // 2b. One message too large for SQS among thirty that fit.
    [Fact]
    public async Task AnOversizedMessageInABatch_FailsAlone_BeforeAnyCall_AndEveryOtherMessageIsSent()
    {
        var endpoint = new SqsBatchEndpoint();
        using AwsTransport transport = AwsOver(endpoint);
        using IHost host = Host(bus => bus.AddSqsPublisher<Order>("orders"), s => s.AddSingleton<IMessageTransport>(transport));
        List<Order> orders = Orders(30, noteLength: 150_000);
        orders[12].CustomerName = new string('y', 1_100_000);

        IReadOnlyList<PublishResult<Order>> results = await host.Services.GetRequiredService<IMessagePublisher>().PublishBatchAsync(orders).WaitAsync(Patience);

        var tooLarge = Assert.IsType<MessageTransportException>(results[12].Error);
        Assert.Equal("EntryTooLarge", tooLarge.ErrorCode);
        Assert.Contains("1,048,576", tooLarge.Message, StringComparison.Ordinal);
        Assert.False(tooLarge.IsTransient);
        Assert.All(results.Where(r => r.Index != 12), r => Assert.True(r.Succeeded, r.Error?.Message));
        Assert.Equal(Enumerable.Range(0, 30).Where(i => i != 12).Select(i => "ORD-" + i), endpoint.Stored);
        Assert.True(endpoint.LargestCall <= 1024 * 1024);
    }

    // 3. Coalesced publishes cancelled while queued behind a call under way.
    [Fact]
    public async Task CoalescedPublishesCancelledBehindAHeldCall_ReturnAtOnce_AndNoneIsSent()
    {
        var transport = new HeldSendTransport();
        using IHost host = Host(bus => bus.AddSqsPublisher<Order>("orders").CoalescePublishes(TimeSpan.FromSeconds(1)), s => s.AddSingleton<IMessageTransport>(transport));
        IMessagePublisher publisher = host.Services.GetRequiredService<IMessagePublisher>();
        List<Order> orders = Orders(26);
        Task<MessageEnvelope<Order>> first = publisher.PublishAsync(orders[0]);
        await transport.Entered.Task.WaitAsync(Patience);

        using var cancel = new CancellationTokenSource();
        Task<MessageEnvelope<Order>>[] queued = orders.Skip(1).Select(o => publisher.PublishAsync(o, cancellationToken: cancel.Token)).ToArray();
        await cancel.CancelAsync();

        foreach (Task<MessageEnvelope<Order>> publish in queued)
        {
            await Assert.ThrowsAnyAsync<OperationCanceledException>(() => publish.WaitAsync(Patience)); // while the call is still held
        }

        transport.Hold.SetResult();
        await first.WaitAsync(Patience);
        Assert.Equal(["ORD-0"], transport.Sent);
    }

    // 4. A FIFO queue configured under a name without .fifo.
    [Fact]
    public async Task AFifoQueueUnderAnotherName_IsRefusedAtStartup_WithWhatToWrite()
    {
        using IHost host = Host(bus => bus
            .UseAws(o =>
            {
                o.Region = "eu-west-1";
                o.Credentials = new BasicAWSCredentials("AKIDTEST", "test/secret");
                o.QueueUrls["orders"] = new Uri("https://sqs.eu-west-1.amazonaws.com/123456789012/orders.fifo");
            })
            .AddHandler<Order, NoOpHandler>()
            .AddQueuePoller("orders", o => o.MaxConcurrency = 10));

        var error = await Assert.ThrowsAsync<MessageBusConfigurationException>(() => host.StartAsync().WaitAsync(Patience));

        Assert.Contains("QueueUrls:orders is a FIFO queue", error.Message, StringComparison.Ordinal);
        Assert.Contains("'orders.fifo'", error.Message, StringComparison.Ordinal);
    }

    // 5. A transport's own cancellation (its HTTP timeout) from a receive.
    [Fact]
    public async Task AReceiveThatThrowsTheTransportsOwnCancellation_IsAFailedReceive_AndPollingGoesOn()
    {
        var clock = new FakeTimeProvider();
        var broker = new InMemoryBroker(clock);
        broker.CreateQueue("work");
        var transport = new CancelsOnceTransport(broker);
        var handled = new ConcurrentBag<string>();
        using IHost host = Host(
            bus => bus.AddHandler<Order, RecordingHandler>().AddSqsPublisher<Order>("work").AddQueuePoller("work", o =>
            {
                o.WaitTime = TimeSpan.FromSeconds(1);
                o.ReceiveErrorDelay = TimeSpan.FromMilliseconds(100);
                o.MaxReceiveErrorDelay = TimeSpan.FromMilliseconds(100);
            }),
            s => s.AddSingleton<IMessageTransport>(transport).AddSingleton<TimeProvider>(clock).AddSingleton(handled));
        IMessagePublisher publisher = host.Services.GetRequiredService<IMessagePublisher>();
        foreach (Order order in Orders(5))
        {
            await publisher.PublishAsync(order);
        }

        await host.StartAsync();
        await clock.AdvanceUntil(() => handled.Count == 5 && broker.GetQueue("work").Count == 0);
        IHostApplicationLifetime lifetime = host.Services.GetRequiredService<IHostApplicationLifetime>();
        Assert.False(lifetime.ApplicationStopping.IsCancellationRequested);
        Assert.True(transport.Receives >= 2);
        await StopAsync(host, clock);
    }

    // 6a. A retry delay made while a visibility extension is under way.
    [Fact]
    public async Task ARetryDelay_MadeWhileAnExtensionIsUnderWay_IsNotUndoneByIt()
    {
        var clock = new FakeTimeProvider();
        var broker = new InMemoryBroker(clock);
        broker.CreateQueue("work");
        var transport = new HeldExtensionTransport(broker, extension: TimeSpan.FromSeconds(8), stall: false);
        var script = new GateScript();
        using IHost host = Host(
            bus => bus.AddHandler<Order, GatedHandler>().AddSqsPublisher<Order>("work").AddQueuePoller("work", o =>
            {
                o.WaitTime = TimeSpan.FromSeconds(1);
                o.VisibilityTimeout = TimeSpan.FromSeconds(8);
                o.RetryDelay = TimeSpan.FromSeconds(2);
            }),
            s => s.AddSingleton<IMessageTransport>(transport).AddSingleton<TimeProvider>(clock).AddSingleton(script));
        await host.Services.GetRequiredService<IMessagePublisher>().PublishAsync(Orders(1)[0]);
        await host.StartAsync();
        await script.Started(1).WaitAsync(Patience);

        clock.Advance(TimeSpan.FromSeconds(4)); // the heartbeat extends: the call is held
        await transport.ExtensionHeld.Task.WaitAsync(Patience);
        script.Fail.SetResult(); // the handler fails: a retry delay of 2 s
        await transport.WaitForChangesAsync(TimeSpan.FromSeconds(2), 1);
        transport.Release.SetResult(); // the extension lands after the delay, setting 8 s
        await transport.WaitForChangesAsync(TimeSpan.FromSeconds(2), 2); // and the delay is made again

        await clock.AdvanceUntil(() => script.StartCount >= 2, limit: TimeSpan.FromSeconds(3));
        Assert.InRange(clock.GetUtcNow() - transport.ExtensionAt, TimeSpan.FromSeconds(2), TimeSpan.FromSeconds(3)); // back after 2 s, not 8
        script.Done.SetResult();
        await StopAsync(host, clock);
    }

    // 6b. An extension that stalls far longer than the visibility timeout, under a handler longer than it.
    [Fact]
    public async Task AStalledExtension_IsTriedAgainInTime_SoALongHandlerIsNeverDeliveredTwice()
    {
        var clock = new FakeTimeProvider();
        var broker = new InMemoryBroker(clock);
        broker.CreateQueue("work");
        var transport = new HeldExtensionTransport(broker, extension: TimeSpan.FromSeconds(6), stall: true);
        var script = new GateScript { Duration = TimeSpan.FromSeconds(14), Clock = clock };
        using IHost host = Host(
            bus => bus.AddHandler<Order, GatedHandler>().AddSqsPublisher<Order>("work").AddQueuePoller("work", o =>
            {
                o.WaitTime = TimeSpan.FromSeconds(1);
                o.VisibilityTimeout = TimeSpan.FromSeconds(6);
            }),
            s => s.AddSingleton<IMessageTransport>(transport).AddSingleton<TimeProvider>(clock).AddSingleton(script));
        await host.Services.GetRequiredService<IMessagePublisher>().PublishAsync(Orders(1)[0]);
        await host.StartAsync();
        await script.Started(1).WaitAsync(Patience);

        clock.Advance(TimeSpan.FromSeconds(3)); // the first extension: it stalls
        await transport.ExtensionHeld.Task.WaitAsync(Patience);
        clock.Advance(TimeSpan.FromSeconds(0.75)); // its deadline: abandoned, and tried again at once
        await transport.WaitForChangesAsync(TimeSpan.FromSeconds(6), 1);

        await clock.AdvanceUntil(() => script.Completed == 1 && broker.GetQueue("work").Count == 0, step: TimeSpan.FromMilliseconds(250));
        Assert.Equal(1, script.StartCount); // never delivered again while its handler ran
        await StopAsync(host, clock);
    }

    // 7. A configuration check that resolves the bus.
    [Fact]
    public async Task AConfigurationCheckThatResolvesThePublisher_FailsStartup_InsteadOfHanging()
    {
        using IHost host = Host(
            bus => bus.UseInMemoryBroker(b => b.CreateQueue("orders")).AddSqsPublisher<Order>("orders"),
            s => s.AddSingleton<IMessageBusConfigurationCheck, ResolvesThePublisher>());

        var atStart = await Assert.ThrowsAsync<MessageBusConfigurationException>(() => host.StartAsync().WaitAsync(Patience));
        var resolved = await Assert.ThrowsAsync<MessageBusConfigurationException>(() => Task.Run(() => host.Services.GetRequiredService<IMessagePublisher>()).WaitAsync(Patience));

        Assert.Contains("must not use the bus it checks", atStart.Message, StringComparison.Ordinal);
        Assert.Contains("ResolvesThePublisher", resolved.Message, StringComparison.Ordinal);
    }

    /// <summary>Stops the host, advancing the fake clock so that the receive under way ends within its wait time.</summary>
    private static async Task StopAsync(IHost host, FakeTimeProvider clock)
    {
        Task stopped = host.StopAsync();
        await clock.AdvanceUntil(() => stopped.IsCompleted);
        await stopped;
    }

    private static AwsTransport AwsOver(HttpMessageHandler endpoint)
    {
        var options = new AwsTransportOptions { Region = "eu-west-1", Credentials = new BasicAWSCredentials("AKIDTEST", "test/secret"), VerifyMessageDigests = false, MaxBackoff = TimeSpan.FromMilliseconds(5) };
        options.QueueUrls["orders"] = new Uri("https://sqs.eu-west-1.amazonaws.com/123456789012/orders");
        AwsSettings settings = AwsSettings.Resolve(options, static _ => null);
        return new AwsTransport(options, settings, service => new HttpClient(AwsTransport.CreateSigningHandler(settings, service, endpoint), disposeHandler: false), TimeProvider.System);
    }

    public sealed class OneAtATime : IPublishMiddleware, IDisposable
    {
        private readonly SemaphoreSlim _one = new(1);

        public void Dispose() => _one.Dispose();

        public async Task InvokeAsync(PublishContext context, PublishStep nextStep)
        {
            await _one.WaitAsync();
            try
            {
                await nextStep(context);
            }
            finally
            {
                _one.Release();
            }
        }
    }

    public sealed class NoOpHandler : IMessageHandler<Order>
    {
        public Task HandleAsync(MessageEnvelope<Order> envelope, CancellationToken cancellationToken) => Task.CompletedTask;
    }

    public sealed class RecordingHandler(ConcurrentBag<string> handled) : IMessageHandler<Order>
    {
        public Task HandleAsync(MessageEnvelope<Order> envelope, CancellationToken cancellationToken)
        {
            handled.Add(envelope.Message!.OrderId);
            return Task.CompletedTask;
        }
    }

    public sealed class ResolvesThePublisher(IServiceProvider services) : IMessageBusConfigurationCheck
    {
        public void Check(MessageBusDescription bus, ICollection<string> problems) => services.GetRequiredService<IMessagePublisher>();
    }

    /// <summary>What the gated handler does: it waits for the test (or for its duration on the fake clock), then fails or ends.</summary>
    public sealed class GateScript
    {
        private readonly ConcurrentDictionary<int, TaskCompletionSource> _started = new();
        private int _starts, _completed;

        public TimeSpan? Duration { get; init; }

        public TimeProvider? Clock { get; init; }

        public TaskCompletionSource Fail { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public TaskCompletionSource Done { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public int StartCount => Volatile.Read(ref _starts);

        public int Completed => Volatile.Read(ref _completed);

        public Task Started(int count) => _started.GetOrAdd(count, _ => new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously)).Task;

        public async Task RunAsync(CancellationToken cancellationToken)
        {
            int start = Interlocked.Increment(ref _starts);
            _started.GetOrAdd(start, _ => new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously)).TrySetResult();
            if (Duration is { } duration)
            {
                await Task.Delay(duration, Clock!, cancellationToken);
                Interlocked.Increment(ref _completed);
                return;
            }

            if (start == 1)
            {
                await Fail.Task.WaitAsync(cancellationToken);
                throw new InvalidOperationException("the handler failed");
            }

            await Done.Task.WaitAsync(cancellationToken);
            Interlocked.Increment(ref _completed);
        }
    }

    public sealed class GatedHandler(GateScript script) : IMessageHandler<Order>
    {
        public Task HandleAsync(MessageEnvelope<Order> envelope, CancellationToken cancellationToken) => script.RunAsync(cancellationToken);
    }

    /// <summary>A receive that throws a <see cref="TaskCanceledException"/> of its own once, as an HTTP client's timeout does.</summary>
    private sealed class CancelsOnceTransport(InMemoryBroker broker) : ForwardingTransport(broker)
    {
        private int _receives;

        public int Receives => Volatile.Read(ref _receives);

        public override Task<IReadOnlyList<SqsMessage>> ReceiveAsync(string queueName, int maxMessages, TimeSpan waitTime, TimeSpan? visibilityTimeout = null, CancellationToken cancellationToken = default)
            => Interlocked.Increment(ref _receives) == 1
                ? Task.FromException<IReadOnlyList<SqsMessage>>(new TaskCanceledException("The request was canceled due to the configured HttpClient.Timeout."))
                : base.ReceiveAsync(queueName, maxMessages, waitTime, visibilityTimeout, cancellationToken);
    }

    /// <summary>
    /// Holds the first visibility extension (a change to <c>extension</c>): until the test releases it, or, when it
    /// stalls, for ever (it ends only when its caller cancels it). Other changes go to the broker and are recorded.
    /// </summary>
    private sealed class HeldExtensionTransport(InMemoryBroker broker, TimeSpan extension, bool stall) : ForwardingTransport(broker)
    {
        private readonly ConcurrentQueue<TimeSpan> _changes = new();
        private int _extensions;

        public TaskCompletionSource ExtensionHeld { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public TaskCompletionSource Release { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public DateTimeOffset ExtensionAt { get; private set; }

        public async Task WaitForChangesAsync(TimeSpan visibility, int count)
        {
            var watch = System.Diagnostics.Stopwatch.StartNew();
            while (_changes.Count(c => c == visibility) < count)
            {
                Assert.True(watch.Elapsed < Patience, $"no {count} changes to {visibility}");
                await Task.Delay(1);
            }
        }

        public override async Task<bool> ChangeVisibilityAsync(string queueName, string receiptHandle, TimeSpan visibilityTimeout, CancellationToken cancellationToken = default)
        {
            if (visibilityTimeout == extension && Interlocked.Increment(ref _extensions) == 1)
            {
                ExtensionAt = Inner.TimeProvider.GetUtcNow();
                ExtensionHeld.TrySetResult();
                if (stall)
                {
                    await Task.Delay(Timeout.InfiniteTimeSpan, cancellationToken);
                }

                await Release.Task;
                return await base.ChangeVisibilityAsync(queueName, receiptHandle, visibilityTimeout, CancellationToken.None);
            }

            _changes.Enqueue(visibilityTimeout);
            return await base.ChangeVisibilityAsync(queueName, receiptHandle, visibilityTimeout, cancellationToken);
        }
    }

    /// <summary>A send whose call is held until the test lets it go; records what was sent.</summary>
    private sealed class HeldSendTransport : ForwardingTransport
    {
        public HeldSendTransport()
            : base(new InMemoryBroker())
        {
        }

        public TaskCompletionSource Entered { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public TaskCompletionSource Hold { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public ConcurrentQueue<string> Sent { get; } = new();

        public override async Task<string> SendAsync(SqsSendRequest request, CancellationToken cancellationToken = default)
        {
            Entered.TrySetResult();
            await Hold.Task;
            Sent.Enqueue("ORD-" + request.Body.Split("\"ORD-")[1].Split('"')[0]);
            return Guid.NewGuid().ToString();
        }
    }

    /// <summary>
    /// Answers SendMessageBatch as SQS does (each entry stored and given an id), except that a call whose entry count
    /// <see cref="FailCallsWith"/> names is answered with that status on every attempt; refuses a call over 1 MiB of bodies
    /// as SQS does (<c>BatchRequestTooLong</c>).
    /// </summary>
    private sealed class SqsBatchEndpoint : HttpMessageHandler
    {
        private readonly object _gate = new();
        private readonly List<string> _stored = [];

        public Func<int, HttpStatusCode?>? FailCallsWith { get; init; }

        public long LargestCall { get; private set; }

        public List<string> Stored
        {
            get
            {
                lock (_gate)
                {
                    return [.. _stored];
                }
            }
        }

        protected override async Task<HttpResponseMessage> SendAsync(HttpRequestMessage request, CancellationToken cancellationToken)
        {
            using JsonDocument body = JsonDocument.Parse(await request.Content!.ReadAsByteArrayAsync(cancellationToken));
            JsonElement[] entries = body.RootElement.GetProperty("Entries").EnumerateArray().ToArray();
            long size = entries.Sum(e => (long)Encoding.UTF8.GetByteCount(e.GetProperty("MessageBody").GetString()!));
            if (size > 1024 * 1024)
            {
                return Error(HttpStatusCode.BadRequest, "AWS.SimpleQueueService.BatchRequestTooLong", "Batch requests cannot be longer than 1048576 bytes.");
            }

            if (FailCallsWith?.Invoke(entries.Length) is { } status)
            {
                return Error(status, "InternalError", "We encountered an internal error. Please try again.");
            }

            var answer = new StringBuilder("{\"Successful\":[");
            lock (_gate)
            {
                LargestCall = Math.Max(LargestCall, size);
                for (int i = 0; i < entries.Length; i++)
                {
                    string messageBody = entries[i].GetProperty("MessageBody").GetString()!;
                    _stored.Add("ORD-" + messageBody.Split("\"ORD-")[1].Split('"')[0]);
                    answer.Append(i > 0 ? "," : string.Empty).Append("{\"Id\":\"").Append(entries[i].GetProperty("Id").GetString()).Append("\",\"MessageId\":\"").Append(Guid.NewGuid()).Append("\"}");
                }
            }

            return new HttpResponseMessage(HttpStatusCode.OK) { Content = new StringContent(answer.Append("],\"Failed\":[]}").ToString(), Encoding.UTF8, "application/x-amz-json-1.0") };
        }

        private static HttpResponseMessage Error(HttpStatusCode status, string code, string message)
            => new(status) { Content = new StringContent("{\"__type\":\"com.amazonaws.sqs#" + code + "\",\"message\":\"" + message + "\"}", Encoding.UTF8, "application/x-amz-json-1.0") };
    }
}
