using System;
using System.Collections.Generic;
using System.Threading;
using Missive.Transport;

namespace Missive.Bus;

/// <content>A lane's state.</content>
internal sealed partial class Batcher<TKey, TEntry>
{
    /// <summary>A lane: its open batch, its closed batches waiting to go, its calls under way, and its timer.</summary>
    private sealed class Lane(TKey key, BatchPolicy policy)
    {
        public TKey Key { get; } = key;

        public BatchPolicy Policy { get; } = policy;

        public Batcher<TKey, TEntry>? Batcher { get; set; }

        public List<TEntry>? Open { get; set; }

        public DateTimeOffset OpenedAt { get; set; }

        public DateTimeOffset LastAdded { get; set; }

        public Queue<List<TEntry>> Closed { get; } = new();

        public int Running { get; set; }

        public bool IdleFlush { get; set; }

        public ITimer? Timer { get; set; }

        public DateTimeOffset? ArmedFor { get; set; }

        /// <summary>Gets or sets the ordering groups whose failure holds for every entry of theirs, and until when.</summary>
        public Dictionary<object, FailedGroup>? FailedGroups { get; set; }

        /// <summary>Gets or sets the entries refused because an earlier entry of their group failed while they waited, with that failure.</summary>
        public Dictionary<TEntry, BatchEntryResult>? RefusedEntries { get; set; }

        /// <summary>Gets or sets the entries that join the lane once their delay has passed (<see cref="Batcher{TKey, TEntry}.AddAfter"/>), and when.</summary>
        public List<(TEntry Entry, DateTimeOffset Due)>? Delayed { get; set; }
    }
}
