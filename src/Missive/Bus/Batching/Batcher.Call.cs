using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Missive.Transport;

namespace Missive.Bus;

/// <content>One call over a closed batch: its deadline, its FIFO groups, and a result for each entry whatever became of it.</content>
internal sealed partial class Batcher<TKey, TEntry>
{
    /// <summary>
    /// How long a call whose task ended without an answer (cancelled at its deadline, a broken connection) may still take
    /// effect at the service: a request already sent can be applied after its sender gave up. Longer than an attempt of
    /// the AWS transport (30 seconds by default).
    /// </summary>
    public static readonly TimeSpan LateLandingWindow = TimeSpan.FromSeconds(30);

    /// <summary>The call over a batch, within its deadline: one result per entry, whatever became of the call.</summary>
    private async Task<BatchEntryResult[]> CallAsync(Lane lane, List<TEntry> batch)
    {
        BatchPolicy policy = lane.Policy;
        BatchEntryResult[]? results = null; // the call's own answer when it is one result per entry, in order
        var sending = batch;
        int[]? positions = null;
        if (policy.OrderingGroup is { } groupOf)
        {
            (sending, positions, results) = WithoutFailedGroups(lane, batch, groupOf);
        }

        CallState? call = null;
        bool late = false;
        if (sending.Count > 0)
        {
            // One timer for the deadline: it cancels the call's token and ends the wait below, whatever the call does.
            call = new CallState();
            CancellationToken expired = call.Token;
            ITimer timer = _clock.CreateTimer(static state => ((CallState)state!).Fire(), call, policy.CallDeadline, Timeout.InfiniteTimeSpan);
            Task<IReadOnlyList<BatchEntryResult>> task = Start(lane.Key, sending, expired);
            _ = EndedAsync(task, lane, sending, call, timer);
            IReadOnlyList<BatchEntryResult>? answered = null;
            Exception? failure = null;
            if (!task.IsCompleted && !await call.Ended.ConfigureAwait(false))
            {
                late = true;
            }
            else
            {
                try
                {
                    answered = await task.ConfigureAwait(false);
                }
                catch (OperationCanceledException) when (expired.IsCancellationRequested)
                {
                    late = true; // the transport honoured the deadline's token
                }
                catch (Exception e) when (!ContentSafety.IsFatal(e))
                {
                    failure = e;
                }
            }

            if (positions is null && !late && failure is null && answered is BatchEntryResult[] { Length: var count } same && count == sending.Count && InOrder(same))
            {
                results = same; // nothing to map
            }
            else
            {
                results ??= new BatchEntryResult[batch.Count];
                var given = new bool[sending.Count];
                if (answered is not null)
                {
                    for (int j = 0; j < answered.Count; j++)
                    {
                        int at = answered[j].Index is >= 0 and var index && index < sending.Count && !given[index] ? index : j;
                        if (at < sending.Count && !given[at])
                        {
                            given[at] = true;
                            results[positions?[at] ?? at] = answered[j] with { Index = positions?[at] ?? at };
                        }
                    }
                }

                for (int j = 0; j < sending.Count; j++)
                {
                    if (!given[j])
                    {
                        int position = positions?[j] ?? j;
                        results[position] = late ? BatchResults.TimedOut(position, policy.CallDeadline) : failure is not null ? BatchResults.CallFailed(position, failure) : BatchResults.NoAnswer(position);
                    }
                }
            }
        }

        results ??= new BatchEntryResult[batch.Count]; // not reached with entries to send: each had its result above
        if (policy.OrderingGroup is { } group)
        {
            RecordFailedGroups(lane, batch, results, group, late ? call : null);
        }

        return results;
    }

