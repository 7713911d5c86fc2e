using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Time.Testing;
using Missive.Bus;
using Missive.Tests.Infrastructure;
using Missive.Transport;

namespace Missive.Tests.Bus;

/// <summary>
/// A poller's run (<c>PollerRun</c>, through <see cref="QueuePoller.RunAsync"/>) on a fake clock, against a scripted
/// receive: its deadlines and backoffs are read off the clock, never waited for in real time.
/// </summary>
public sealed class PollerRunTests
{
    private static readonly TimeSpan WaitTime = TimeSpan.FromSeconds(20);

    [Fact]
    public async Task AReceiveThatNeverAnswers_FailsAtItsWaitTimePlusAMinute_AndTheRunReceivesAgain()
    {
        var clock = new FakeTimeProvider();
        var transport = new ReceiveScript(clock) { NeverAnswer = true };
        using ServiceProvider services = Services(transport, clock);
        using var stopping = new CancellationTokenSource();
        Task run = Poller(services).RunAsync(stopping.Token);

        await clock.AdvanceUntil(() => transport.Receives.Count == 2, step: TimeSpan.FromSeconds(1), limit: TimeSpan.FromMinutes(3));

        TimeSpan first = transport.Receives[1].At - transport.Receives[0].At;
        Assert.InRange(first, WaitTime + TimeSpan.FromSeconds(60), WaitTime + TimeSpan.FromSeconds(60) + TimeSpan.FromSeconds(3)); // the deadline, then the first backoff (at most a second)
        Assert.True(transport.Receives[0].Token.IsCancellationRequested, "the receive that never answered was cancelled at its deadline");
        await StopAsync(clock, stopping, run);
    }

    [Fact]
    public async Task FailedReceives_BackOffDoubling_UpToTheLongestDelay_AndASuccessResetsIt()
    {
        var clock = new FakeTimeProvider();
        var transport = new ReceiveScript(clock) { FailFirst = 6 };
        using ServiceProvider services = Services(transport, clock);
        using var stopping = new CancellationTokenSource();
        Task run = Poller(services).RunAsync(stopping.Token);

        await clock.AdvanceUntil(() => transport.Receives.Count >= 8, step: TimeSpan.FromMilliseconds(100), limit: TimeSpan.FromMinutes(2));

        // ReceiveErrorDelay 1 s doubling to MaxReceiveErrorDelay 8 s, each with jitter between a half and the whole.
        TimeSpan[] gaps = [.. transport.Receives.Zip(transport.Receives.Skip(1), (a, b) => b.At - a.At)];
        double[] ceilings = [1, 2, 4, 8, 8, 8];
        for (int i = 0; i < ceilings.Length; i++)
        {
            Assert.InRange(gaps[i].TotalSeconds, (ceilings[i] / 2) - 0.01, ceilings[i] + 0.11); // a step of the fake clock late at most
        }

        Assert.True(gaps[6] < TimeSpan.FromMilliseconds(200), $"after a receive that succeeded the next one goes at once, not after {gaps[6]}");
        await StopAsync(clock, stopping, run);
    }

    [Fact]
    public async Task ARunOfFailedReceives_LogsTheFirstWhole_OneErrorAtTheThird_AndTheRestInOneLineEach()
    {
        var clock = new FakeTimeProvider();
        var transport = new ReceiveScript(clock) { FailFirst = 6 };
        var log = new CapturingLoggerProvider();
        using ServiceProvider services = Services(transport, clock, log);
        using var stopping = new CancellationTokenSource();
        Task run = Poller(services).RunAsync(stopping.Token);

        await clock.AdvanceUntil(() => transport.Receives.Count >= 8, step: TimeSpan.FromMilliseconds(100), limit: TimeSpan.FromMinutes(2));
        await StopAsync(clock, stopping, run);

        var warnings = log.Entries.Where(e => e.EventId == 2007).ToList();
        var errors = log.Entries.Where(e => e.EventId == 2028).ToList();
        Assert.Equal(5, warnings.Count); // failures 1, 2, 4, 5 and 6
        Assert.Contains(" | ", warnings[0].Text, StringComparison.Ordinal); // the first carries the exception
        Assert.All(warnings.Skip(1), w => Assert.DoesNotContain(" | ", w.Text, StringComparison.Ordinal));
        Assert.Contains("(2 in a row, ServiceUnavailable)", warnings[1].Text, StringComparison.Ordinal);
        var error = Assert.Single(errors);
        Assert.Equal(LogLevel.Error, error.Level);
        Assert.Contains("has failed 3 times in a row (ServiceUnavailable): scripted: the receive failed", error.Text, StringComparison.Ordinal);
        Assert.DoesNotContain(" | ", error.Text, StringComparison.Ordinal); // one line, no stack trace
    }

    [Fact]
    public async Task AReceiveUnderWayWhenTheRunStops_IsLetFinish_AndWhatItGotIsReleased()
    {
        var clock = new FakeTimeProvider();
        var transport = new ReceiveScript(clock) { HoldSecond = true };
        using ServiceProvider services = Services(transport, clock);
        using var stopping = new CancellationTokenSource();
        Task run = Poller(services).RunAsync(stopping.Token);
        await clock.AdvanceUntil(() => transport.Receives.Count == 2, step: TimeSpan.FromMilliseconds(100), limit: TimeSpan.FromSeconds(5));

        await stopping.CancelAsync();
        clock.Advance(TimeSpan.FromSeconds(1));
        Assert.False(transport.Receives[1].Token.IsCancellationRequested, "the receive under way was cancelled when stopping began (an SQS long poll would lose what it is given)");
        transport.Answer.SetResult([Message("m-late")]);
        await clock.AdvanceUntil(() => run.IsCompleted, limit: TimeSpan.FromSeconds(30));

        await run;
        Assert.Contains(("m-late", TimeSpan.Zero), transport.VisibilityChanges); // released at once, never handled
    }

