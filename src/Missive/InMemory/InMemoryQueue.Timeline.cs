using System;
using System.Threading.Tasks;

namespace Missive.InMemory;

/// <content>The indexes: every message by place and receipt, the visible ones in order, and the timeline of when invisible ones show again.</content>
public sealed partial class InMemoryQueue
{
    /// <summary>Holds a message (under the lock): in the queue's order, and in its FIFO group.</summary>
    private void Add(StoredMessage message)
    {
        message.Gone = false;
        message.Visible = false;
        _all[message.Place] = message;
        if (message.ReceiptHandle is { } receipt)
        {
            _byReceipt[receipt] = message;
        }

        if (Options.Fifo)
        {
            if (!_groups.TryGetValue(message.GroupId!, out Group? group))
            {
                _groups[message.GroupId!] = group = new Group(message.GroupId!);
            }

            group.Members.Add(message);
            group.Locked += Locks(message) ? 1 : 0; // a message put back holds its receipt: counted as Show will uncount it
            Refresh(group);
        }
    }

    /// <summary>Stops holding a message (under the lock): deleted, or moved to the dead-letter queue.</summary>
    private void Remove(StoredMessage message)
    {
        Group? group = Options.Fifo ? _groups[message.GroupId!] : null;
        if (group is not null && Locks(message))
        {
            group.Locked--;
        }

        message.Gone = true;
        _all.Remove(message.Place);
        if (message.ReceiptHandle is { } receipt)
        {
            _byReceipt.Remove(receipt);
        }

        if (message.Visible && group is null)
        {
            _ready.Remove(message);
        }

        message.Visible = false;
        message.Version++; // what the timeline holds of it is stale
        if (group is not null)
        {
            group.Members.Remove(message);
            Refresh(group);
        }
    }

    /// <summary>Makes a message visible now (under the lock).</summary>
    private void Show(StoredMessage message)
    {
        if (message.Visible)
        {
            return;
        }

        Group? group = Options.Fifo ? _groups[message.GroupId!] : null;
        if (group is not null && Locks(message))
        {
            group.Locked--;
        }

        message.Visible = true;
        message.VisibleAt = _broker.TimeProvider.GetUtcNow();
        message.Version++;
        if (group is null)
        {
            _ready.Add(message);
        }
        else
        {
            Refresh(group);
        }
    }

    /// <summary>Makes a message invisible until <paramref name="visibleAt"/> (under the lock).</summary>
    private void Hide(StoredMessage message, DateTimeOffset visibleAt)
    {
        Group? group = Options.Fifo ? _groups[message.GroupId!] : null;
        bool locked = group is not null && Locks(message);
        if (message.Visible && group is null)
        {
            _ready.Remove(message);
        }

        message.Visible = false;
        message.VisibleAt = visibleAt;
        message.Version++;
        _timeline.Enqueue((message, message.Version), visibleAt);
        if (group is not null)
        {
            group.Locked += (Locks(message) ? 1 : 0) - (locked ? 1 : 0);
            Refresh(group);
        }
    }

    /// <summary>Makes visible what the timeline says is due (under the lock).</summary>
    private void ShowWhatIsDue(DateTimeOffset now)
    {
        while (_timeline.TryPeek(out (StoredMessage Message, int Version) entry, out DateTimeOffset at) && at <= now)
        {
            _timeline.Dequeue();
            if (entry.Version == entry.Message.Version && !entry.Message.Gone)
            {
                Show(entry.Message);
            }
        }
    }

    /// <summary>How long until the next invisible message becomes visible (stale entries dropped), or <see cref="TimeSpan.MaxValue"/>.</summary>
    private TimeSpan NextVisible(DateTimeOffset now)
    {
        while (_timeline.TryPeek(out (StoredMessage Message, int Version) entry, out DateTimeOffset at))
        {
            if (entry.Version == entry.Message.Version && !entry.Message.Gone)
            {
                return at - now;
            }

            _timeline.Dequeue();
        }

        return TimeSpan.MaxValue;
    }

    /// <summary>Whether a message locks its FIFO group: received, and invisible.</summary>
    private static bool Locks(StoredMessage message) => message.ReceiptHandle is not null && !message.Visible;

    private void Signal()
    {
        TaskCompletionSource previous = _changed;
        _changed = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        previous.TrySetResult();
    }
}