    /// <summary>
    /// The entries that may go, their positions, and the results of those that may not (an earlier entry of their group
    /// failed, as the lane's policy says); the groups whose failure no longer holds are forgotten.
    /// </summary>
    private (List<TEntry> Sending, int[]? Positions, BatchEntryResult[]? Results) WithoutFailedGroups(Lane lane, List<TEntry> batch, Func<object, object?> groupOf)
    {
        lock (_gate)
        {
            if (lane.FailedGroups is null && lane.RefusedEntries is null)
            {
                return (batch, null, null);
            }

            DateTimeOffset now = _clock.GetUtcNow();
            BatchEntryResult[]? results = null;
            List<TEntry>? sending = null;
            List<int>? positions = null;
            for (int i = 0; i < batch.Count; i++)
            {
                TEntry entry = batch[i];
                object? group = groupOf(entry);
                BatchEntryResult? earlier = null;
                if (group is not null && lane.FailedGroups?.GetValueOrDefault(group) is { } failed)
                {
                    if (failed.Holds(now))
                    {
                        earlier = failed.Earlier;
                    }
                    else
                    {
                        lane.FailedGroups.Remove(group);
                    }
                }

                if (lane.RefusedEntries is { } refused && refused.Remove(entry, out BatchEntryResult waiting))
                {
                    earlier ??= waiting;
                }

                if (earlier is { } result)
                {
                    if (results is null)
                    {
                        results = new BatchEntryResult[batch.Count];
                        sending = batch.GetRange(0, i);
                        positions = new List<int>(batch.Count);
                        for (int j = 0; j < i; j++)
                        {
                            positions.Add(j);
                        }
                    }

                    results[i] = BatchResults.GroupFailedEarlier(i, group!, result);
                }
                else if (sending is not null)
                {
                    sending.Add(entry);
                    positions!.Add(i);
                }
            }

            if (lane.FailedGroups is { Count: 0 })
            {
                lane.FailedGroups = null;
            }

            if (lane.RefusedEntries is { Count: 0 })
            {
                lane.RefusedEntries = null;
            }

            return results is null ? (batch, null, null) : (sending!, [.. positions!], results);
        }
    }

    /// <summary>
    /// Remembers the groups of the entries that failed, for as long as the policy says their failure holds. A call
    /// abandoned at its deadline (<paramref name="abandoned"/>) holds its groups while it may still land.
    /// </summary>
    private void RecordFailedGroups(Lane lane, List<TEntry> batch, BatchEntryResult[] results, Func<object, object?> groupOf, CallState? abandoned)
    {
        lock (_gate)
        {
            for (int i = 0; i < batch.Count; i++)
            {
                if (results[i].Succeeded || results[i].ErrorCode is BatchResults.WithdrawnCode or BatchResults.GroupFailedEarlierCode || groupOf(batch[i]) is not { } group)
                {
                    continue;
                }

                if (lane.Policy.GroupFailuresHoldForLane)
                {
                    (lane.FailedGroups ??= [])[group] = new FailedGroup(results[i], null) { Until = DateTimeOffset.MaxValue };
                    continue;
                }

                RefuseWaiting(lane, group, results[i], groupOf);
                if (abandoned is not null)
                {
                    (lane.FailedGroups ??= [])[group] = new FailedGroup(results[i], abandoned) { Until = abandoned.LandsUntil() };
                }
            }
        }
    }

    /// <summary>The entries of <paramref name="group"/> waiting in the lane now are refused when their call comes. Under the lock.</summary>
    private static void RefuseWaiting(Lane lane, object group, BatchEntryResult earlier, Func<object, object?> groupOf)
    {
        void Refuse(List<TEntry> waiting)
        {
            foreach (TEntry entry in waiting)
            {
                if (Equals(groupOf(entry), group))
                {
                    (lane.RefusedEntries ??= new(ReferenceEqualityComparer.Instance))[entry] = earlier;
                }
            }
        }

        if (lane.Open is { } open)
        {
            Refuse(open);
        }

        foreach (List<TEntry> closed in lane.Closed)
        {
            Refuse(closed);
        }
    }

    /// <summary>Whether each result sits at its own index.</summary>
    private static bool InOrder(BatchEntryResult[] results)
    {
        for (int i = 0; i < results.Length; i++)
        {
            if (results[i].Index != i)
            {
                return false;
            }
        }

        return true;
    }

    /// <summary>Starts the call, a synchronous throw made a faulted task.</summary>
    private Task<IReadOnlyList<BatchEntryResult>> Start(TKey key, List<TEntry> sending, CancellationToken deadline)
    {
        try
        {
            return _call(key, sending, deadline);
        }
        catch (Exception e) when (!ContentSafety.IsFatal(e))
        {
            return Task.FromException<IReadOnlyList<BatchEntryResult>>(e);
        }
    }

