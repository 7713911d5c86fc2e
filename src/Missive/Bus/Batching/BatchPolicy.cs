using System;
using System.Threading;

namespace Missive.Bus;

/// <summary>
/// When the calls of one lane of a <see cref="Batcher{TKey, TEntry}"/> go, how many at once, and how long each may take.
/// </summary>
/// <remarks>
/// An open batch closes (and then goes, when the lane's calls allow) when the first of these holds: it has
/// <see cref="MaxEntries"/>; its first entry has waited <see cref="MaxWait"/>; no entry has come for
/// <see cref="IdleWait"/> once the lane was told that everything has started (<see cref="Batcher{TKey, TEntry}.StartIdleFlush"/>);
/// <see cref="SendWhenIdle"/> and the lane has no call under way or waiting; the lane is flushed; or the batcher is
/// complete.
/// </remarks>
internal sealed record BatchPolicy
{
    /// <summary>Gets the most entries a call takes (the services' batch limit of 10 by default).</summary>
    public int MaxEntries { get; init; } = 10;

    /// <summary>Gets how long an open batch's first entry waits for others before the batch goes, or <c>null</c> for no limit.</summary>
    public TimeSpan? MaxWait { get; init; }

    /// <summary>Gets how long an open batch waits with no entry coming before it goes, once the lane's idle flush has started; <c>null</c> for never.</summary>
    public TimeSpan? IdleWait { get; init; }

    /// <summary>Gets whether an entry that finds its lane with no call under way or waiting goes at once (no wait at low load).</summary>
    public bool SendWhenIdle { get; init; }

    /// <summary>
    /// Gets whether a call starts on the thread pool rather than on the thread that closes its batch: the sends that come
    /// meanwhile then gather behind it even when the transport answers at once (a group commit's first call).
    /// </summary>
    public bool StartOffThread { get; init; }

    /// <summary>
    /// Gets whether adding an entry leaves the lane's timer alone, for a caller that adds entries in bursts and then calls
    /// <see cref="Batcher{TKey, TEntry}.Settle"/>: an open batch's <see cref="MaxWait"/> still counts from its first entry,
    /// but its timer is armed once, after the burst, and not at all when the burst fills the batch (each timer that fires
    /// wakes a thread-pool thread).
    /// </summary>
    public bool ArmAfterBurst { get; init; }

    /// <summary>Gets how many calls of the lane may be under way at once; 1 makes them go one after another, in order.</summary>
    public int MaxConcurrentCalls { get; init; } = int.MaxValue;

    /// <summary>Gets how long a call may take before its entries are given up as <see cref="Transport.BatchEntryOutcome.Unknown"/>, whatever the transport does with its token.</summary>
    public TimeSpan CallDeadline { get; init; } = Timeout.InfiniteTimeSpan;

    /// <summary>
    /// Gets an entry's ordering group (a FIFO queue's message group), or <c>null</c> for a lane whose entries keep no
    /// order. With it, an entry whose group had an entry fail in an earlier call of the lane is not sent (it fails as
    /// <c>FifoGroupFailedEarlier</c>): a later message must not go after an earlier one that did not. How long a failure
    /// holds is <see cref="GroupFailuresHoldForLane"/>'s. It needs <see cref="MaxConcurrentCalls"/> of 1.
    /// </summary>
    public Func<object, object?>? OrderingGroup { get; init; }

    /// <summary>
    /// Gets whether a group's failure holds for the lane's whole life (a batch publish: every later message of the batch
    /// comes after the failed one, whenever it reaches the lane). When <c>false</c> (concurrent publishes coalesced on a
    /// lane that lives on), it holds for the entries of the group waiting in the lane when the failure was learned, and,
    /// for a call abandoned at its deadline, for every entry of its groups while that call may still land: until its task
    /// ends with an answer, or <see cref="Batcher{TKey, TEntry}.LateLandingWindow"/> after it ends without one.
    /// </summary>
    public bool GroupFailuresHoldForLane { get; init; } = true;
}
