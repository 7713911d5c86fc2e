using System;
using System.Collections.Generic;

namespace Missive.InMemory;

/// <content>A FIFO queue's groups (which can be received from, in the order of their oldest message) and the deduplication window.</content>
public sealed partial class InMemoryQueue
{
    /// <summary>Lists a group as available, or not, after a change (under the lock): not locked, with its oldest message visible.</summary>
    private void Refresh(Group group)
    {
        if (group.Listed)
        {
            _available.Remove(group);
            group.Listed = false;
        }

        if (group.Members.Count == 0)
        {
            _groups.Remove(group.Name);
            return;
        }

        StoredMessage oldest = group.Members.Min!;
        group.Oldest = oldest.Place;
        if (group.Locked == 0 && oldest.Visible)
        {
            _available.Add(group);
            group.Listed = true;
        }
    }

    /// <summary>The available group whose oldest message comes after <paramref name="oldest"/>, or <c>null</c>.</summary>
    private Group? NextAvailable(long oldest)
    {
        if (_available.Count == 0 || _available.Max!.Oldest <= oldest)
        {
            return null;
        }

        SortedSet<Group> later = _available.GetViewBetween(new Group(string.Empty) { Oldest = oldest + 1 }, _available.Max!);
        return later.Count > 0 ? later.Min : null;
    }

    private void PruneDeduplication(DateTimeOffset now)
    {
        while (_deduplicationOrder.TryPeek(out (string Id, DateTimeOffset At) oldest) && now - oldest.At > DeduplicationWindow)
        {
            _deduplicationOrder.Dequeue();
            if (_deduplication.TryGetValue(oldest.Id, out DateTimeOffset at) && at == oldest.At)
            {
                _deduplication.Remove(oldest.Id);
            }
        }
    }

    /// <summary>A FIFO group: its messages in order, and how many of them are in flight (which locks it).</summary>
    private sealed class Group(string name)
    {
        public string Name { get; } = name;

        public SortedSet<StoredMessage> Members { get; } = new(BySequence.Instance);

        public int Locked { get; set; }

        /// <summary>Gets or sets the place of the group's oldest message (its key among the available groups).</summary>
        public long Oldest { get; set; }

        public bool Listed { get; set; }
    }

    private sealed class ByOldest : IComparer<Group>
    {
        public static readonly ByOldest Instance = new();

        public int Compare(Group? x, Group? y) => x!.Oldest.CompareTo(y!.Oldest);
    }
}
