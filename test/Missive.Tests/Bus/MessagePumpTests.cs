using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Diagnostics;
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

/// <summary>What a real queue needs from the pump: heartbeats, batched deletes, receive backoff, and a shutdown that leaves nothing invisible.</summary>
public sealed class MessagePumpTests
{
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(30);

    [Fact]
    public async Task SlowHandler_LongerThanTheVisibilityTimeout_IsHandledOnce()
    {
        Script script = await RunASlowHandlerAsync();

        Assert.Equal([1], script.ReceiveCounts);
        Assert.Equal(1, script.Started);
    }

    /// <summary>
    /// The same slow handler while every core is kept busy: twice as many spinning processes as cores run for the whole
    /// test (<see cref="CpuBurner"/>), so the pump's timers and continuations wait for the scheduler, as on a loaded
    /// machine. The heartbeat extends once a quarter of the visibility timeout has passed, ticking every eighth, so a
    /// late or failed extension still leaves several more before the message would show again.
    /// </summary>
    [Fact]
    public async Task SlowHandler_LongerThanTheVisibilityTimeout_IsHandledOnce_WithEveryCoreBusy()
    {
        using var burner = new CpuBurner(Environment.ProcessorCount * 2);
        Script script = await RunASlowHandlerAsync();
        TimeSpan burnt = burner.ProcessorTime;

        Assert.True(burnt > TimeSpan.FromSeconds(2), $"the burners used {burnt} of processor time"); // the cores were busy
        Assert.Equal([1], script.ReceiveCounts);
        Assert.Equal(1, script.Started);
    }

    [Fact]
    public async Task HandledMessages_AreDeletedInBatches()
    {
        var script = new Script { Delay = TimeSpan.FromMilliseconds(50) };
        var broker = new InMemoryBroker();
        broker.CreateQueue("work");
        var counting = new CountingTransport(broker);
        using IHost host = Host(counting, script, o => o.MaxConcurrency = 10);
        IMessagePublisher publisher = host.Services.GetRequiredService<IMessagePublisher>();
        for (int i = 0; i < 40; i++)
        {
            await publisher.PublishAsync(Orders.Create(i));
        }

        await host.StartAsync();
        await script.Finished(40).WaitAsync(Patience);
        await WaitUntil(() => broker.GetQueue("work").Count == 0);
        await host.StopAsync();

        Assert.Equal(40, counting.DeletedByBatch);
        Assert.Equal(0, counting.SingleDeletes);
        Assert.InRange(counting.DeleteBatchCalls, 4, 20); // ten handlers finishing together share calls of up to ten
    }

    [Fact]
    public async Task FailingReceives_BackOffExponentially()
    {
        // The waits are read from the clock the poller asks for them, not timed, so a loaded machine cannot fail the test.
        var clock = new DelayRecordingTimeProvider();
        var failing = new FailingReceiveTransport(new InMemoryBroker());
        using IHost host = Host(failing, new Script(), o =>
        {
            o.ReceiveErrorDelay = TimeSpan.FromMilliseconds(200);
            o.MaxReceiveErrorDelay = TimeSpan.FromMilliseconds(800);
        }, clock: clock);
        await host.StartAsync();
        await WaitUntil(() => clock.Delays.Count >= 5);
        await host.StopAsync();

        TimeSpan[] delays = clock.Delays.ToArray();
        double[] expected = [200, 400, 800, 800, 800]; // doubling from the first, capped; each 50-100% of it with jitter
        for (int i = 0; i < expected.Length; i++)
        {
            Assert.InRange(delays[i].TotalMilliseconds, expected[i] / 2, expected[i]);
        }

        Assert.InRange(failing.Calls, 5, delays.Length + 1); // one receive per wait: not a busy loop
    }

    [Fact]
    public async Task StopAndRestart_ReceivesNothingOnceStopping_SoHealthyMessagesAreNeverDeadLettered()
    {
        var script = new Script { Delay = TimeSpan.FromMilliseconds(300) };
        var broker = new InMemoryBroker();
        broker.CreateQueue("work-dlq");
        broker.CreateQueue("work", o =>
        {
            // Three hosts run in turn, and each may receive a message once: a handler still running when its host
            // stops is cancelled and its message released. On a loaded machine the same message can be caught in
            // both stops. A fourth receive, of a message received while stopping, would dead-letter it.
            o.DeadLetterQueue = "work-dlq";
            o.MaxReceiveCount = 3;
        });
        using (IHost seed = Host(broker, script))
        {
            IMessagePublisher publisher = seed.Services.GetRequiredService<IMessagePublisher>();
            for (int i = 0; i < 50; i++)
            {
                await publisher.PublishAsync(Orders.Create(i));
            }
        }

        // Two stop/restart cycles in the middle of handling, then a run to the end.
        for (int cycle = 0; cycle < 2; cycle++)
        {
            using IHost host = Host(broker, script, o => o.MaxConcurrency = 5);
            await host.StartAsync();
            await Task.Delay(450);
            await host.StopAsync();
        }

        using (IHost last = Host(broker, script, o => o.MaxConcurrency = 10))
        {
            await last.StartAsync();
            await WaitUntil(() => broker.GetQueue("work").Count == 0 && script.Completed >= 50);
            await last.StopAsync();
        }

        Assert.Equal(0, broker.GetQueue("work-dlq").Count);
        Assert.Equal(50, script.Completed);
    }

