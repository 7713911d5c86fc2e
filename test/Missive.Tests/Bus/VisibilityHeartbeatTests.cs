using System;
using System.Linq;
using System.Threading.Tasks;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Time.Testing;
using Missive.Bus;
using Missive.Tests.Infrastructure;
using Missive.Transport;

namespace Missive.Tests.Bus;

/// <summary>
/// <see cref="VisibilityHeartbeat"/> on a fake clock: extensions when due and only then, each with a deadline shorter than
/// the visibility it protects, and releases and retry delays that an extension under way cannot undo.
/// </summary>
public sealed class VisibilityHeartbeatTests
{
    private static SqsMessage Message(string id) => new() { Body = "{}", MessageId = id, ReceiptHandle = "receipt-" + id };

    [Fact]
    public async Task AMessageHandledWithinAQuarterOfItsVisibility_CostsNoCall()
    {
        var clock = new FakeTimeProvider();
        var transport = new ScriptedVisibilityTransport(clock);
        using var heartbeat = new VisibilityHeartbeat(transport, "orders", TimeSpan.FromSeconds(8), clock, NullLogger.Instance);
        SqsMessage message = Message("m1");

        heartbeat.Hold(message);
        clock.Advance(TimeSpan.FromSeconds(1.9));
        heartbeat.Drop(message);
        clock.Advance(TimeSpan.FromMinutes(5));

        await Task.Yield();
        Assert.Empty(transport.Calls);
    }

    [Fact]
    public async Task AHeldMessage_IsExtendedByOneTimeout_WhenThreeQuartersOfItsVisibilityAreLeft_WithADeadlineOfAnEighth()
    {
        var clock = new FakeTimeProvider();
        var transport = new ScriptedVisibilityTransport(clock) { AnswerAtOnce = true };
        using var heartbeat = new VisibilityHeartbeat(transport, "orders", TimeSpan.FromSeconds(8), clock, NullLogger.Instance);
        DateTimeOffset received = clock.GetUtcNow();
        heartbeat.Hold(Message("m1"));

        clock.Advance(TimeSpan.FromSeconds(1)); // a tick: 7 s left, not due
        Assert.Empty(transport.Calls);
        clock.Advance(TimeSpan.FromSeconds(1)); // a tick: 6 s left, due
        ScriptedVisibilityTransport.Call extension = await transport.WaitForCallsAsync(1);

        Assert.Equal(TimeSpan.FromSeconds(8), extension.Visibility);
        Assert.Equal(received + TimeSpan.FromSeconds(2), extension.At);
        Assert.Equal(["receipt-m1"], extension.Handles);
        Assert.Equal(TimeSpan.FromSeconds(1), heartbeat.ExtensionDeadline);
        Assert.True(extension.Token.CanBeCanceled);
    }

    [Fact]
    public async Task AReleaseMadeWhileAnExtensionIsUnderWay_IsMadeAgainWhenTheExtensionAnswers()
    {
        var clock = new FakeTimeProvider();
        var transport = new ScriptedVisibilityTransport(clock);
        using var heartbeat = new VisibilityHeartbeat(transport, "orders", TimeSpan.FromSeconds(8), clock, NullLogger.Instance);
        SqsMessage message = Message("m1");
        heartbeat.Hold(message);
        clock.Advance(TimeSpan.FromSeconds(4));
        ScriptedVisibilityTransport.Call extension = await transport.WaitForCallsAsync(1);

        // The handler failed: a retry delay of 2 s, while the extension (to 8 s) has not answered.
        Task retry = heartbeat.SetVisibilityAsync([message], TimeSpan.FromSeconds(2));
        ScriptedVisibilityTransport.Call delay = await transport.WaitForCallsAsync(2);
        delay.Succeed();
        await retry;
        Assert.Equal(TimeSpan.FromSeconds(2), delay.Visibility);

        // The service may apply the extension after the delay: once it answered, the delay is made again.
        clock.Advance(TimeSpan.FromMilliseconds(500));
        extension.Succeed();
        ScriptedVisibilityTransport.Call again = await transport.WaitForCallsAsync(3);

        Assert.Equal("ChangeVisibility", again.Operation);
        Assert.Equal(["receipt-m1"], again.Handles);
        Assert.Equal(TimeSpan.FromSeconds(2), again.Visibility); // 1.5 s left of the delay, in whole seconds as SQS takes it
        again.Succeed();

        // And it is not held any more: no further extension.
        clock.Advance(TimeSpan.FromMinutes(1));
        await Task.Yield();
        Assert.Equal(3, transport.Calls.Count);
    }

