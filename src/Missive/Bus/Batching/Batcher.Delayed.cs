using System;
using System.Collections.Generic;

namespace Missive.Bus;

/// <content>Entries that join their lane after a delay (a retry's backoff).</content>
internal sealed partial class Batcher<TKey, TEntry>
{
    /// <summary>Gets how many entries wait for their delay (<see cref="AddAfter"/>) in every lane (tests).</summary>
    internal int DelayedCount
    {
        get
        {
            lock (_gate)
            {
                int count = 0;
                foreach (Lane lane in _lanes.Values)
                {
                    count += lane.Delayed?.Count ?? 0;
                }

                return count;
            }
        }
    }

    /// <summary>
    /// Adds an entry to its lane once <paramref name="delay"/> has passed (a retry's backoff): until then it waits apart,
    /// counted as waiting (a drain waits for it, and sends it at once).
    /// </summary>
    public void AddAfter(TKey key, TEntry entry, TimeSpan delay)
    {
        List<(Lane, List<TEntry>)>? starts = null;
        lock (_gate)
        {
            Lane lane = LaneOf(key);
            DateTimeOffset now = _clock.GetUtcNow();
            if (_completed || delay <= TimeSpan.Zero)
            {
                Put(lane, entry, now, ref starts);
            }
            else
            {
                (lane.Delayed ??= []).Add((entry, now + delay));
                _waiting++;
            }

            Decide(lane, ref starts, now);
        }

        Start(starts);
    }

    /// <summary>
    /// Puts the delayed entries due by <paramref name="now"/> (all of them once the batcher is complete) into the lane's
    /// open batch, in the order they were delayed, and closes it. Under the lock.
    /// </summary>
    private void PutDelayed(Lane lane, DateTimeOffset now, ref List<(Lane, List<TEntry>)>? starts)
    {
        if (lane.Delayed is not { Count: > 0 } delayed)
        {
            return;
        }

        // A loop, not RemoveAll with a lambda: the lambda's captures would be allocated on every call, with nothing delayed too.
        List<TEntry>? due = null;
        int kept = 0;
        for (int i = 0; i < delayed.Count; i++)
        {
            if (_completed || delayed[i].Due <= now)
            {
                (due ??= []).Add(delayed[i].Entry);
            }
            else
            {
                delayed[kept++] = delayed[i];
            }
        }

        if (due is null)
        {
            return;
        }

        delayed.RemoveRange(kept, delayed.Count - kept);

        _waiting -= due.Count; // counted again as they are put in
        foreach (TEntry entry in due)
        {
            Put(lane, entry, now, ref starts);
        }

        if (lane.Open is not null)
        {
            Close(lane); // they have waited: they go now, with whatever was gathering
        }
    }
}