    [Fact]
    public async Task HandlerThatTurnsCancellationIntoAnotherException_HasItsMessageReleasedAtOnce()
    {
        var script = new Script { Delay = Timeout.InfiniteTimeSpan, OnCancel = () => throw new InvalidOperationException("wrapped cancellation") };
        var broker = new InMemoryBroker();
        broker.CreateQueue("work");
        using IHost host = Host(broker, script, o => o.VisibilityTimeout = TimeSpan.FromMinutes(10));
        await host.Services.GetRequiredService<IMessagePublisher>().PublishAsync(Orders.Create(1));
        await host.StartAsync();
        await script.StartedOnce.Task.WaitAsync(Patience);

        await host.StopAsync();

        // Visible again at once: a receive with no wait takes it (and it counts a second receive).
        SqsMessage again = Assert.Single(await broker.ReceiveAsync("work", 1, TimeSpan.Zero));
        Assert.Equal("2", again.SystemAttributes[SqsSystemAttributes.ApproximateReceiveCount]);
    }

    [Fact]
    public async Task HandlerThatIgnoresCancellation_PastTheShutdownTimeout_HasItsMessageReleased()
    {
        var script = new Script { Delay = TimeSpan.FromSeconds(20), IgnoreCancellation = true };
        var broker = new InMemoryBroker();
        broker.CreateQueue("work");
        using IHost host = Host(broker, script, o => o.VisibilityTimeout = TimeSpan.FromMinutes(10), shutdownTimeout: TimeSpan.FromMilliseconds(500));
        await host.Services.GetRequiredService<IMessagePublisher>().PublishAsync(Orders.Create(1));
        await host.StartAsync();
        await script.StartedOnce.Task.WaitAsync(Patience);

        var watch = Stopwatch.StartNew();
        await host.StopAsync();

        Assert.True(watch.Elapsed < TimeSpan.FromSeconds(10), "the host stopped waiting after its shutdown timeout");
        Assert.Single(await broker.ReceiveAsync("work", 1, TimeSpan.Zero));
    }

    [Fact]
    public async Task AReceiveUnderWayAtShutdown_OnATransportThatCannotCancelIt_IsLetFinish_AndWhatItGotIsReleased()
    {
        // On SQS a long poll goes on at the service when its client gives up, and what it is given then stays invisible
        // for the visibility timeout. Here the handler's message, released at shutdown, is taken by the receive under way.
        var script = new Script { Delay = Timeout.InfiniteTimeSpan };
        var broker = new InMemoryBroker();
        broker.CreateQueue("work");
        var sqs = new LongPollTransport(broker);
        using IHost host = Host(sqs, script, o =>
        {
            o.WaitTime = TimeSpan.FromSeconds(2);
            o.VisibilityTimeout = TimeSpan.FromMinutes(10);
        });
        await host.Services.GetRequiredService<IMessagePublisher>().PublishAsync(Orders.Create(1));
        await host.StartAsync();
        await script.StartedOnce.Task.WaitAsync(Patience);
        await WaitUntil(() => sqs.Pending > 0);

        await host.StopAsync();

        Assert.Equal(0, sqs.Abandoned);
        SqsMessage again = Assert.Single(await broker.ReceiveAsync("work", 1, TimeSpan.Zero));
        Assert.Equal("3", again.SystemAttributes[SqsSystemAttributes.ApproximateReceiveCount]); // the handler's, the receive's at shutdown, this one
    }

    /// <summary>One message whose handler takes 5 seconds under a visibility timeout of 2, handled and deleted.</summary>
    private static async Task<Script> RunASlowHandlerAsync()
    {
        var script = new Script { Delay = TimeSpan.FromSeconds(5) };
        var broker = new InMemoryBroker();
        broker.CreateQueue("work");
        using IHost host = Host(broker, script, o => o.VisibilityTimeout = TimeSpan.FromSeconds(2));
        await host.StartAsync();

        await host.Services.GetRequiredService<IMessagePublisher>().PublishAsync(Orders.Create(1));
        await script.Finished(1).WaitAsync(Patience);
        await WaitUntil(() => broker.GetQueue("work").Count == 0);
        await host.StopAsync();
        return script;
    }

