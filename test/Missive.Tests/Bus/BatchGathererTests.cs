using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.Time.Testing;
using Missive.Bus;
using Missive.Transport;

namespace Missive.Tests.Bus;

/// <summary>
/// <see cref="BatchGatherer"/> on a fake clock: when a run goes (full, the batch's end, or no progress for
/// <see cref="BatchGatherer.IdleFlush"/>), withdrawal by cancellation, and FIFO groups after a failure.
/// </summary>
public sealed class BatchGathererTests
{
    private static SqsSendRequest Request(int i, string queue = "orders", string? group = null)
        => new() { QueueName = queue, Body = "m" + i, MessageGroupId = group };

    [Fact]
    public async Task ARunWithNoProgress_GoesAfterTheIdleWindow_OnceEveryMessageHasStarted()
    {
        var clock = new FakeTimeProvider();
        var transport = new RecordingBatchTransport();
        using var gatherer = new BatchGatherer(transport, 3, clock, CancellationToken.None);
        BatchGatherer.Entry[] entries = [gatherer.NewEntry(0), gatherer.NewEntry(1), gatherer.NewEntry(2)];

        Task<string> first = entries[0].SendAsync(Request(0));
        clock.Advance(TimeSpan.FromSeconds(1)); // messages are still starting: the run waits
        Assert.Empty(transport.Calls);

        gatherer.AllStarted();
        clock.Advance(BatchGatherer.IdleFlush - TimeSpan.FromTicks(1));
        Assert.Empty(transport.Calls);
        clock.Advance(TimeSpan.FromTicks(1));

        Assert.Equal("id-m0", await first.WaitAsync(TimeSpan.FromSeconds(30)));
        Assert.Equal([["m0"]], transport.Calls);

        // The rest goes when it reaches the end of the batch, with no wait.
        Task<string> second = entries[1].SendAsync(Request(1));
        entries[2].Finish(); // refused before its send
        Assert.Equal("id-m1", await second.WaitAsync(TimeSpan.FromSeconds(30)));
        Assert.Equal([["m0"], ["m1"]], transport.Calls);
    }

    [Fact]
    public async Task ProgressWithinTheWindow_PutsTheIdleFlushOff()
    {
        var clock = new FakeTimeProvider();
        var transport = new RecordingBatchTransport();
        using var gatherer = new BatchGatherer(transport, 12, clock, CancellationToken.None);
        gatherer.AllStarted();
        var sends = new List<Task<string>>();
        for (int i = 0; i < 4; i++)
        {
            sends.Add(gatherer.NewEntry(i).SendAsync(Request(i)));
            clock.Advance(BatchGatherer.IdleFlush / 2);
        }

        Assert.Empty(transport.Calls); // a message reached its send within every window

        clock.Advance(BatchGatherer.IdleFlush);
        await Task.WhenAll(sends).WaitAsync(TimeSpan.FromSeconds(30));
        Assert.Equal([["m0", "m1", "m2", "m3"]], transport.Calls);
    }

    [Fact]
    public async Task TenRequestsGoAtOnce_WithoutWaitingForTheClock()
    {
        var clock = new FakeTimeProvider();
        var transport = new RecordingBatchTransport();
        using var gatherer = new BatchGatherer(transport, 25, clock, CancellationToken.None);
        var sends = Enumerable.Range(0, 10).Select(i => gatherer.NewEntry(i).SendAsync(Request(i))).ToList();

        await Task.WhenAll(sends).WaitAsync(TimeSpan.FromSeconds(30));
        Assert.Single(transport.Calls);
        Assert.Equal(10, transport.Calls[0].Count);
    }

    [Fact]
    public async Task ASendCancelledBeforeItsCall_IsWithdrawn_AndNeverSent()
    {
        var clock = new FakeTimeProvider();
        var transport = new RecordingBatchTransport { Hold = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously) };
        using var cancel = new CancellationTokenSource();
        using var gatherer = new BatchGatherer(transport, 2, clock, cancel.Token);
        gatherer.AllStarted();
        Task<string> first = gatherer.NewEntry(0).SendAsync(Request(0), cancel.Token);
        clock.Advance(BatchGatherer.IdleFlush); // the first goes alone, and its call is held
        await transport.Entered.Task.WaitAsync(TimeSpan.FromSeconds(30));
        Task<string> second = gatherer.NewEntry(1).SendAsync(Request(1), cancel.Token); // queued behind the held call

