using System;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Time.Testing;
using Missive.Bus;
using Missive.Tests.Infrastructure;
using Missive.Transport;

namespace Missive.Tests.Bus;

/// <summary><see cref="DeleteBatcher"/> on a fake clock: full batches at once, part-full ones after their wait, and a deadline on every call.</summary>
public sealed class DeleteBatcherTests
{
    private static readonly TimeSpan CallTimeout = TimeSpan.FromSeconds(10);

    private static SqsMessage Message(int i) => new() { Body = "{}", MessageId = "m" + i, ReceiptHandle = "r" + i };

    [Fact]
    public async Task TheTenthHandledMessage_SendsTheBatchAtOnce()
    {
        var clock = new FakeTimeProvider();
        var transport = new ScriptedVisibilityTransport(clock) { AnswerAtOnce = true };
        using var deletes = new DeleteBatcher(transport, "orders", clock, CallTimeout, NullLogger.Instance);

        for (int i = 0; i < 10; i++)
        {
            deletes.Delete(Message(i));
        }

        ScriptedVisibilityTransport.Call call = await transport.WaitForCallsAsync(1);
        Assert.Equal(Enumerable.Range(0, 10).Select(i => "r" + i), call.Handles);
        Assert.Equal(clock.GetUtcNow(), call.At);
    }

    [Fact]
    public async Task APartFullBatch_GoesWhenItsOldestReceiptHasWaited()
    {
        var clock = new FakeTimeProvider();
        var transport = new ScriptedVisibilityTransport(clock) { AnswerAtOnce = true };
        using var deletes = new DeleteBatcher(transport, "orders", clock, CallTimeout, NullLogger.Instance);
        DateTimeOffset start = clock.GetUtcNow();

        deletes.Delete(Message(0));
        deletes.Settle(); // as the poller does once it has started what it could
        clock.Advance(DeleteBatcher.MaxWait / 2);
        deletes.Delete(Message(1));
        deletes.Settle();
        Assert.Empty(transport.Calls);
        clock.Advance(DeleteBatcher.MaxWait / 2);

        ScriptedVisibilityTransport.Call call = await transport.WaitForCallsAsync(1);
        Assert.Equal(["r0", "r1"], call.Handles);
        Assert.Equal(start + DeleteBatcher.MaxWait, call.At);
    }

    [Fact]
    public async Task ABurstThatFillsItsBatch_ArmsNoTimer_AndAPartFullOne_IsArmedWhenSettled_FromItsFirstReceipt()
    {
        // A timer that fires wakes a thread-pool thread: on a backlog, each receive's ten deletes fill their batch and
        // no wait is armed at all.
        var clock = new TimerCountingClock();
        var transport = new ScriptedVisibilityTransport(clock) { AnswerAtOnce = true };
        using var deletes = new DeleteBatcher(transport, "orders", clock, CallTimeout, NullLogger.Instance);
        DateTimeOffset start = clock.GetUtcNow();
        for (int i = 0; i < 10; i++)
        {
            deletes.Delete(Message(i));
        }

        deletes.Settle();
        await transport.WaitForCallsAsync(1);
        Assert.Equal(0, clock.WaitsArmed); // only the call's own deadline was set

        deletes.Delete(Message(10));
        clock.Advance(DeleteBatcher.MaxWait);
        Assert.Single(transport.Calls); // not armed until the burst is settled
        Assert.Equal(0, clock.WaitsArmed);
        deletes.Settle();
        Assert.Equal(1, clock.WaitsArmed);
        clock.Advance(TimeSpan.Zero); // due already: its wait counts from its receipt, not from the settling
        ScriptedVisibilityTransport.Call call = await transport.WaitForCallsAsync(2);
        Assert.Equal(["r10"], call.Handles);
        Assert.Equal(start + DeleteBatcher.MaxWait, call.At);
    }

    [Fact]
    public async Task CompleteAsync_SendsWhatIsPending_AndEndsAtTheCallsDeadline_WhenTheServiceNeverAnswers()
    {
        var clock = new FakeTimeProvider();
        var transport = new ScriptedVisibilityTransport(clock);
        using var deletes = new DeleteBatcher(transport, "orders", clock, CallTimeout, NullLogger.Instance);
        deletes.Delete(Message(0));

        Task completed = deletes.CompleteAsync();
        ScriptedVisibilityTransport.Call call = await transport.WaitForCallsAsync(1);
        Assert.False(completed.IsCompleted);

        clock.Advance(CallTimeout);
        await completed.WaitAsync(TimeSpan.FromSeconds(30));
        Assert.True(call.Token.IsCancellationRequested);
    }

    [Fact]
    public async Task ADeleteAfterCompletion_GoesOutOnItsOwn()
    {
        var clock = new FakeTimeProvider();
        var transport = new ScriptedVisibilityTransport(clock) { AnswerAtOnce = true };
        using var deletes = new DeleteBatcher(transport, "orders", clock, CallTimeout, NullLogger.Instance);
        await deletes.CompleteAsync();

        deletes.Delete(Message(7));

        ScriptedVisibilityTransport.Call call = await transport.WaitForCallsAsync(1);
        Assert.Equal(["r7"], call.Handles);
    }

