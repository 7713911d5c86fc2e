using System;
using System.Collections.Generic;
using System.Threading;

namespace Missive.Bus;

/// <content>
/// Making releases and retry delays again: while an extension of the same receipt may still take effect, when its call
/// ends, at every tick of its late-landing window, and when that window closes.
/// </content>
internal sealed partial class VisibilityHeartbeat
{
    /// <summary>
    /// The changes to make again at a tick: those of receipts whose extension ended without an answer and may land any
    /// time in its window, so that one landing hides a released message for no more than a tick. Under the lock.
    /// </summary>
    private List<Change>? RedoWhileWindowsOpen()
    {
        List<Change>? redo = null;
        foreach ((string receipt, Change change) in _redo)
        {
            if (_mayLand.TryGetValue(receipt, out Landing? landing) && landing.Until is not null)
            {
                (redo ??= []).Add(change);
            }
        }

        return redo;
    }

    /// <summary>
    /// An extension call has ended (in time or, abandoned, later): the changes made meanwhile are made again. With an
    /// answer, it and every earlier extension of its receipts can no longer take effect; without one, it may still for
    /// the late-landing window.
    /// </summary>
    private void CallEnded(Lane lane, IReadOnlyList<Change> changes, bool answered)
    {
        if (!lane.Extension)
        {
            return;
        }

        List<Change>? redo = null;
        bool arm = false;
        lock (_gate)
        {
            DateTimeOffset now = _timeProvider.GetUtcNow();
            foreach (Change change in changes)
            {
                string receipt = change.Message.ReceiptHandle;
                if (!_mayLand.TryGetValue(receipt, out Landing? landing))
                {
                    continue;
                }

                if (answered)
                {
                    landing.Answered(change.Number);
                }
                else
                {
                    landing.EndedWithoutAnswer(change.Number, now + Batcher<Lane, Change>.LateLandingWindow);
                    arm = true;
                }

                if (_redo.TryGetValue(receipt, out Change? again))
                {
                    (redo ??= []).Add(again);
                }

                if (landing.Settled)
                {
                    _mayLand.Remove(receipt);
                    _redo.Remove(receipt);
                }
            }

            if (arm)
            {
                ArmLandingTimer(now);
            }
        }

        if (redo is not null)
        {
            RedoChanges(redo);
        }
    }

    /// <summary>The late-landing windows that have closed: the changes made meanwhile are made once more, and forgotten.</summary>
    private void LandingWindowsClosed()
    {
        List<Change>? redo = null;
        lock (_gate)
        {
            DateTimeOffset now = _timeProvider.GetUtcNow();
            List<string>? settled = null;
            foreach ((string receipt, Landing landing) in _mayLand)
            {
                if (landing.Until is not { } until || until > now)
                {
                    continue;
                }

                landing.Until = null;
                if (_redo.TryGetValue(receipt, out Change? again))
                {
                    (redo ??= []).Add(again);
                }

                if (landing.Settled)
                {
                    (settled ??= []).Add(receipt);
                }
            }

            foreach (string receipt in settled ?? [])
            {
                _mayLand.Remove(receipt);
                _redo.Remove(receipt);
            }

            ArmLandingTimer(now);
        }

        if (redo is not null)
        {
            RedoChanges(redo);
        }
    }

    /// <summary>Arms the landing timer for the earliest window still open. Under the lock.</summary>
    private void ArmLandingTimer(DateTimeOffset now)
    {
        DateTimeOffset? earliest = null;
        foreach (Landing landing in _mayLand.Values)
        {
            if (landing.Until is { } until && (earliest is null || until < earliest))
            {
                earliest = until;
            }
        }

        if (earliest is { } due)
        {
            TimeSpan wait = due - now;
            _landingTimer.Change(wait > TimeSpan.Zero ? wait : TimeSpan.Zero, Timeout.InfiniteTimeSpan);
        }
    }

    /// <summary>Makes again the releases and retry delays an extension may have undone, with what is left of each.</summary>
    private void RedoChanges(List<Change> redo)
    {
        DateTimeOffset now = _timeProvider.GetUtcNow();
        var byVisibility = new Dictionary<long, List<Change>>();
        foreach (Change change in redo)
        {
            TimeSpan left = change.VisibleAt - now;
            long seconds = left <= TimeSpan.Zero ? 0 : (long)Math.Ceiling(left.TotalSeconds);
            if (!byVisibility.TryGetValue(seconds, out List<Change>? changes))
            {
                byVisibility[seconds] = changes = [];
            }

            changes.Add(new Change(change.Message, change.VisibleAt));
        }

        foreach ((long seconds, List<Change> changes) in byVisibility)
        {
            _batcher.AddRange(new Lane(Extension: false, TimeSpan.FromSeconds(seconds), _visibilityTimeout), changes, flush: true);
        }
    }

    /// <summary>
    /// The extensions of one receipt that may still take effect: those under way, and until when one that ended without
    /// an answer may still land. Under the heartbeat's lock.
    /// </summary>
    private sealed class Landing
    {
        public List<long> UnderWay { get; } = [];

        /// <summary>Gets or sets until when an extension that ended without an answer may still land, or <c>null</c>.</summary>
        public DateTimeOffset? Until { get; set; }

        /// <summary>Gets whether no extension of the receipt can take effect any more.</summary>
        public bool Settled => UnderWay.Count == 0 && Until is null;

        /// <summary>
        /// Extension <paramref name="number"/> answered: it has landed or never will. An earlier one that ended without an
        /// answer may still land after it (a request in flight is not ordered behind a later one's answer): its window holds.
        /// </summary>
        public void Answered(long number) => UnderWay.Remove(number);

        /// <summary>Extension <paramref name="number"/> ended without an answer: it may land until <paramref name="until"/>.</summary>
        public void EndedWithoutAnswer(long number, DateTimeOffset until)
        {
            UnderWay.Remove(number);
            Until = Until is { } earlier && earlier > until ? earlier : until;
        }
    }
}
