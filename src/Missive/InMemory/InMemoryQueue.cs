using System;
using System.Collections.Generic;
using System.Globalization;
using System.Security.Cryptography;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using Missive.Transport;

namespace Missive.InMemory;

/// <summary>
/// One in-memory queue with SQS semantics: at-least-once delivery, visibility timeout, receive counts, a dead-letter
/// queue after the max receive count, and FIFO ordering per message group with deduplication. Thread-safe.
/// </summary>
/// <remarks>
/// <list type="bullet">
/// <item>Receive, delete and visibility changes cost a logarithm of the queue's size, not a scan: visible messages are
/// kept in order, invisible ones on a timeline of when they become visible, receipts in a dictionary, and a FIFO
/// queue's groups that can be received from in the order of their oldest message.</item>
/// <item>A message moved to the dead-letter queue leaves this queue under this queue's lock and enters the other under
/// its own: no lock is held across two queues. A move the dead-letter queue refuses puts the message back, to be
/// delivered at once rather than held back unseen.</item>
/// </list>
/// </remarks>
[System.Diagnostics.CodeAnalysis.SuppressMessage("Naming", "CA1711:Identifiers should not have incorrect suffix", Justification = "It is a queue: an SQS queue held in memory.")]
public sealed class InMemoryQueue
{
    private static readonly TimeSpan DeduplicationWindow = TimeSpan.FromMinutes(5);

    private readonly object _gate = new();
    private readonly Dictionary<long, StoredMessage> _all = []; // every message held, by its place in the queue
    private readonly Dictionary<string, StoredMessage> _byReceipt = new(StringComparer.Ordinal); // by its current receipt
    private readonly PriorityQueue<(StoredMessage Message, int Version), DateTimeOffset> _timeline = new(); // when invisible ones become visible
    private readonly SortedSet<StoredMessage> _ready = new(BySequence.Instance); // a standard queue's visible messages, in order
    private readonly Dictionary<string, Group> _groups = new(StringComparer.Ordinal); // a FIFO queue's groups
    private readonly SortedSet<Group> _available = new(ByOldest.Instance); // FIFO groups that can be received from now
    private readonly Dictionary<string, DateTimeOffset> _deduplication = new(StringComparer.Ordinal);
    private readonly Queue<(string Id, DateTimeOffset At)> _deduplicationOrder = new();
    private readonly InMemoryBroker _broker;
    private TaskCompletionSource _changed = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private long _sequence; // the FIFO sequence number SQS gives
    private long _place; // every message's place in the queue

    internal InMemoryQueue(InMemoryBroker broker, string name, InMemoryQueueOptions options)
    {
        _broker = broker;
        Name = name;
        Options = options;
        Arn = $"arn:aws:sqs:{broker.Region}:{broker.AccountId}:{name}";
    }

    /// <summary>Gets the queue name.</summary>
    public string Name { get; }

    /// <summary>Gets the queue ARN.</summary>
    public string Arn { get; }

    /// <summary>Gets the queue settings.</summary>
    public InMemoryQueueOptions Options { get; }

    /// <summary>Gets how many messages the queue holds, visible or in flight.</summary>
    public int Count
    {
        get
        {
            lock (_gate)
            {
                return _all.Count;
            }
        }
    }

    /// <summary>Gets a snapshot of the bodies the queue holds, in order (visible or not), for inspection.</summary>
    /// <returns>The bodies.</returns>
    public IReadOnlyList<string> PeekBodies()
    {
        lock (_gate)
        {
            var messages = new List<StoredMessage>(_all.Values);
            messages.Sort(BySequence.Instance);
            var bodies = new List<string>(messages.Count);
            foreach (StoredMessage message in messages)
            {
                bodies.Add(message.Body);
            }

            return bodies;
        }
    }