    private static IHost Host(IMessageTransport transport, Script script, Action<PollerOptions>? configure = null, TimeSpan? shutdownTimeout = null, TimeProvider? clock = null)
    {
        HostApplicationBuilder builder = Microsoft.Extensions.Hosting.Host.CreateApplicationBuilder();
        if (clock is not null)
        {
            builder.Services.AddSingleton(clock);
        }

        builder.Logging.ClearProviders();
        builder.Services.Configure<HostOptions>(o => o.ShutdownTimeout = shutdownTimeout ?? TimeSpan.FromSeconds(30));
        builder.Services.AddSingleton(script);
        builder.Services.AddSingleton(transport);
        builder.Services.AddMessageBus(bus => bus
            .AddMessageType<Order>(TestSerializers.OrderType)
            .ConfigureSerialization(o => o.JsonSerializerContext = TestJsonContext.Default)
            .AddHandler<Order, ScriptedHandler>()
            .AddSqsPublisher<Order>("work")
            .AddQueuePoller("work", o =>
            {
                o.WaitTime = TimeSpan.FromMilliseconds(100);
                configure?.Invoke(o);
            }));
        return builder.Build();
    }

    private static Task WaitUntil(Func<bool> condition) => BusTestHost.WaitUntil(condition);

    /// <summary>What the handler does, shared with the test.</summary>
    public sealed class Script
    {
        private int _started;
        private int _completed;
        private readonly ConcurrentDictionary<int, TaskCompletionSource> _finished = new();

        public TimeSpan Delay { get; init; }

        public bool IgnoreCancellation { get; init; }

        public Action? OnCancel { get; init; }

        public TaskCompletionSource StartedOnce { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public ConcurrentQueue<int> ReceiveCountsQueue { get; } = new();

        public int[] ReceiveCounts => ReceiveCountsQueue.ToArray();

        public int Started => Volatile.Read(ref _started);

        public int Completed => Volatile.Read(ref _completed);

        public Task Finished(int count) => _finished.GetOrAdd(count, _ => new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously)).Task;