    [Fact]
    public async Task AReleaseWithNoExtensionUnderWay_IsMadeOnce()
    {
        var clock = new FakeTimeProvider();
        var transport = new ScriptedVisibilityTransport(clock) { AnswerAtOnce = true };
        using var heartbeat = new VisibilityHeartbeat(transport, "orders", TimeSpan.FromSeconds(8), clock, NullLogger.Instance);
        SqsMessage message = Message("m1");
        heartbeat.Hold(message);

        await heartbeat.SetVisibilityAsync([message], TimeSpan.Zero);
        clock.Advance(TimeSpan.FromMinutes(1));

        Assert.Single(transport.Calls);
        Assert.Equal(TimeSpan.Zero, transport.Calls[0].Visibility);
        Assert.Equal(0, heartbeat.Count);
    }

    [Fact]
    public async Task AStalledExtension_IsAbandonedAtItsDeadline_AndTriedAgainAtOnce_BeforeTheVisibilityEnds()
    {
        var clock = new FakeTimeProvider();
        var transport = new ScriptedVisibilityTransport(clock);
        using var heartbeat = new VisibilityHeartbeat(transport, "orders", TimeSpan.FromSeconds(6), clock, NullLogger.Instance);
        DateTimeOffset received = clock.GetUtcNow();
        heartbeat.Hold(Message("m1"));

        clock.Advance(TimeSpan.FromSeconds(3)); // the clock jumps to 3 s: the ticks it passes see 3 s, and the message is due
        ScriptedVisibilityTransport.Call stalled = await transport.WaitForCallsAsync(1);
        Assert.Equal(received + TimeSpan.FromSeconds(3), stalled.At);

        clock.Advance(heartbeat.ExtensionDeadline); // the call never answers
        ScriptedVisibilityTransport.Call retried = await transport.WaitForCallsAsync(2);

        Assert.True(stalled.Token.IsCancellationRequested);
        Assert.Equal(received + TimeSpan.FromSeconds(3.75), retried.At);
        Assert.True(retried.At < received + TimeSpan.FromSeconds(6)); // while the message is still invisible
        Assert.Equal(["receipt-m1"], retried.Handles);
        retried.Succeed();
    }

    [Fact]
    public async Task AMessageWhoseReceiptIsRefused_IsNotExtendedAgain()
    {
        var clock = new FakeTimeProvider();
        var transport = new ScriptedVisibilityTransport(clock);
        using var heartbeat = new VisibilityHeartbeat(transport, "orders", TimeSpan.FromSeconds(8), clock, NullLogger.Instance);
        heartbeat.Hold(Message("m1"));
        clock.Advance(TimeSpan.FromSeconds(4));
        ScriptedVisibilityTransport.Call extension = await transport.WaitForCallsAsync(1);
        extension.Answer.SetResult([new BatchEntryResult(0, null, "ReceiptHandleIsInvalid", "stale", SenderFault: true)]);

        await WaitUntilAsync(() => !heartbeat.ExtensionUnderWay); // the answer taken in
        clock.Advance(TimeSpan.FromMinutes(2));
        await Task.Yield();

        Assert.Single(transport.Calls);
    }

    [Fact]
    public async Task TheHeartbeatExtendsOnlyWhatIsDue_AndEveryHeldMessageInOneCall()
    {
        var clock = new FakeTimeProvider();
        var transport = new ScriptedVisibilityTransport(clock) { AnswerAtOnce = true };
        using var heartbeat = new VisibilityHeartbeat(transport, "orders", TimeSpan.FromSeconds(8), clock, NullLogger.Instance);
        heartbeat.Hold(Message("old1"));
        heartbeat.Hold(Message("old2"));
        clock.Advance(TimeSpan.FromSeconds(2));
        heartbeat.Hold(Message("new")); // received 2 s later: 6 s left at the next tick

        clock.Advance(TimeSpan.FromSeconds(2));
        ScriptedVisibilityTransport.Call first = await transport.WaitForCallsAsync(1);

        Assert.Equal(["receipt-old1", "receipt-old2"], first.Handles.Order());
    }

