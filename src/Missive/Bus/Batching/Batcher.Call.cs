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
        var results = new BatchEntryResult[batch.Count];
        var sending = batch;
        int[]? positions = null;
        if (policy.OrderingGroup is { } groupOf && lane.FailedGroups is { } failedGroups)
        {
            (sending, positions) = WithoutFailedGroups(batch, groupOf, failedGroups, results);
        }

        if (sending.Count > 0)
        {
            var deadline = new CancellationTokenSource(policy.CallDeadline, _clock);
            CancellationToken expired = deadline.Token; // read after the source is disposed, when the call ends
            Task<IReadOnlyList<BatchEntryResult>> task = CallDeadline.Start(token => _call(lane.Key, sending, token), expired);
            _ = EndedAsync(task, lane.Key, sending, deadline);
            IReadOnlyList<BatchEntryResult>? answered = null;
            Exception? failure = null;
            bool late = false;
            if (!await CallDeadline.EndsWithinAsync(task, _clock, policy.CallDeadline).ConfigureAwait(false))
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

    /// <summary>Once a call's task has ended (in time or, abandoned, later): its deadline is released and the callback hears of it.</summary>
    private async Task EndedAsync(Task call, TKey key, List<TEntry> entries, CancellationTokenSource deadline)
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
            deadline.Dispose();
        }

        _callEnded?.Invoke(key, entries);
    }
}
