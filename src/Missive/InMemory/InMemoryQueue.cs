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
public sealed partial class InMemoryQueue
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
            // The wait's own source, cancelled by the caller's token (a registration unregistered without waiting) and,
            // when a change wakes the receive first, here: no timer is left behind.
            var woken = new CancellationTokenSource();
            CancellationTokenRegistration byCaller = cancellationToken.Register(static state => ((CancellationTokenSource)state!).Cancel(), woken);
            try
            {
                await Task.WhenAny(changed, Task.Delay(wait < TimeSpan.FromMilliseconds(1) ? TimeSpan.FromMilliseconds(1) : wait, _broker.TimeProvider, woken.Token)).ConfigureAwait(false);
            }
            finally
            {
                byCaller.Unregister();
                woken.Cancel();
                woken.Dispose();
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

}