    private static async Task WaitUntilAsync(Func<bool> condition)
    {
        for (int i = 0; !condition(); i++)
        {
            Assert.True(i < 3000, "condition not met");
            await Task.Delay(1);
        }
    }

    [Fact]
    public async Task AReleaseMadeWhileAnAbandonedExtensionMayStillLand_IsMadeAgainWhenThatExtensionFinallyEnds()
    {
        var clock = new FakeTimeProvider();
        var transport = new ScriptedVisibilityTransport(clock) { IgnoreCancellation = true };
        using var heartbeat = new VisibilityHeartbeat(transport, "orders", TimeSpan.FromSeconds(8), clock, NullLogger.Instance);
        SqsMessage message = Message("m1");
        heartbeat.Hold(message);

        clock.Advance(TimeSpan.FromSeconds(4)); // due: the first extension, which ignores its deadline
        ScriptedVisibilityTransport.Call abandoned = await transport.WaitForCallsAsync(1);
        clock.Advance(heartbeat.ExtensionDeadline); // abandoned, and tried again at once
        ScriptedVisibilityTransport.Call retried = await transport.WaitForCallsAsync(2);
        Assert.Equal(TimeSpan.FromSeconds(8), retried.Visibility);

        Task released = heartbeat.SetVisibilityAsync([message], TimeSpan.Zero); // the handler failed: released
        ScriptedVisibilityTransport.Call release = await transport.WaitForCallsAsync(3);
        Assert.Equal(TimeSpan.Zero, release.Visibility);
        release.Succeed();
        await released;

        retried.Succeed(); // the retry lands after the release: the release is made again
        (await transport.WaitForCallsAsync(4)).Succeed();
        abandoned.Succeed(); // and the abandoned extension lands later still: made again once more
        ScriptedVisibilityTransport.Call again = await transport.WaitForCallsAsync(5);

        Assert.Equal(TimeSpan.Zero, again.Visibility);
        Assert.Equal(["receipt-m1"], again.Handles);
    }

    [Fact]
    public async Task AStalledExtensionOfTenMessages_IsRetriedInOneCall_NotOneCallPerMessage()
    {
        var clock = new FakeTimeProvider();
        var transport = new ScriptedVisibilityTransport(clock);
        using var heartbeat = new VisibilityHeartbeat(transport, "orders", TimeSpan.FromSeconds(8), clock, NullLogger.Instance);
        for (int i = 0; i < 10; i++)
        {
            heartbeat.Hold(Message("m" + i));
        }

        clock.Advance(TimeSpan.FromSeconds(2));
        ScriptedVisibilityTransport.Call stalled = await transport.WaitForCallsAsync(1);
        Assert.Equal(10, stalled.Handles.Length);
        clock.Advance(heartbeat.ExtensionDeadline); // an SQS brownout: the call never answers
        ScriptedVisibilityTransport.Call retried = await transport.WaitForCallsAsync(2);
        retried.Succeed();
        await WaitUntilAsync(() => !heartbeat.ExtensionUnderWay);

        Assert.Equal(10, retried.Handles.Length);
        Assert.Equal(2, transport.Calls.Count); // one abandoned call, one retry
    }

