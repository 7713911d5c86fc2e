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
/// One in-memory queue with SQS semantics: at-least-once delivery, visibility timeout, receive
/// counts, a dead-letter queue after the max receive count, and FIFO ordering per message group with
/// deduplication. Thread-safe.
/// </summary>
[System.Diagnostics.CodeAnalysis.SuppressMessage("Naming", "CA1711:Identifiers should not have incorrect suffix", Justification = "It is a queue: an SQS queue held in memory.")]
public sealed class InMemoryQueue
{
    private static readonly TimeSpan DeduplicationWindow = TimeSpan.FromMinutes(5);

    private readonly object _gate = new();
    private readonly List<StoredMessage> _messages = [];
    private readonly Dictionary<string, DateTimeOffset> _deduplication = new(StringComparer.Ordinal);
    private readonly InMemoryBroker _broker;
    private TaskCompletionSource _changed = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private long _sequence;

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
                return _messages.Count;
            }
        }
    }

    /// <summary>Gets a snapshot of the bodies the queue holds, in order (visible or not), for inspection.</summary>
    /// <returns>The bodies.</returns>
    public IReadOnlyList<string> PeekBodies()
    {
        lock (_gate)
        {
            var bodies = new List<string>(_messages.Count);
            foreach (StoredMessage message in _messages)
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
                throw new MessageTransportException($"The FIFO queue '{Name}' needs a MessageGroupId of 1 to 128 characters.");
            }

            if (deduplicationId is null)
            {
                if (!Options.ContentBasedDeduplication)
                {
                    throw new MessageTransportException($"The FIFO queue '{Name}' needs a MessageDeduplicationId (content-based deduplication is off).");
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

            _messages.Add(new StoredMessage(id, body, attributes, system, groupId) { VisibleAt = now + delay });
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
            lock (_gate)
            {
                List<SqsMessage> received = TakeVisible(maxMessages, visibilityTimeout ?? Options.VisibilityTimeout, out untilVisible);
                if (received.Count > 0)
                {
                    return received;
                }

                changed = _changed.Task;
            }

            TimeSpan remaining = deadline - _broker.TimeProvider.GetUtcNow();
            if (remaining <= TimeSpan.Zero)
            {
                return [];
            }

            TimeSpan wait = untilVisible < remaining ? untilVisible : remaining;
            await Task.WhenAny(changed, Task.Delay(wait < TimeSpan.FromMilliseconds(1) ? TimeSpan.FromMilliseconds(1) : wait, _broker.TimeProvider, cancellationToken)).ConfigureAwait(false);
            cancellationToken.ThrowIfCancellationRequested();
        }
    }

    internal bool Delete(string receiptHandle)
    {
        lock (_gate)
        {
            int index = _messages.FindIndex(m => m.ReceiptHandle == receiptHandle);
            if (index < 0)
            {
                return false;
            }

            _messages.RemoveAt(index);
            Signal(); // a FIFO group may be free again
            return true;
        }
    }

    internal bool ChangeVisibility(string receiptHandle, TimeSpan timeout)
    {
        lock (_gate)
        {
            StoredMessage? message = _messages.Find(m => m.ReceiptHandle == receiptHandle);
            if (message is null)
            {
                return false;
            }

            message.VisibleAt = _broker.TimeProvider.GetUtcNow() + timeout;
            Signal();
            return true;
        }
    }

    /// <summary>
    /// Takes up to <paramref name="maxMessages"/> visible messages. A standard queue gives them in the order it holds
    /// them. A FIFO queue does what SQS documents for a receive of more than one message: a group with a message in
    /// flight is locked; from the first available group (by its oldest message) it returns as many of the group's
    /// messages, in order, as are available and fit, then goes on to the next group. A message not yet visible (a
    /// delay) holds back the rest of its group.
    /// </summary>
    private List<SqsMessage> TakeVisible(int maxMessages, TimeSpan visibilityTimeout, out TimeSpan untilVisible)
    {
        DateTimeOffset now = _broker.TimeProvider.GetUtcNow();
        untilVisible = TimeSpan.MaxValue;
        var received = new List<SqsMessage>();
        if (!Options.Fifo)
        {
            for (int i = 0; i < _messages.Count && received.Count < maxMessages; i++)
            {
                StoredMessage message = _messages[i];
                if (message.VisibleAt > now)
                {
                    untilVisible = Earliest(untilVisible, message.VisibleAt - now);
                }
                else if (TryDeliver(message, now, visibilityTimeout, received))
                {
                    i--; // moved to the dead-letter queue
                }
            }

            return received;
        }

        // FIFO: a group with a message in flight is locked.
        var locked = new HashSet<string>(StringComparer.Ordinal);
        foreach (StoredMessage message in _messages)
        {
            if (message.VisibleAt > now)
            {
                untilVisible = Earliest(untilVisible, message.VisibleAt - now);
                if (message.ReceiptHandle is not null)
                {
                    locked.Add(message.GroupId!);
                }
            }
        }

        // The candidates of each other group, in order up to its first message not yet visible, and the groups in
        // the order of their oldest message (a null entry: the group's run ended).
        var groups = new Dictionary<string, List<StoredMessage>?>(StringComparer.Ordinal);
        var order = new List<List<StoredMessage>>();
        foreach (StoredMessage message in _messages)
        {
            string group = message.GroupId!;
            if (locked.Contains(group))
            {
                continue;
            }

            bool known = groups.TryGetValue(group, out List<StoredMessage>? candidates);
            if (message.VisibleAt > now)
            {
                groups[group] = null; // nothing of the group after a message that is not visible yet
                continue;
            }

            if (known && candidates is null)
            {
                continue;
            }

            if (candidates is null)
            {
                candidates = [];
                groups[group] = candidates;
                order.Add(candidates);
            }

            candidates.Add(message);
        }

        foreach (List<StoredMessage> candidates in order)
        {
            foreach (StoredMessage message in candidates)
            {
                if (received.Count == maxMessages)
                {
                    return received;
                }

                TryDeliver(message, now, visibilityTimeout, received);
            }
        }

        return received;
    }

    /// <summary>
    /// Delivers a visible message into <paramref name="received"/>, or, past the max receive count, moves it to the
    /// dead-letter queue (returns <c>true</c>: it left this queue). A move the dead-letter queue refuses delivers
    /// the message instead, so that it is never held back unseen.
    /// </summary>
    private bool TryDeliver(StoredMessage message, DateTimeOffset now, TimeSpan visibilityTimeout, List<SqsMessage> received)
    {
        if (Options.DeadLetterQueue is { } dlq && message.ReceiveCount + 1 > Options.MaxReceiveCount)
        {
            // All or nothing: the message leaves this queue only once the dead-letter queue holds it.
            try
            {
                _broker.GetQueue(dlq).Enqueue(message.Body, message.Attributes, message.GroupId, Options.Fifo ? message.Id : null, TimeSpan.Zero, Arn);
                _messages.Remove(message);
                return true;
            }
            catch (MessageTransportException)
            {
                // The dead-letter queue refused it: delivered again rather than kept here unseen.
            }
        }

        message.ReceiveCount++;
        message.FirstReceivedAt ??= now;
        message.VisibleAt = now + visibilityTimeout;
        message.ReceiptHandle = Convert.ToBase64String(Guid.NewGuid().ToByteArray()) + ":" + message.Id;
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
        return false;
    }

    private static TimeSpan Earliest(TimeSpan a, TimeSpan b) => a < b ? a : b;

    private void PruneDeduplication(DateTimeOffset now)
    {
        if (_deduplication.Count < 1024)
        {
            return;
        }

        var expired = new List<string>();
        foreach (KeyValuePair<string, DateTimeOffset> entry in _deduplication)
        {
            if (now - entry.Value > DeduplicationWindow)
            {
                expired.Add(entry.Key);
            }
        }

        foreach (string key in expired)
        {
            _deduplication.Remove(key);
        }
    }

    private void Signal()
    {
        TaskCompletionSource previous = _changed;
        _changed = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        previous.TrySetResult();
    }

    private sealed class StoredMessage(string id, string body, IReadOnlyDictionary<string, MessageAttributeValue> attributes, Dictionary<string, string> systemAttributes, string? groupId)
    {
        public string Id { get; } = id;

        public string Body { get; } = body;

        public IReadOnlyDictionary<string, MessageAttributeValue> Attributes { get; } = attributes;

        public Dictionary<string, string> SystemAttributes { get; } = systemAttributes;

        public string? GroupId { get; } = groupId;

        public DateTimeOffset VisibleAt { get; set; }

        public DateTimeOffset? FirstReceivedAt { get; set; }

        public int ReceiveCount { get; set; }

        public string? ReceiptHandle { get; set; }
    }
}
