using System;
using System.Linq;
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
        clock.Advance(DeleteBatcher.MaxWait / 2);
        deletes.Delete(Message(1));
        Assert.Empty(transport.Calls);
        clock.Advance(DeleteBatcher.MaxWait / 2);

        ScriptedVisibilityTransport.Call call = await transport.WaitForCallsAsync(1);
        Assert.Equal(["r0", "r1"], call.Handles);
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
}
