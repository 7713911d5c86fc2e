using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Missive.Transport;

namespace Missive.Bus;

/// <summary>
/// The one place where the bus decides when a batch call goes: entries wait in lanes (one per destination, or per kind
/// of change), a lane's open batch closes and its calls go as its <see cref="BatchPolicy"/> says, every call has a
/// deadline that holds whatever the transport does with its token, and every entry ends with one
/// <see cref="BatchEntryResult"/> read by the outcome rule (<see cref="BatchEntryOutcome"/>).
/// </summary>
/// <remarks>
/// <list type="bullet">
/// <item>An entry is added to its lane's open batch; the batch closes when the policy says (full, its wait, idle, when
/// the lane has nothing under way, flushed, or the batcher complete), and closed batches go in order, as many at once
/// as the lane allows.</item>
/// <item>A call that throws, answers too few results, or misses its deadline gives each of its entries a result:
/// <see cref="BatchEntryOutcome.Unknown"/> unless the failure says the service refused the call. A call that missed its
/// deadline is left to end on its own; the lane goes on at once.</item>
/// <item>Each entry's result goes to the completion given to the constructor, once; a completion may add entries again
/// (a retry, at once or after a delay), before the call counts as ended; then the results-given callback hears of the
/// call's results together. When a call's task really ends (in time or, abandoned, later), the call-ended callback hears
/// of its entries and whether the call answered.</item>
/// <item>Calls start on the thread that closes their batch, outside the batcher's lock; callers add entries outside
/// their own locks.</item>
/// </list>
/// Modelled on MassTransit's <c>Batcher&lt;TEntry&gt;</c>: one class owning the flush policy, the per-destination queue,
/// per-entry completion and whole-call faults.
/// </remarks>
/// <typeparam name="TKey">What names a lane.</typeparam>
/// <typeparam name="TEntry">An entry.</typeparam>
internal sealed partial class Batcher<TKey, TEntry> : IDisposable
    where TKey : notnull
    where TEntry : class
{
    /// <summary>How many lanes are kept while idle (a destination's lane lives on between its calls).</summary>
    private const int RetainedLanes = 16;

    private readonly object _gate = new();
    private readonly Dictionary<TKey, Lane> _lanes = [];
    private readonly Func<TKey, BatchPolicy> _policyOf;
    private readonly Func<TKey, IReadOnlyList<TEntry>, CancellationToken, Task<IReadOnlyList<BatchEntryResult>>> _call;
    private readonly Action<TEntry, BatchEntryResult> _complete;
    private readonly Action<TKey, IReadOnlyList<TEntry>, bool>? _callEnded;
    private readonly Action<TKey, IReadOnlyList<BatchEntryResult>>? _resultsGiven;
    private readonly TimeProvider _clock;
    private int _waiting; // entries in open or closed batches
    private int _running; // calls under way (until their results are given)
    private TaskCompletionSource? _drained;
    private bool _completed;
    private bool _disposed;

    /// <param name="policyOf">A lane's policy, asked once when the lane opens.</param>
    /// <param name="call">One call over a batch of a lane: one result per entry, in order (or by <see cref="BatchEntryResult.Index"/>).</param>
    /// <param name="complete">Gives an entry its result.</param>
    /// <param name="clock">The clock of waits and deadlines.</param>
    /// <param name="callEnded">Hears of a call's entries when its task really ends, and whether it answered (ran to completion), or <c>null</c>.</param>
    /// <param name="resultsGiven">Hears of a call's results once each of its entries has had its own, or <c>null</c>.</param>
    public Batcher(Func<TKey, BatchPolicy> policyOf, Func<TKey, IReadOnlyList<TEntry>, CancellationToken, Task<IReadOnlyList<BatchEntryResult>>> call, Action<TEntry, BatchEntryResult> complete, TimeProvider clock, Action<TKey, IReadOnlyList<TEntry>, bool>? callEnded = null, Action<TKey, IReadOnlyList<BatchEntryResult>>? resultsGiven = null)
    {
        _policyOf = policyOf;
        _call = call;
        _complete = complete;
        _clock = clock;
        _callEnded = callEnded;
        _resultsGiven = resultsGiven;
    }

    /// <summary>Adds an entry to its lane (with <see cref="BatchPolicy.ArmAfterBurst"/>, <see cref="Settle"/> arms the lane's wait).</summary>
    public void Add(TKey key, TEntry entry)
    {
        List<(Lane, List<TEntry>)>? starts = null;
        lock (_gate)
        {
            Lane lane = LaneOf(key);
            DateTimeOffset now = _clock.GetUtcNow(); // one reading for the entry and the decision after it
            Put(lane, entry, now, ref starts);
            Decide(lane, ref starts, now, arm: !lane.Policy.ArmAfterBurst);
        }

        Start(starts);
    }

    /// <summary>A burst of <see cref="Add"/>s has ended: the lane's timer is armed for its open batch's wait, if one is open.</summary>
    public void Settle(TKey key)
    {
        lock (_gate)
        {
            if (_lanes.TryGetValue(key, out Lane? lane) && lane.Open is not null)
            {
                Arm(lane, _clock.GetUtcNow());
            }
        }
    }

    /// <summary>Adds entries to their lane, in order; with <paramref name="flush"/>, the lane's open batch then goes.</summary>
    public void AddRange(TKey key, IReadOnlyList<TEntry> entries, bool flush)
    {
        List<(Lane, List<TEntry>)>? starts = null;
        lock (_gate)
        {
            Lane lane = LaneOf(key);
            DateTimeOffset now = _clock.GetUtcNow();
            foreach (TEntry entry in entries)
            {
                Put(lane, entry, now, ref starts);
            }

            if (flush && lane.Open is not null)
            {
                Close(lane);
            }

            Decide(lane, ref starts, now);
        }

        Start(starts);
    }

    /// <summary>The lane's input has ended: its open batch goes (when the lane's calls allow).</summary>
    public void Flush(TKey key)
    {
        List<(Lane, List<TEntry>)>? starts = null;
        lock (_gate)
        {
            if (_lanes.TryGetValue(key, out Lane? lane))
            {
                if (lane.Open is not null)
                {
                    Close(lane);
                }

                Decide(lane, ref starts);
            }
        }

        Start(starts);
    }

    /// <summary>From now on, the lane's open batch goes once no entry has come for its policy's <see cref="BatchPolicy.IdleWait"/>.</summary>
    public void StartIdleFlush(TKey key)
    {
        List<(Lane, List<TEntry>)>? starts = null;
        lock (_gate)
        {
            Lane lane = LaneOf(key);
            lane.IdleFlush = true;
            lane.LastAdded = _clock.GetUtcNow();
            Decide(lane, ref starts);
        }

        Start(starts);
    }

    /// <summary>
    /// Sends everything open, and completes when no entry waits and no call is under way (entries added again by
    /// completions included). With <paramref name="complete"/>, every entry added from now on goes at once.
    /// </summary>
    public Task DrainAsync(bool complete)
    {
        List<(Lane, List<TEntry>)>? starts = null;
        Task drained;
        lock (_gate)
        {
            _completed |= complete;
            foreach (Lane lane in new List<Lane>(_lanes.Values))
            {
                PutDelayed(lane, DateTimeOffset.MaxValue, ref starts); // what waits for its delay goes now
                if (lane.Open is not null)
                {
                    Close(lane);
                }

                Decide(lane, ref starts);
            }

            if (_waiting == 0 && _running == 0 && starts is null)
            {
                return Task.CompletedTask;
            }

            _drained ??= new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            drained = _drained.Task;
        }

        Start(starts);
        return drained;
    }

    /// <summary>Stops the lanes' timers; calls under way go on, and an open batch goes only when flushed or drained.</summary>
    public void Dispose()
    {
        lock (_gate)
        {
            _disposed = true;
            foreach (Lane lane in _lanes.Values)
            {
                lane.Timer?.Dispose();
            }
        }
    }

    private Lane LaneOf(TKey key)
    {
        if (!_lanes.TryGetValue(key, out Lane? lane))
        {
            _lanes[key] = lane = new Lane(key, _policyOf(key));
        }

        return lane;
    }

    /// <summary>Puts an entry in the lane's open batch at <paramref name="now"/>, closing it when full. Under the lock.</summary>
    private void Put(Lane lane, TEntry entry, DateTimeOffset now, ref List<(Lane, List<TEntry>)>? starts)
    {
        if (lane.Open is null)
        {
            lane.Open = new List<TEntry>(Math.Min(lane.Policy.MaxEntries, 16));
            lane.OpenedAt = now;
        }

        lane.Open.Add(entry);
        lane.LastAdded = now;
        _waiting++;
        if (lane.Open.Count >= lane.Policy.MaxEntries)
        {
            Close(lane);
            Decide(lane, ref starts, now, arm: !lane.Policy.ArmAfterBurst); // a full batch goes now, before the next entry opens another
        }
    }

    /// <summary>
    /// Closes the open batch if the policy says it goes now (else, with <paramref name="arm"/>, arms its wait), and takes
    /// what may start; <paramref name="at"/> is the clock's reading when the caller has just taken one. Under the lock.
    /// </summary>
    private void Decide(Lane lane, ref List<(Lane, List<TEntry>)>? starts, DateTimeOffset? at = null, bool arm = true)
    {
        BatchPolicy policy = lane.Policy;
        DateTimeOffset now = at ?? _clock.GetUtcNow();
        PutDelayed(lane, now, ref starts);
        if (lane.Open is not null)
        {
            if (_completed || Due(lane, now) || (policy.SendWhenIdle && lane.Running == 0 && lane.Closed.Count == 0))
            {
                Close(lane);
            }
        }

        if (arm && (lane.Open is not null || lane.Delayed is { Count: > 0 }))
        {
            Arm(lane, now);
        }

        while (lane.Closed.Count > 0 && lane.Running < policy.MaxConcurrentCalls)
        {
            List<TEntry> batch = lane.Closed.Dequeue();
            lane.Running++;
            _running++;
            _waiting -= batch.Count;
            (starts ??= []).Add((lane, batch));
        }

        if (_lanes.Count > RetainedLanes && lane.Open is null && lane.Closed.Count == 0 && lane.Running == 0 && !lane.IdleFlush && lane.FailedGroups is null && lane.RefusedEntries is null && lane.Delayed is not { Count: > 0 })
        {
            _lanes.Remove(lane.Key); // many lanes (a heartbeat's retry delays of many lengths): an idle one goes, a later entry opens it anew
            lane.Timer?.Dispose();
        }
    }

    private static bool Due(Lane lane, DateTimeOffset now)
        => (lane.Policy.MaxWait is { } maxWait && now - lane.OpenedAt >= maxWait)
        || (lane.IdleFlush && lane.Policy.IdleWait is { } idle && now - lane.LastAdded >= idle);

    /// <summary>Arms the lane's timer for the earliest time its open batch may be due or a delayed entry comes due. Under the lock.</summary>
    private void Arm(Lane lane, DateTimeOffset now)
    {
        DateTimeOffset? due = null;
        if (lane.Open is not null && lane.Policy.MaxWait is { } maxWait)
        {
            due = lane.OpenedAt + maxWait;
        }

        if (lane.Open is not null && lane.IdleFlush && lane.Policy.IdleWait is { } idle && (due is null || lane.LastAdded + idle < due))
        {
            due = lane.LastAdded + idle;
        }

        if (lane.Delayed is { } delayed)
        {
            foreach ((_, DateTimeOffset delayedUntil) in delayed)
            {
                if (due is null || delayedUntil < due)
                {
                    due = delayedUntil;
                }
            }
        }

        if (due is null || _disposed || (lane.ArmedFor is { } armed && armed <= due))
        {
            return; // armed for no later: when it fires, the batch is looked at again and the timer armed for what is left
        }

        lane.ArmedFor = due;
        lane.Timer ??= _clock.CreateTimer(static state => ((Lane)state!).Batcher!.OnTimer((Lane)state!), lane, Timeout.InfiniteTimeSpan, Timeout.InfiniteTimeSpan);
        lane.Batcher = this;
        TimeSpan wait = due.Value - now;
        lane.Timer.Change(wait > TimeSpan.Zero ? wait : TimeSpan.Zero, Timeout.InfiniteTimeSpan);
    }

    private void OnTimer(Lane lane)
    {
        List<(Lane, List<TEntry>)>? starts = null;
        lock (_gate)
        {
            lane.ArmedFor = null;
            if (_lanes.TryGetValue(lane.Key, out Lane? current) && ReferenceEquals(current, lane))
            {
                Decide(lane, ref starts); // closes the batch if it is due, else arms for when it will be
            }
        }

        Start(starts);
    }

    private static void Close(Lane lane)
    {
        lane.Closed.Enqueue(lane.Open!);
        lane.Open = null;
    }

    /// <summary>Starts calls; <paramref name="afterCall"/> when a call's end starts them, which then go on the thread pool (no call runs on in another's continuation).</summary>
    private void Start(List<(Lane Lane, List<TEntry> Batch)>? starts, bool afterCall = false)
    {
        if (starts is null)
        {
            return;
        }

        foreach ((Lane lane, List<TEntry> batch) in starts)
        {
            _ = RunAsync(lane, batch, afterCall || lane.Policy.StartOffThread);
        }
    }

    private async Task RunAsync(Lane lane, List<TEntry> batch, bool yieldFirst)
    {
        try
        {
            if (yieldFirst)
            {
                await Task.Yield();
            }

            BatchEntryResult[] results;
            try
            {
                results = await CallAsync(lane, batch).ConfigureAwait(false);
            }
            catch (Exception e) when (!ContentSafety.IsFatal(e))
            {
                results = new BatchEntryResult[batch.Count]; // not expected: every entry still gets a result
                for (int i = 0; i < results.Length; i++)
                {
                    results[i] = BatchResults.CallFailed(i, e);
                }
            }

            for (int i = 0; i < batch.Count; i++)
            {
                try
                {
                    _complete(batch[i], results[i]);
                }
                catch (Exception e) when (!ContentSafety.IsFatal(e))
                {
                    // One entry's completion must not keep the others from theirs.
                }
            }

            try
            {
                _resultsGiven?.Invoke(lane.Key, results);
            }
            catch (Exception e) when (!ContentSafety.IsFatal(e))
            {
                // Not expected; the lane goes on.
            }
        }
        finally
        {
            List<(Lane, List<TEntry>)>? starts = null;
            TaskCompletionSource? drained = null;
            lock (_gate)
            {
                lane.Running--;
                _running--;
                Decide(lane, ref starts);
                if (_waiting == 0 && _running == 0 && starts is null)
                {
                    drained = _drained;
                    _drained = null;
                }
            }

            Start(starts, afterCall: true);
            drained?.TrySetResult();
        }
    }
}