    private static async Task StopAsync(FakeTimeProvider clock, CancellationTokenSource stopping, Task run)
    {
        await stopping.CancelAsync();
        await clock.AdvanceUntil(() => run.IsCompleted, step: TimeSpan.FromSeconds(1), limit: TimeSpan.FromMinutes(2));
        await run;
    }

    private static ServiceProvider Services(IMessageTransport transport, TimeProvider clock, ILoggerProvider? log = null)
    {
        var services = new ServiceCollection();
        if (log is not null)
        {
            services.AddLogging(b => b.AddProvider(log));
        }

        services.AddSingleton(transport);
        services.AddSingleton(clock);
        services.AddMessageBus(bus => bus
            .AddMessageType<Order>(TestSerializers.OrderType)
            .ConfigureSerialization(o => o.JsonSerializerContext = TestJsonContext.Default)
            .AddHandler<Order, NoOp>()
            .AddQueuePoller("orders", o =>
            {
                o.WaitTime = WaitTime;
                o.ReceiveErrorDelay = TimeSpan.FromSeconds(1);
                o.MaxReceiveErrorDelay = TimeSpan.FromSeconds(8);
            }));
        return services.BuildServiceProvider();
    }

    private static QueuePoller Poller(ServiceProvider services)
        => services.GetServices<IHostedService>().OfType<MessagePump>().Single().Pollers.Single();

    private static SqsMessage Message(string id) => new() { MessageId = id, ReceiptHandle = "r-" + id, Body = "not an envelope" };

    private sealed class NoOp : IMessageHandler<Order>
    {
        public Task HandleAsync(MessageEnvelope<Order> envelope, CancellationToken cancellationToken) => Task.CompletedTask;
    }

    /// <summary>
    /// A receive scripted per test: one that never answers (until cancelled), the first few failing, or the second held
    /// until the test answers it; every other receive finds nothing at once, after a tenth of a second of the clock.
    /// </summary>
    private sealed class ReceiveScript(FakeTimeProvider clock) : IMessageTransport
    {
        private readonly object _gate = new();
        private readonly List<(DateTimeOffset At, CancellationToken Token)> _receives = [];

        public bool NeverAnswer { get; init; }

        public int FailFirst { get; init; }

        public bool HoldSecond { get; init; }

        public TaskCompletionSource<IReadOnlyList<SqsMessage>> Answer { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public List<(string MessageId, TimeSpan Timeout)> VisibilityChanges { get; } = [];

        public IReadOnlyList<(DateTimeOffset At, CancellationToken Token)> Receives
        {
            get
            {
                lock (_gate)
                {
                    return [.. _receives];
                }
            }
        }

        public async Task<IReadOnlyList<SqsMessage>> ReceiveAsync(string queueName, int maxMessages, TimeSpan waitTime, TimeSpan? visibilityTimeout = null, CancellationToken cancellationToken = default)
        {
            int count;
            lock (_gate)
            {
                _receives.Add((clock.GetUtcNow(), cancellationToken));
                count = _receives.Count;
            }

            if (NeverAnswer && count == 1)
            {
                await Task.Delay(Timeout.Infinite, cancellationToken);
            }

            if (count <= FailFirst)
            {
                throw new MessageTransportException("scripted: the receive failed") { FailureKind = TransportFailureKind.Transient, ErrorCode = "ServiceUnavailable" };
            }

            if (HoldSecond && count == 2)
            {
                return await Answer.Task;
            }

            await Task.Delay(TimeSpan.FromMilliseconds(100), clock, cancellationToken);
            return [];
        }

        public Task<IReadOnlyList<BatchEntryResult>> ChangeVisibilityBatchAsync(string queueName, IReadOnlyList<string> receiptHandles, TimeSpan visibilityTimeout, CancellationToken cancellationToken = default)
        {
            lock (VisibilityChanges)
            {
                VisibilityChanges.AddRange(receiptHandles.Select(r => (r["r-".Length..], visibilityTimeout)));
            }

            return Task.FromResult<IReadOnlyList<BatchEntryResult>>([.. receiptHandles.Select((_, i) => BatchEntryResult.Success(i, null))]);
        }

        public Task<bool> ChangeVisibilityAsync(string queueName, string receiptHandle, TimeSpan visibilityTimeout, CancellationToken cancellationToken = default)
            => throw new NotSupportedException("the run changes visibility in batches");

        public Task<IReadOnlyList<BatchEntryResult>> DeleteBatchAsync(string queueName, IReadOnlyList<string> receiptHandles, CancellationToken cancellationToken = default)
            => Task.FromResult<IReadOnlyList<BatchEntryResult>>([.. receiptHandles.Select((_, i) => BatchEntryResult.Success(i, null))]);

        public Task<bool> DeleteAsync(string queueName, string receiptHandle, CancellationToken cancellationToken = default) => throw new NotSupportedException();

        public Task<string> SendAsync(SqsSendRequest request, CancellationToken cancellationToken = default) => throw new NotSupportedException();

        public Task<string> PublishAsync(SnsPublishRequest request, CancellationToken cancellationToken = default) => throw new NotSupportedException();

        public Task<string> PutEventAsync(EventBridgeEntry entry, CancellationToken cancellationToken = default) => throw new NotSupportedException();
    }
}