    internal string Enqueue(string body, IReadOnlyDictionary<string, MessageAttributeValue> attributes, string? groupId, string? deduplicationId, TimeSpan delay, string? sourceArn = null)
    {
        SqsRules.Validate(body, attributes, Options.MaxMessageSize, "queue");
        DateTimeOffset now = _broker.TimeProvider.GetUtcNow();
        if (Options.Fifo)
        {
            if (string.IsNullOrEmpty(groupId) || groupId.Length > 128)
            {
                throw new MessageTransportException($"The FIFO queue '{Name}' needs a MessageGroupId of 1 to 128 characters.") { ErrorCode = "MissingParameter" };
            }

            if (deduplicationId is null)
            {
                if (!Options.ContentBasedDeduplication)
                {
                    throw new MessageTransportException($"The FIFO queue '{Name}' needs a MessageDeduplicationId (content-based deduplication is off): give one in PublishOptions or AddFifoIds, or create the queue with content-based deduplication.") { ErrorCode = "InvalidParameterValue" };
                }

                deduplicationId = Convert.ToHexString(SHA256.HashData(Encoding.UTF8.GetBytes(body)));
            }
            else if (deduplicationId.Length > 128)
            {
                throw new MessageTransportException("A MessageDeduplicationId is at most 128 characters.");
            }
        }

        string id = Guid.NewGuid().ToString();
        lock (_gate)
        {
            if (Options.Fifo)
            {
                PruneDeduplication(now);
                if (_deduplication.ContainsKey(deduplicationId!))
                {
                    return id; // accepted, but a duplicate within five minutes is not delivered again
                }

                _deduplication[deduplicationId!] = now;
                _deduplicationOrder.Enqueue((deduplicationId!, now));
            }

            var system = new Dictionary<string, string>(StringComparer.Ordinal)
            {
                [SqsSystemAttributes.SentTimestamp] = now.ToUnixTimeMilliseconds().ToString(CultureInfo.InvariantCulture),
                [SqsSystemAttributes.SenderId] = _broker.AccountId,
            };
            if (Options.Fifo)
            {
                system[SqsSystemAttributes.MessageGroupId] = groupId!;
                system[SqsSystemAttributes.MessageDeduplicationId] = deduplicationId!;
                system[SqsSystemAttributes.SequenceNumber] = (++_sequence).ToString("D20", CultureInfo.InvariantCulture);
            }

            if (sourceArn is not null)
            {
                system[SqsSystemAttributes.DeadLetterQueueSourceArn] = sourceArn;
            }

            var message = new StoredMessage(id, body, attributes, system, groupId, ++_place);
            Add(message);
            if (delay > TimeSpan.Zero)
            {
                Hide(message, now + delay);
            }
            else
            {
                Show(message);
            }

            Signal();
        }

        return id;
    }