    [Fact]
    public async Task ADeleteCallThatFails_IsTriedAgainAfterABackoff_NotAtOnce_AndAtMostThreeTimes()
    {
        // The transport made its own attempts within each call: the batcher's next call waits 1 s, then 2 s.
        var clock = new FakeTimeProvider();
        var transport = new ScriptedVisibilityTransport(clock);
        using var deletes = new DeleteBatcher(transport, "orders", clock, CallTimeout, NullLogger.Instance);
        DateTimeOffset start = clock.GetUtcNow();
        deletes.Delete(Message(0));
        deletes.Delete(Message(1));
        deletes.Settle();
        clock.Advance(DeleteBatcher.MaxWait);
        (await transport.WaitForCallsAsync(1)).Answer.SetException(new MessageTransportException("InternalError") { ErrorCode = "InternalError", StatusCode = 500, FailureKind = TransportFailureKind.Transient });

        await WaitUntilAsync(() => deletes.WaitingForBackoff == 2);
        clock.Advance(DeleteBatcher.RetryDelay - TimeSpan.FromMilliseconds(1));
        Assert.Single(transport.Calls); // not again at once
        clock.Advance(TimeSpan.FromMilliseconds(1));
        ScriptedVisibilityTransport.Call second = await transport.WaitForCallsAsync(2);
        Assert.Equal(["r0", "r1"], second.Handles); // the retries go together
        Assert.Equal(start + DeleteBatcher.MaxWait + DeleteBatcher.RetryDelay, second.At);
        second.Answer.SetResult([new BatchEntryResult(0, null, "InternalError", "Please try again.", SenderFault: false), BatchEntryResult.Success(1, null)]);

        await WaitUntilAsync(() => deletes.WaitingForBackoff == 1);
        clock.Advance(DeleteBatcher.RetryDelay);
        Assert.Equal(2, transport.Calls.Count);
        clock.Advance(DeleteBatcher.RetryDelay);
        ScriptedVisibilityTransport.Call third = await transport.WaitForCallsAsync(3);
        Assert.Equal(["r0"], third.Handles);
        Assert.Equal(second.At + (2 * DeleteBatcher.RetryDelay), third.At);
        third.Answer.SetException(new MessageTransportException("InternalError") { ErrorCode = "InternalError", StatusCode = 500, FailureKind = TransportFailureKind.Transient });

        await WaitUntilAsync(() => third.Answer.Task.IsCompleted);
        Assert.Equal(0, deletes.WaitingForBackoff); // given up: the message comes back, at least once
        clock.Advance(TimeSpan.FromMinutes(1));
        Assert.Equal(3, transport.Calls.Count);
    }

    [Fact]
    public async Task CompleteAsync_SendsAReceiptWaitingForItsBackoff_AtOnce()
    {
        var clock = new FakeTimeProvider();
        var transport = new ScriptedVisibilityTransport(clock);
        using var deletes = new DeleteBatcher(transport, "orders", clock, CallTimeout, NullLogger.Instance);
        deletes.Delete(Message(0));
        deletes.Settle();
        clock.Advance(DeleteBatcher.MaxWait);
        (await transport.WaitForCallsAsync(1)).Answer.SetException(new MessageTransportException("InternalError") { ErrorCode = "InternalError", StatusCode = 500, FailureKind = TransportFailureKind.Transient });
        await WaitUntilAsync(() => deletes.WaitingForBackoff == 1);

        Task completed = deletes.CompleteAsync();
        ScriptedVisibilityTransport.Call again = await transport.WaitForCallsAsync(2);
        Assert.Equal(["r0"], again.Handles);
        Assert.False(completed.IsCompleted); // the drain waits for it
        again.Succeed();
        await completed.WaitAsync(TimeSpan.FromSeconds(30));
    }

    /// <summary>Waits (polling, within the tests' patience; never a clock) until the batcher has taken a call's answer in.</summary>
    private static async Task WaitUntilAsync(Func<bool> condition)
    {
        for (int i = 0; !condition(); i++)
        {
            Assert.True(i < 3000, "condition not met");
            await Task.Delay(1);
        }
    }

    /// <summary>A fake clock that counts the timers armed for a wait shorter than the delete calls' deadline (the lane's wait for a part-full batch).</summary>
    private sealed class TimerCountingClock : FakeTimeProvider
    {
        private int _waitsArmed;

        public int WaitsArmed => Volatile.Read(ref _waitsArmed);

        public override ITimer CreateTimer(TimerCallback callback, object? state, TimeSpan dueTime, TimeSpan period)
            => new Counted(base.CreateTimer(callback, state, dueTime, period), this);

        private sealed class Counted(ITimer inner, TimerCountingClock clock) : ITimer
        {
            public bool Change(TimeSpan dueTime, TimeSpan period)
            {
                if (dueTime != Timeout.InfiniteTimeSpan && dueTime < CallTimeout)
                {
                    Interlocked.Increment(ref clock._waitsArmed);
                }

                return inner.Change(dueTime, period);
            }

            public void Dispose() => inner.Dispose();

            public ValueTask DisposeAsync() => inner.DisposeAsync();
        }
    }
}