        public async Task RunAsync(MessageEnvelope<Order> envelope, CancellationToken cancellationToken)
        {
            Interlocked.Increment(ref _started);
            ReceiveCountsQueue.Enqueue(envelope.SqsMetadata!.ApproximateReceiveCount);
            StartedOnce.TrySetResult();
            try
            {
                await Task.Delay(Delay, IgnoreCancellation ? CancellationToken.None : cancellationToken);
            }
            catch (OperationCanceledException) when (OnCancel is not null)
            {
                OnCancel();
            }

            int done = Interlocked.Increment(ref _completed);
            _finished.GetOrAdd(done, _ => new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously)).TrySetResult();
        }
    }

    public sealed class ScriptedHandler(Script script) : IMessageHandler<Order>
    {
        public Task HandleAsync(MessageEnvelope<Order> envelope, CancellationToken cancellationToken) => script.RunAsync(envelope, cancellationToken);
    }

    /// <summary>Counts delete calls on their way to the broker.</summary>
    private sealed class CountingTransport(InMemoryBroker broker) : ForwardingTransport(broker)
    {
        private int _singleDeletes, _batchCalls, _batchEntries;

        public int SingleDeletes => Volatile.Read(ref _singleDeletes);

        public int DeleteBatchCalls => Volatile.Read(ref _batchCalls);

        public int DeletedByBatch => Volatile.Read(ref _batchEntries);

        public override Task<bool> DeleteAsync(string queueName, string receiptHandle, CancellationToken cancellationToken = default)
        {
            Interlocked.Increment(ref _singleDeletes);
            return base.DeleteAsync(queueName, receiptHandle, cancellationToken);
        }

        public override async Task<IReadOnlyList<BatchEntryResult>> DeleteBatchAsync(string queueName, IReadOnlyList<string> receiptHandles, CancellationToken cancellationToken = default)
        {
            Interlocked.Increment(ref _batchCalls);
            Interlocked.Add(ref _batchEntries, receiptHandles.Count);
            var results = new BatchEntryResult[receiptHandles.Count];
            for (int i = 0; i < results.Length; i++)
            {
                results[i] = await Inner.DeleteAsync(queueName, receiptHandles[i], cancellationToken) ? BatchEntryResult.Success(i, null) : new BatchEntryResult(i, null, "ReceiptHandleIsInvalid", null, true);
            }

            return results;
        }
    }

    /// <summary>Every receive fails, as an unreachable endpoint would; the times of the calls are kept.</summary>
    private sealed class FailingReceiveTransport(InMemoryBroker broker) : ForwardingTransport(broker)
    {
        private int _calls;

        public int Calls => Volatile.Read(ref _calls);

        public override Task<IReadOnlyList<SqsMessage>> ReceiveAsync(string queueName, int maxMessages, TimeSpan waitTime, TimeSpan? visibilityTimeout = null, CancellationToken cancellationToken = default)
        {
            Interlocked.Increment(ref _calls);
            throw new MessageTransportException("Simulated: the endpoint cannot be reached.") { FailureKind = TransportFailureKind.Transient };
        }
    }

    /// <summary>
    /// Receives as SQS does: the long poll goes on at the service whatever the client does, so a caller that cancels it
    /// gets nothing, yet what the poll takes afterwards is received all the same (and counted as abandoned).
    /// </summary>
    private sealed class LongPollTransport(InMemoryBroker broker) : ForwardingTransport(broker)
    {
        private int _pending, _abandoned;

        public int Pending => Volatile.Read(ref _pending);

        public int Abandoned => Volatile.Read(ref _abandoned);

        public override async Task<IReadOnlyList<SqsMessage>> ReceiveAsync(string queueName, int maxMessages, TimeSpan waitTime, TimeSpan? visibilityTimeout = null, CancellationToken cancellationToken = default)
        {
            Interlocked.Increment(ref _pending);
            Task<IReadOnlyList<SqsMessage>> poll = Inner.ReceiveAsync(queueName, maxMessages, waitTime, visibilityTimeout, CancellationToken.None);
            _ = poll.ContinueWith(
                (done, state) =>
                {
                    var self = (LongPollTransport)state!;
                    Interlocked.Decrement(ref self._pending);
                },
                this,
                CancellationToken.None,
                TaskContinuationOptions.ExecuteSynchronously,
                TaskScheduler.Default);
            try
            {
                return await poll.WaitAsync(cancellationToken);
            }
            catch (OperationCanceledException)
            {
                Interlocked.Add(ref _abandoned, (await poll).Count);
                throw;
            }
        }
    }

    /// <summary>The system clock, except that a one-shot timer (a <c>Task.Delay</c>) is recorded and fires after 1 ms.</summary>
    private sealed class DelayRecordingTimeProvider : TimeProvider
    {
        public ConcurrentQueue<TimeSpan> Delays { get; } = new();

        public override ITimer CreateTimer(TimerCallback callback, object? state, TimeSpan dueTime, TimeSpan period)
        {
            // The backoff waits (under a second here); a receive's deadline (a minute past its wait time) is left as it is.
            if (period == Timeout.InfiniteTimeSpan && dueTime > TimeSpan.Zero && dueTime < TimeSpan.FromMinutes(1))
            {
                Delays.Enqueue(dueTime);
                dueTime = TimeSpan.FromMilliseconds(1);
            }

            return System.CreateTimer(callback, state, dueTime, period);
        }
    }
}

/// <summary>A transport that forwards to the in-memory broker; tests override the calls they watch.</summary>
public class ForwardingTransport(InMemoryBroker inner) : IMessageTransport
{
    protected InMemoryBroker Inner => inner;

    public virtual Task<string> SendAsync(SqsSendRequest request, CancellationToken cancellationToken = default) => inner.SendAsync(request, cancellationToken);

    public virtual Task<string> PublishAsync(SnsPublishRequest request, CancellationToken cancellationToken = default) => inner.PublishAsync(request, cancellationToken);

    public virtual Task<string> PutEventAsync(EventBridgeEntry entry, CancellationToken cancellationToken = default) => inner.PutEventAsync(entry, cancellationToken);

    public virtual Task<IReadOnlyList<SqsMessage>> ReceiveAsync(string queueName, int maxMessages, TimeSpan waitTime, TimeSpan? visibilityTimeout = null, CancellationToken cancellationToken = default)
        => inner.ReceiveAsync(queueName, maxMessages, waitTime, visibilityTimeout, cancellationToken);

    public virtual Task<bool> DeleteAsync(string queueName, string receiptHandle, CancellationToken cancellationToken = default) => inner.DeleteAsync(queueName, receiptHandle, cancellationToken);

    public virtual Task<bool> ChangeVisibilityAsync(string queueName, string receiptHandle, TimeSpan visibilityTimeout, CancellationToken cancellationToken = default)
        => inner.ChangeVisibilityAsync(queueName, receiptHandle, visibilityTimeout, cancellationToken);

    public virtual Task<IReadOnlyList<BatchEntryResult>> DeleteBatchAsync(string queueName, IReadOnlyList<string> receiptHandles, CancellationToken cancellationToken = default)
        => ((IMessageTransport)inner).DeleteBatchAsync(queueName, receiptHandles, cancellationToken);
}