    internal async Task<IReadOnlyList<SqsMessage>> ReceiveAsync(int maxMessages, TimeSpan waitTime, TimeSpan? visibilityTimeout, CancellationToken cancellationToken)
    {
        if (maxMessages is < 1 or > 10)
        {
            throw new MessageTransportException("MaxNumberOfMessages must be between 1 and 10.");
        }

        DateTimeOffset deadline = _broker.TimeProvider.GetUtcNow() + waitTime;
        while (true)
        {
            // As a real receive: a cancelled call takes nothing (it would count a receive towards the dead-letter limit).
            cancellationToken.ThrowIfCancellationRequested();
            Task changed;
            TimeSpan untilVisible;
            List<SqsMessage> received;
            List<StoredMessage>? deadLetters = null;
            lock (_gate)
            {
                received = TakeVisible(maxMessages, visibilityTimeout ?? Options.VisibilityTimeout, ref deadLetters, out untilVisible);
                changed = _changed.Task;
            }

            if (deadLetters is not null)
            {
                MoveToDeadLetterQueue(deadLetters); // outside this queue's lock: the other queue takes its own
                if (received.Count == 0)
                {
                    continue; // a move refused puts its message back, to be delivered now
                }
            }

            if (received.Count > 0)
            {
                return received;
            }

            TimeSpan remaining = deadline - _broker.TimeProvider.GetUtcNow();
            if (remaining <= TimeSpan.Zero)
            {
                return [];
            }

            TimeSpan wait = untilVisible < remaining ? untilVisible : remaining;
            using (var woken = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken))
            {
                await Task.WhenAny(changed, Task.Delay(wait < TimeSpan.FromMilliseconds(1) ? TimeSpan.FromMilliseconds(1) : wait, _broker.TimeProvider, woken.Token)).ConfigureAwait(false);
                woken.Cancel(); // a wake-up by a change leaves no timer behind
            }

            cancellationToken.ThrowIfCancellationRequested();
        }
    }

    internal bool Delete(string receiptHandle)
    {
        lock (_gate)
        {
            if (!_byReceipt.TryGetValue(receiptHandle, out StoredMessage? message))
            {
                return false;
            }

            Remove(message);
            Signal(); // a FIFO group may be free again
            return true;
        }
    }

    internal bool ChangeVisibility(string receiptHandle, TimeSpan timeout)
    {
        lock (_gate)
        {
            if (!_byReceipt.TryGetValue(receiptHandle, out StoredMessage? message))
            {
                return false;
            }

            if (timeout > TimeSpan.Zero)
            {
                Hide(message, _broker.TimeProvider.GetUtcNow() + timeout);
            }
            else
            {
                Show(message);
            }

            Signal();
            return true;
        }
    }

    /// <summary>
    /// Takes up to <paramref name="maxMessages"/> visible messages; those past the max receive count are taken out into
    /// <paramref name="deadLetters"/>, to be moved once the lock is left. A standard queue gives them in the order it
    /// holds them. A FIFO queue does what SQS documents for a receive of more than one message: a group with a message
    /// in flight is locked; from the first available group (by its oldest message) it returns as many of the group's
    /// messages, in order, as are available and fit, then goes on to the next group. A message not yet visible (a
    /// delay) holds back the rest of its group. Under the lock.
    /// </summary>
    private List<SqsMessage> TakeVisible(int maxMessages, TimeSpan visibilityTimeout, ref List<StoredMessage>? deadLetters, out TimeSpan untilVisible)
    {
        DateTimeOffset now = _broker.TimeProvider.GetUtcNow();
        ShowWhatIsDue(now);
        var received = new List<SqsMessage>();
        if (!Options.Fifo)
        {
            while (received.Count < maxMessages && _ready.Count > 0)
            {
                TakeOne(_ready.Min!, now, visibilityTimeout, received, ref deadLetters);
            }
        }
        else
        {
            Group? group = _available.Count > 0 ? _available.Min : null;
            var candidates = new List<StoredMessage>(maxMessages);
            while (group is not null && received.Count < maxMessages)
            {
                // The group's visible messages from its oldest, in order, as many as may be delivered.
                candidates.Clear();
                int deliverable = 0;
                foreach (StoredMessage message in group.Members)
                {
                    if (!message.Visible || received.Count + deliverable == maxMessages)
                    {
                        break;
                    }

                    candidates.Add(message);
                    deliverable += PastMaxReceives(message) ? 0 : 1;
                }

                long oldest = group.Oldest;
                foreach (StoredMessage message in candidates)
                {
                    TakeOne(message, now, visibilityTimeout, received, ref deadLetters);
                }

                group = NextAvailable(oldest);
            }
        }

        untilVisible = NextVisible(now);
        return received;
    }

    /// <summary>Delivers a visible message into <paramref name="received"/>, or takes it out for the dead-letter queue when past the max receive count.</summary>
    private void TakeOne(StoredMessage message, DateTimeOffset now, TimeSpan visibilityTimeout, List<SqsMessage> received, ref List<StoredMessage>? deadLetters)
    {
        if (PastMaxReceives(message))
        {
            Remove(message); // all or nothing: put back if the dead-letter queue refuses it
            (deadLetters ??= []).Add(message);
            return;
        }

        message.DeadLetterRefused = false;
        message.ReceiveCount++;
        message.FirstReceivedAt ??= now;
        if (message.ReceiptHandle is { } previous)
        {
            _byReceipt.Remove(previous);
        }

        message.ReceiptHandle = Convert.ToBase64String(Guid.NewGuid().ToByteArray()) + ":" + message.Id;
        _byReceipt[message.ReceiptHandle] = message;
        Hide(message, now + visibilityTimeout);
        var system = new Dictionary<string, string>(message.SystemAttributes, StringComparer.Ordinal)
        {
            [SqsSystemAttributes.ApproximateReceiveCount] = message.ReceiveCount.ToString(CultureInfo.InvariantCulture),
            [SqsSystemAttributes.ApproximateFirstReceiveTimestamp] = message.FirstReceivedAt.Value.ToUnixTimeMilliseconds().ToString(CultureInfo.InvariantCulture),
        };
        received.Add(new SqsMessage
        {
            Body = message.Body,
            MessageId = message.Id,
            ReceiptHandle = message.ReceiptHandle,
            SystemAttributes = system,
            MessageAttributes = message.Attributes,
        });
    }

    private bool PastMaxReceives(StoredMessage message)
        => Options.DeadLetterQueue is not null && message.ReceiveCount + 1 > Options.MaxReceiveCount && !message.DeadLetterRefused;

    /// <summary>
    /// Moves messages taken out of this queue into its dead-letter queue; one the dead-letter queue refuses comes back
    /// here, visible, and is delivered at its next receive instead of being moved again then.
    /// </summary>
    private void MoveToDeadLetterQueue(List<StoredMessage> messages)
    {
        InMemoryQueue deadLetters = _broker.GetQueue(Options.DeadLetterQueue!);
        foreach (StoredMessage message in messages)
        {
            try
            {
                deadLetters.Enqueue(message.Body, message.Attributes, message.GroupId, Options.Fifo ? message.Id : null, TimeSpan.Zero, Arn);
            }
            catch (MessageTransportException)
            {
                lock (_gate)
                {
                    message.DeadLetterRefused = true;
                    Add(message);
                    Show(message);
                    Signal();
                }
            }
        }
    }

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

    private void Signal()
    {
        TaskCompletionSource previous = _changed;
        _changed = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        previous.TrySetResult();
    }

    private sealed class StoredMessage(string id, string body, IReadOnlyDictionary<string, MessageAttributeValue> attributes, Dictionary<string, string> systemAttributes, string? groupId, long place)
    {
        public string Id { get; } = id;

        public string Body { get; } = body;

        public IReadOnlyDictionary<string, MessageAttributeValue> Attributes { get; } = attributes;

        public Dictionary<string, string> SystemAttributes { get; } = systemAttributes;

        public string? GroupId { get; } = groupId;

        /// <summary>Gets the message's place in the queue: the order it is held and delivered in.</summary>
        public long Place { get; } = place;

        public DateTimeOffset VisibleAt { get; set; }

        public DateTimeOffset? FirstReceivedAt { get; set; }

        public int ReceiveCount { get; set; }

        public string? ReceiptHandle { get; set; }

        /// <summary>Gets or sets whether the message is visible (in the ready set, or receivable in its group).</summary>
        public bool Visible { get; set; }

        /// <summary>Gets or sets whether the message left the queue (deleted, or moved).</summary>
        public bool Gone { get; set; }

        /// <summary>Gets or sets a count of changes: a timeline entry made before the last change is stale.</summary>
        public int Version { get; set; }

        /// <summary>Gets or sets whether the dead-letter queue refused the message: it is delivered at its next receive.</summary>
        public bool DeadLetterRefused { get; set; }
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

    private sealed class BySequence : IComparer<StoredMessage>
    {
        public static readonly BySequence Instance = new();

        public int Compare(StoredMessage? x, StoredMessage? y) => x!.Place.CompareTo(y!.Place);
    }

    private sealed class ByOldest : IComparer<Group>
    {
        public static readonly ByOldest Instance = new();

        public int Compare(Group? x, Group? y) => x!.Oldest.CompareTo(y!.Oldest);
    }
}