    [Fact]
    public async Task AReleaseAnExtensionWhoseTaskEndedUnansweredMayUndo_IsMadeAgainAtEveryTickOfItsWindow_ThenForgotten()
    {
        // The transport honours its token: an abandoned call's task ends at the deadline, but the request it sent may
        // still be applied by SQS at any time in the late-landing window; a release made meanwhile is made again at every
        // tick of that window (a landing hides the message for at most a tick), and once more when it closes.
        var clock = new FakeTimeProvider();
        var transport = new ScriptedVisibilityTransport(clock);
        using var heartbeat = new VisibilityHeartbeat(transport, "orders", TimeSpan.FromSeconds(8), clock, NullLogger.Instance);
        SqsMessage message = Message("m1");
        heartbeat.Hold(message);
        clock.Advance(TimeSpan.FromSeconds(2));
        await transport.WaitForCallsAsync(1);
        clock.Advance(heartbeat.ExtensionDeadline); // abandoned, its task ended cancelled; retried at once
        await transport.WaitForCallsAsync(2);

        Task released = heartbeat.SetVisibilityAsync([message], TimeSpan.Zero); // the handler failed while the retry is under way
        ScriptedVisibilityTransport.Call release = await transport.WaitForCallsAsync(3);
        release.Succeed();
        await released;
        clock.Advance(heartbeat.ExtensionDeadline); // the retry is abandoned too, unanswered: the release is made again now
        ScriptedVisibilityTransport.Call now = await transport.WaitForCallsAsync(4);
        Assert.Equal(TimeSpan.Zero, now.Visibility);
        DateTimeOffset windowCloses = now.At + Batcher<int, object>.LateLandingWindow;

        for (int tick = 0; tick < 40; tick++)
        {
            clock.Advance(TimeSpan.FromSeconds(1)); // a tick: while the window is open, the release is made again
            DateTimeOffset at = clock.GetUtcNow();
            if (at <= windowCloses)
            {
                await WaitUntilAsync(() => transport.Calls.Any(c => c.At == at));
            }
        }

        await Task.Yield();
        var after = transport.Calls.Where(c => c.At > now.At).ToList();
        Assert.All(after, c => Assert.Equal((TimeSpan.Zero, "receipt-m1"), (c.Visibility!.Value, c.Handles.Single())));
        Assert.Equal(Enumerable.Range(1, 30).Select(i => now.At + TimeSpan.FromSeconds(i)), after.Select(c => c.At).Distinct()); // none once it closed
    }

    [Fact]
    public async Task AnExtensionEntryFailedOnTheServicesSide_StaysDue_AndIsTriedAgainAtTheNextTick()
    {
        var clock = new FakeTimeProvider();
        var transport = new ScriptedVisibilityTransport(clock);
        using var heartbeat = new VisibilityHeartbeat(transport, "orders", TimeSpan.FromSeconds(8), clock, NullLogger.Instance);
        heartbeat.Hold(Message("m1"));

        clock.Advance(TimeSpan.FromSeconds(4));
        ScriptedVisibilityTransport.Call first = await transport.WaitForCallsAsync(1);
        first.Answer.SetResult([new BatchEntryResult(0, null, "InternalError", "Please try again.", SenderFault: false)]);
        await WaitUntilAsync(() => !heartbeat.ExtensionUnderWay); // the answer taken in, before its deadline
        clock.Advance(TimeSpan.FromSeconds(1)); // the next tick, an eighth later
        ScriptedVisibilityTransport.Call second = await transport.WaitForCallsAsync(2);

        Assert.Equal(["receipt-m1"], second.Handles);
        Assert.Equal(first.At + TimeSpan.FromSeconds(1), second.At);
    }

    [Theory]
    [InlineData("ReceiptHandleIsInvalid", "The receipt handle is not valid.")]
    [InlineData("AWS.SimpleQueueService.MessageNotInflight", "The message is not in flight.")]
    [InlineData("InvalidParameterValue", "Value AQEB for parameter ReceiptHandle is invalid. Reason: The receipt handle has expired.")]
    public async Task AnExtensionEntryWhoseReceiptIsGone_IsNotTriedAgain(string code, string text)
    {
        var clock = new FakeTimeProvider();
        var transport = new ScriptedVisibilityTransport(clock);
        using var heartbeat = new VisibilityHeartbeat(transport, "orders", TimeSpan.FromSeconds(8), clock, NullLogger.Instance);
        heartbeat.Hold(Message("m1"));

        clock.Advance(TimeSpan.FromSeconds(4));
        (await transport.WaitForCallsAsync(1)).Answer.SetResult([new BatchEntryResult(0, null, code, text, SenderFault: true)]);
        await WaitUntilAsync(() => !heartbeat.ExtensionUnderWay); // the answer taken in, before its deadline
        for (int i = 0; i < 16; i++)
        {
            clock.Advance(TimeSpan.FromSeconds(1));
            await Task.Yield();
        }

        Assert.Single(transport.Calls);
    }
}
