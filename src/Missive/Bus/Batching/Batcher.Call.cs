using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Missive.Transport;

namespace Missive.Bus;

/// <content>One call over a closed batch: its deadline, its FIFO groups, and a result for each entry whatever became of it.</content>
internal sealed partial class Batcher<TKey, TEntry>
{
    /// <summary>The call over a batch, within its deadline: one result per entry, whatever became of the call.</summary>
    private async Task<BatchEntryResult[]> CallAsync(Lane lane, List<TEntry> batch)
    {
        BatchPolicy policy = lane.Policy;
        BatchEntryResult[]? results = null; // the call's own answer when it is one result per entry, in order
        var sending = batch;
        int[]? positions = null;
        if (policy.OrderingGroup is { } groupOf && lane.FailedGroups is { } failedGroups)
        {
            results = new BatchEntryResult[batch.Count];
            (sending, positions) = WithoutFailedGroups(batch, groupOf, failedGroups, results);
        }

        if (sending.Count > 0)
        {
            // One timer for the deadline: it cancels the call's token and ends the wait below, whatever the call does.
            var deadline = new Deadline();
            CancellationToken expired = deadline.Token;
            ITimer timer = _clock.CreateTimer(static state => ((Deadline)state!).Fire(), deadline, policy.CallDeadline, Timeout.InfiniteTimeSpan);
            Task<IReadOnlyList<BatchEntryResult>> task = Start(lane.Key, sending, expired);
            _ = EndedAsync(task, lane.Key, sending, deadline, timer);
            IReadOnlyList<BatchEntryResult>? answered = null;
            Exception? failure = null;
            bool late = false;
            if (!task.IsCompleted && !await deadline.Ended.ConfigureAwait(false))
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
            for (int i = 0; i < batch.Count; i++)
            {
                if (!results[i].Succeeded && results[i].ErrorCode != BatchResults.WithdrawnCode && group(batch[i]) is { } failedGroup)
                {
                    (lane.FailedGroups ??= [])[failedGroup] = results[i]; // read and written by the lane's one call at a time
                }
            }
        }

        return results;
    }

    /// <summary>The entries that may go, and their positions; those of a group that failed earlier get their result now.</summary>
    private static (List<TEntry> Sending, int[]? Positions) WithoutFailedGroups(List<TEntry> batch, Func<object, object?> groupOf, Dictionary<object, BatchEntryResult> failedGroups, BatchEntryResult[] results)
    {
        var sending = new List<TEntry>(batch.Count);
        var positions = new List<int>(batch.Count);
        for (int i = 0; i < batch.Count; i++)
        {
            if (groupOf(batch[i]) is { } group && failedGroups.TryGetValue(group, out BatchEntryResult earlier))
            {
                results[i] = BatchResults.GroupFailedEarlier(i, group, earlier);
            }
            else
            {
                sending.Add(batch[i]);
                positions.Add(i);
            }
        }

        return sending.Count == batch.Count ? (batch, null) : (sending, [.. positions]);
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
    /// Once a call's task has ended (in time or, abandoned, later): the wait hears of it, its timer is released, and the
    /// call-ended callback hears of its entries. The call's failure is observed here; the batch reads it when it ended in
    /// time.
    /// </summary>
    private async Task EndedAsync(Task call, TKey key, List<TEntry> entries, Deadline deadline, ITimer timer)
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
            deadline.CallEnded();
        }

        _callEnded?.Invoke(key, entries);
    }

    /// <summary>A call's deadline: its token, and the wait that ends when the call does or when the deadline fires.</summary>
    [System.Diagnostics.CodeAnalysis.SuppressMessage("Design", "CA1001:Types that own disposable fields should be disposable", Justification = "The source has no timer; disposing it could race the timer's callback cancelling it (an ObjectDisposedException on a timer thread).")]
    private sealed class Deadline
    {
        private readonly CancellationTokenSource _source = new(); // no timer of its own: the batcher's timer fires it
        private readonly TaskCompletionSource<bool> _ended = new(); // the batch goes on inline where the call ended, as an await of the call would

        public CancellationToken Token => _source.Token;

        /// <summary>Gets the wait: <c>true</c> when the call ended first, <c>false</c> when the deadline fired first.</summary>
        public Task<bool> Ended => _ended.Task;

        public void Fire()
        {
            if (_ended.TrySetResult(false))
            {
                _source.Cancel(); // the transport's own cancellation, for one that honours its token
            }
        }

        public void CallEnded() => _ended.TrySetResult(true);
    }
}