    /// <summary>
    /// Once a call's task has ended (in time or, abandoned, later): the wait hears of it, its timer is released, the
    /// groups it held learn how long it may still land, and the call-ended callback hears of its entries and whether the
    /// call answered. The call's failure is observed here; the batch reads it when it ended in time.
    /// </summary>
    private async Task EndedAsync(Task call, Lane lane, List<TEntry> entries, CallState state, ITimer timer)
    {
        try
        {
            await call.ConfigureAwait(false);
        }
        catch (Exception e) when (!ContentSafety.IsFatal(e))
        {
            // The call's failure is the batch's to report; here only its end counts.
        }
        finally
        {
            timer.Dispose();
            lock (_gate)
            {
                state.Settle(call.IsCompletedSuccessfully, _clock.GetUtcNow());
                if (lane.FailedGroups is { } failed)
                {
                    foreach (FailedGroup group in failed.Values)
                    {
                        if (ReferenceEquals(group.Call, state))
                        {
                            group.Until = state.LandsUntil();
                        }
                    }
                }
            }

            state.CallEnded(); // outside the lock: the batch may go on inline
        }

        _callEnded?.Invoke(lane.Key, entries, call.IsCompletedSuccessfully);
    }

    /// <summary>An ordering group whose failure holds until <see cref="Until"/> (unknown while the call that failed it runs).</summary>
    private sealed class FailedGroup(BatchEntryResult earlier, CallState? call)
    {
        public BatchEntryResult Earlier { get; } = earlier;

        /// <summary>Gets the abandoned call that holds the group, or <c>null</c>.</summary>
        public CallState? Call { get; } = call;

        /// <summary>Gets or sets until when the failure holds; <c>null</c> while its call runs. Under the batcher's lock.</summary>
        public DateTimeOffset? Until { get; set; }

        public bool Holds(DateTimeOffset now) => Until is not { } until || now < until;
    }

    /// <summary>
    /// A call: its deadline (its token, and the wait that ends when the call does or when the deadline fires), and once
    /// its task has ended, when and whether it answered.
    /// </summary>
    [System.Diagnostics.CodeAnalysis.SuppressMessage("Design", "CA1001:Types that own disposable fields should be disposable", Justification = "The source has no timer; disposing it could race the timer's callback cancelling it (an ObjectDisposedException on a timer thread).")]
    private sealed class CallState
    {
        private readonly CancellationTokenSource _source = new(); // no timer of its own: the batcher's timer fires it
        private readonly TaskCompletionSource<bool> _ended = new(); // the batch goes on inline where the call ended, as an await of the call would
        private DateTimeOffset? _endedAt; // under the batcher's lock, as the two below
        private bool _answered;

        public CancellationToken Token => _source.Token;

        /// <summary>Gets the wait: <c>true</c> when the call ended first, <c>false</c> when the deadline fired first.</summary>
        public Task<bool> Ended => _ended.Task;

        public void Fire()
        {
            if (_ended.Task.IsCompleted)
            {
                return; // the call ended first
            }

            _source.Cancel(); // first the transport's own cancellation (for one that honours its token), then the batch goes on
            _ended.TrySetResult(false);
        }

        /// <summary>The call's task ended at <paramref name="at"/>, with an answer or not. Under the batcher's lock.</summary>
        public void Settle(bool answered, DateTimeOffset at)
        {
            _endedAt = at;
            _answered = answered;
        }

        /// <summary>The call's task ended: the wait hears of it.</summary>
        public void CallEnded() => _ended.TrySetResult(true);

        /// <summary>
        /// Until when the call may still take effect: not known while it runs (<c>null</c>); at once when it answered; else
        /// <see cref="LateLandingWindow"/> after its task ended. Under the batcher's lock.
        /// </summary>
        public DateTimeOffset? LandsUntil()
            => _endedAt is not { } endedAt ? null : _answered ? endedAt : endedAt + LateLandingWindow;
    }
}