        cancel.Cancel();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => second.WaitAsync(TimeSpan.FromSeconds(30)));
        transport.Hold.SetResult();

        Assert.Equal("id-m0", await first.WaitAsync(TimeSpan.FromSeconds(30))); // its call had begun: the service's answer
        Assert.Equal([["m0"]], transport.Calls);
    }

    [Fact]
    public async Task AfterAFailedCall_TheLaterMessagesOfItsFifoGroupAreNotSent_AndOtherGroupsAndStandardQueuesGoOn()
    {
        var clock = new FakeTimeProvider();
        var transport = new RecordingBatchTransport { FailCall = 1 };
        using var gatherer = new BatchGatherer(transport, 3, clock, CancellationToken.None);
        gatherer.AllStarted();
        Task<string> a0 = gatherer.NewEntry(0).SendAsync(Request(0, "orders.fifo", "a"));
        clock.Advance(BatchGatherer.IdleFlush); // the first call, which fails whole
        await Assert.ThrowsAsync<MessageTransportException>(() => a0.WaitAsync(TimeSpan.FromSeconds(30)));

        Task<string> a1 = gatherer.NewEntry(1).SendAsync(Request(1, "orders.fifo", "a"));
        Task<string> b0 = gatherer.NewEntry(2).SendAsync(Request(2, "orders.fifo", "b"));

        var notSent = await Assert.ThrowsAsync<MessageTransportException>(() => a1.WaitAsync(TimeSpan.FromSeconds(30)));
        Assert.Contains("FIFO group 'a'", notSent.Message, StringComparison.Ordinal);
        Assert.Equal("id-m2", await b0.WaitAsync(TimeSpan.FromSeconds(30)));
        Assert.Equal([["m0"], ["m2"]], transport.Calls);
    }

    [Fact]
    public async Task OnAStandardQueue_ACallThatFails_FailsItsOwnEntriesOnly()
    {
        var clock = new FakeTimeProvider();
        var transport = new RecordingBatchTransport { FailCall = 1 };
        using var gatherer = new BatchGatherer(transport, 2, clock, CancellationToken.None);
        gatherer.AllStarted();
        Task<string> first = gatherer.NewEntry(0).SendAsync(Request(0, group: "a"));
        clock.Advance(BatchGatherer.IdleFlush);
        await Assert.ThrowsAsync<MessageTransportException>(() => first.WaitAsync(TimeSpan.FromSeconds(30)));

        Task<string> second = gatherer.NewEntry(1).SendAsync(Request(1, group: "a")); // a group id on a standard queue keeps no order

        Assert.Equal("id-m1", await second.WaitAsync(TimeSpan.FromSeconds(30)));
    }

    /// <summary>Records each SendMessageBatch call's bodies; answers at once unless held; fails the call numbered <see cref="FailCall"/> whole.</summary>
    private sealed class RecordingBatchTransport : IMessageTransport
    {
        private readonly object _gate = new();
        private readonly List<List<string>> _calls = [];

        public TaskCompletionSource? Hold { get; init; }

        public TaskCompletionSource Entered { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public int FailCall { get; init; }

        public List<List<string>> Calls
        {
            get
            {
                lock (_gate)
                {
                    return [.. _calls];
                }
            }
        }

        public async Task<IReadOnlyList<BatchEntryResult>> SendBatchAsync(IReadOnlyList<SqsSendRequest> requests, CancellationToken cancellationToken = default)
        {
            int number;
            lock (_gate)
            {
                _calls.Add(requests.Select(r => r.Body).ToList());
                number = _calls.Count;
            }

            Entered.TrySetResult();
            if (Hold is not null)
            {
                await Hold.Task;
            }

            if (number == FailCall)
            {
                throw new MessageTransportException("the call failed") { StatusCode = 500, FailureKind = TransportFailureKind.Transient };
            }

            return requests.Select((r, i) => BatchEntryResult.Success(i, "id-" + r.Body)).ToArray();
        }

        public Task<string> SendAsync(SqsSendRequest request, CancellationToken cancellationToken = default) => throw new NotSupportedException();

        public Task<string> PublishAsync(SnsPublishRequest request, CancellationToken cancellationToken = default) => throw new NotSupportedException();

        public Task<string> PutEventAsync(EventBridgeEntry entry, CancellationToken cancellationToken = default) => throw new NotSupportedException();

        public Task<IReadOnlyList<SqsMessage>> ReceiveAsync(string queueName, int maxMessages, TimeSpan waitTime, TimeSpan? visibilityTimeout = null, CancellationToken cancellationToken = default) => throw new NotSupportedException();

        public Task<bool> DeleteAsync(string queueName, string receiptHandle, CancellationToken cancellationToken = default) => throw new NotSupportedException();

        public Task<bool> ChangeVisibilityAsync(string queueName, string receiptHandle, TimeSpan visibilityTimeout, CancellationToken cancellationToken = default) => throw new NotSupportedException();
    }
}
