using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Coyote.Random;
using Microsoft.Coyote.Specifications;
using Missive.Bus;
using Missive.Transport;

namespace Missive.ConcurrencyTests;

/// <summary>
/// A model of one SQS queue's receive side on the fake clock: visibility timeouts, receipts that a new receive makes
/// stale, FIFO groups locked while a message of theirs is in flight, and faults the engine chooses per call.
/// </summary>
/// <remarks>
/// <list type="bullet">
/// <item>A receive may fail whole (a transient service error).</item>
/// <item>A visibility change may answer at once, land half a second late (taking effect then), or meet one fault per
/// receipt at most (what the heartbeat's margin promises to absorb): stall until its caller gives up; ignore its token
/// and land after its caller abandoned it (a transport that cannot take back a request it sent); honour its token, its
/// task ending at once, yet land two seconds later (a request already sent, applied after its sender gave up); or fail
/// the entry on the service's side (an internal error or throttling, not applied).</item>
/// <item>The extension calls made at one instant are at most one per tick plus one per extension call abandoned then:
/// an abandoned call is retried by one call, not one per message.</item>
/// <item>A delete may fail whole, or fail some entries on the service's side (not deleted): the messages come back, at
/// least once.</item>
/// <item>Every delivery checks that the message's handler is not running (it may not be delivered again within the
/// heartbeat's reach); the changes applied to each receipt are kept, to check that no release or retry delay was
/// undone by an extension that landed after it.</item>
/// </list>
/// </remarks>
internal sealed class ModelQueue(TimeProvider clock, TimeSpan visibilityTimeout, bool fifo, Func<string, bool> handlerRunning) : IMessageTransport
{
    private readonly object _gate = new();
    private readonly Generator _random = Generator.Create();
    private readonly List<Stored> _messages = [];
    private readonly List<Change> _changes = [];
    private readonly HashSet<string> _faulted = new(StringComparer.Ordinal); // receipts that met their one fault
    private readonly Dictionary<DateTimeOffset, List<string>> _extensionCalls = []; // their receipts, by the instant they were made
    private readonly Dictionary<DateTimeOffset, int> _abandonedCalls = []; // extension calls whose token was cancelled, by that instant
    private int _receipts;
    private int _landingsPending;

    public bool IsReceiveCancellationSafe => true;

    /// <summary>Gets how many messages are not deleted.</summary>
    public int Remaining
    {
        get
        {
            lock (_gate)
            {
                return _messages.Count(m => !m.Deleted);
            }
        }
    }

    public void Add(string id, string body, string group)
    {
        lock (_gate)
        {
            _messages.Add(new Stored(id, body, group, _messages.Count + 1));
        }
    }

    public async Task<IReadOnlyList<SqsMessage>> ReceiveAsync(string queueName, int maxMessages, TimeSpan waitTime, TimeSpan? visibilityTimeout = null, CancellationToken cancellationToken = default)
    {
        DateTimeOffset until = clock.GetUtcNow() + waitTime;
        while (true)
        {
            await Task.Yield();
            if (_random.NextInteger(8) == 0)
            {
                throw new MessageTransportException("InternalError: the receive failed") { StatusCode = 500, FailureKind = TransportFailureKind.Transient };
            }

            List<SqsMessage> received = Take(maxMessages);
            if (received.Count > 0 || clock.GetUtcNow() >= until)
            {
                return received;
            }

            await ClockDelay.WaitAsync(clock, TimeSpan.FromMilliseconds(250), cancellationToken);
        }
    }

    /// <summary>Gets how many changes whose call ended are still to land (the test waits for them before it checks).</summary>
    public int LandingsPending => Volatile.Read(ref _landingsPending);

    public async Task<IReadOnlyList<BatchEntryResult>> ChangeVisibilityBatchAsync(string queueName, IReadOnlyList<string> receiptHandles, TimeSpan visibility, CancellationToken cancellationToken = default)
    {
        DateTimeOffset sent = clock.GetUtcNow();
        bool extension = visibility == visibilityTimeout;
        lock (_gate)
        {
            foreach (string handle in receiptHandles)
            {
                _changes.Add(new Change(handle, extension, Requested: sent, Applied: null));
            }

            if (extension)
            {
                if (!_extensionCalls.TryGetValue(sent, out List<string>? calls))
                {
                    _extensionCalls[sent] = calls = [];
                }

                calls.Add(string.Join("+", receiptHandles));
            }
        }

        // Kept after the call returns: the bus may give a call up after the model answered it, before it read the answer.
        _ = extension ? cancellationToken.Register(() =>
        {
            lock (_gate)
            {
                DateTimeOffset at = clock.GetUtcNow();
                _abandonedCalls[at] = _abandonedCalls.GetValueOrDefault(at) + 1;
            }
        }) : default;

        await Task.Yield();
        int fault = _random.NextInteger(7);
        bool faulted;
        lock (_gate)
        {
            // One fault per receipt at most (stall, land after abandoned, entry failure): the heartbeat's margin absorbs one.
            faulted = fault is 1 or 3 or 4 or 6 && !receiptHandles.Any(_faulted.Contains);
            if (faulted)
            {
                _faulted.UnionWith(receiptHandles);
            }
        }

        if (faulted && fault == 1)
        {
            await ClockDelay.WaitAsync(clock, Timeout.InfiniteTimeSpan, cancellationToken); // until its caller gives up
        }

        if (faulted && fault == 6)
        {
            // Sent, then given up by its caller: the task ends cancelled, and the service applies the change two seconds later.
            try
            {
                await ClockDelay.WaitAsync(clock, Timeout.InfiniteTimeSpan, cancellationToken);
            }
            catch (OperationCanceledException)
            {
                Interlocked.Increment(ref _landingsPending);
                _ = Task.Run(
                    async () =>
                    {
                        await ClockDelay.WaitAsync(clock, TimeSpan.FromSeconds(2), CancellationToken.None);
                        Apply(receiptHandles, visibility, sent);
                        Interlocked.Decrement(ref _landingsPending);
                    },
                    CancellationToken.None);
                throw;
            }
        }

        if (faulted && fault == 3)
        {
            // Not cancellation-safe: the request was sent, and lands after its caller's deadline abandoned it.
            await ClockDelay.WaitAsync(clock, (visibilityTimeout / 8) + TimeSpan.FromMilliseconds(250), CancellationToken.None);
        }

        if (fault == 2)
        {
            await ClockDelay.WaitAsync(clock, TimeSpan.FromMilliseconds(500), CancellationToken.None); // lands late, and takes effect then
        }

        return Apply(receiptHandles, visibility, sent, entriesFail: faulted && fault == 4);
    }

    /// <summary>Applies visibility changes now, each entry its own result (some failed on the service's side with <paramref name="entriesFail"/>).</summary>
    private BatchEntryResult[] Apply(IReadOnlyList<string> receiptHandles, TimeSpan visibility, DateTimeOffset sent, bool entriesFail = false)
    {
        bool extension = visibility == visibilityTimeout;
        lock (_gate)
        {
            DateTimeOffset now = clock.GetUtcNow();
            var results = new BatchEntryResult[receiptHandles.Count];
            for (int i = 0; i < results.Length; i++)
            {
                Stored? message = _messages.FirstOrDefault(m => m.Receipt == receiptHandles[i] && !m.Deleted);
                if (message is null)
                {
                    results[i] = new BatchEntryResult(i, null, "ReceiptHandleIsInvalid", "stale", SenderFault: true);
                    continue;
                }

                if (entriesFail && _random.NextBoolean())
                {
                    // Failed on the service's side: not applied, and not the sender's fault.
                    results[i] = _random.NextBoolean()
                        ? new BatchEntryResult(i, null, "InternalError", "Please try again.", SenderFault: false)
                        : new BatchEntryResult(i, null, "ThrottlingException", "Rate exceeded.", SenderFault: false);
                    continue;
                }

                message.VisibleAt = now + visibility;
                _changes.Add(new Change(receiptHandles[i], extension, sent, now));
                results[i] = BatchEntryResult.Success(i, null);
            }

            return results;
        }
    }

    /// <summary>
    /// An abandoned extension call is retried by one call: at each instant, the extension calls made are at most one (the
    /// tick's) plus one per extension call abandoned then.
    /// </summary>
    public void CheckOneRetryPerAbandonedCall()
    {
        lock (_gate)
        {
            foreach ((DateTimeOffset at, List<string> calls) in _extensionCalls)
            {
                int abandoned = _abandonedCalls.GetValueOrDefault(at);
                Specification.Assert(calls.Count <= 1 + abandoned, $"{calls.Count} extension calls were made at {at:ss.fff} ({string.Join("; ", calls)}), when {abandoned} were abandoned: an abandoned call makes one retry; all calls: {string.Join(" | ", _changes.Select(c => $"{(c.Extension ? "extend" : "release")} {c.Receipt} {(c.Applied is null ? "asked" : "applied")} {c.Requested:ss.fff}/{c.Applied:ss.fff}"))}");
            }
        }
    }

    public async Task<IReadOnlyList<BatchEntryResult>> DeleteBatchAsync(string queueName, IReadOnlyList<string> receiptHandles, CancellationToken cancellationToken = default)
    {
        await Task.Yield();
        if (_random.NextInteger(4) == 0)
        {
            throw new MessageTransportException("InternalError: the delete failed") { StatusCode = 500, FailureKind = TransportFailureKind.Transient };
        }

        bool entriesFail = _random.NextInteger(4) == 0;

        lock (_gate)
        {
            var results = new BatchEntryResult[receiptHandles.Count];
            for (int i = 0; i < results.Length; i++)
            {
                Stored? message = _messages.FirstOrDefault(m => m.Receipt == receiptHandles[i] && !m.Deleted);
                if (message is not null && entriesFail && _random.NextBoolean())
                {
                    results[i] = new BatchEntryResult(i, null, "InternalError", "Please try again.", SenderFault: false);
                    continue;
                }

                if (message is not null)
                {
                    message.Deleted = true;
                }

                results[i] = message is null ? new BatchEntryResult(i, null, "ReceiptHandleIsInvalid", "stale", SenderFault: true) : BatchEntryResult.Success(i, null);
            }

            return results;
        }
    }

    /// <summary>
    /// No release or retry delay was undone: an extension that took effect after a release of its receipt was asked for
    /// (it was under way) is followed by the release taking effect, or asked for again (whatever became of that call: a
    /// failed release leaves the message to come back when its visibility ends, as SQS documents).
    /// </summary>
    public void CheckNoReleaseUndone()
    {
        lock (_gate)
        {
            foreach (IGrouping<string, Change> receipt in _changes.GroupBy(c => c.Receipt))
            {
                bool released = false, undone = false;
                foreach (Change change in receipt)
                {
                    if (!change.Extension && change.Applied is null)
                    {
                        released = true;
                        undone = false; // asked for (again) after whatever landed before
                    }
                    else if (!change.Extension)
                    {
                        undone = false; // the release itself took effect after whatever landed before
                    }
                    else if (change.Extension && change.Applied is not null && released)
                    {
                        undone = true;
                    }
                }

                Specification.Assert(!undone, $"a release or retry delay of receipt {receipt.Key} was undone by an extension that landed after it, and not asked for again; its changes: {string.Join(", ", receipt.Select(c => $"{(c.Extension ? "extend" : "release")} {(c.Applied is null ? "asked" : "applied")} {c.Requested:ss.fff}/{c.Applied:ss.fff}"))}");
            }
        }
    }

    public Task<string> SendAsync(SqsSendRequest request, CancellationToken cancellationToken = default) => throw new NotSupportedException();

    public Task<string> PublishAsync(SnsPublishRequest request, CancellationToken cancellationToken = default) => throw new NotSupportedException();

    public Task<string> PutEventAsync(EventBridgeEntry entry, CancellationToken cancellationToken = default) => throw new NotSupportedException();

    public Task<bool> DeleteAsync(string queueName, string receiptHandle, CancellationToken cancellationToken = default) => throw new NotSupportedException("the pump deletes in batches");

    public Task<bool> ChangeVisibilityAsync(string queueName, string receiptHandle, TimeSpan visibilityTimeout, CancellationToken cancellationToken = default) => throw new NotSupportedException("the pump changes visibility in batches");

    /// <summary>A message's receives and visibility changes, for an assertion's message. Under the lock.</summary>
    private string History(Stored message)
        => string.Join("; ", message.Receipts.Select(r => $"{r.Receipt} received {r.At:ss.fff}: " + string.Join(", ", _changes.Where(c => c.Receipt == r.Receipt).Select(c => $"{(c.Extension ? "extend" : "release")} {(c.Applied is null ? "asked" : "applied")} {c.Requested:ss.fff}/{c.Applied:ss.fff}"))));

    private List<SqsMessage> Take(int max)
    {
        lock (_gate)
        {
            DateTimeOffset now = clock.GetUtcNow();
            var locked = fifo ? _messages.Where(m => !m.Deleted && m.Receipt is not null && m.VisibleAt > now).Select(m => m.Group).ToHashSet() : [];
            var received = new List<SqsMessage>();
            foreach (Stored message in _messages)
            {
                if (received.Count == max)
                {
                    break;
                }

                if (message.Deleted || message.VisibleAt > now || locked.Contains(message.Group))
                {
                    if (fifo && !message.Deleted)
                    {
                        locked.Add(message.Group); // nothing of a group after a message that is not visible
                    }

                    continue;
                }

                if (handlerRunning(message.Id))
                {
                    Specification.Assert(false, $"{message.Id} was delivered again while its handler was running, at {now:ss.fff}; its receipts' changes: {History(message)}");
                }

                message.Receipt = "receipt-" + (++_receipts).ToString(CultureInfo.InvariantCulture);
                message.Receipts.Add((message.Receipt, now));
                message.VisibleAt = now + visibilityTimeout;
                message.Receives++;
                var system = new Dictionary<string, string>(StringComparer.Ordinal)
                {
                    [SqsSystemAttributes.ApproximateReceiveCount] = message.Receives.ToString(CultureInfo.InvariantCulture),
                };
                if (fifo)
                {
                    system[SqsSystemAttributes.MessageGroupId] = message.Group;
                    system[SqsSystemAttributes.SequenceNumber] = message.Sequence.ToString("D20", CultureInfo.InvariantCulture);
                }

                received.Add(new SqsMessage { Body = message.Body, MessageId = message.Id, ReceiptHandle = message.Receipt, SystemAttributes = system });
            }

            return received;
        }
    }

    private sealed class Stored(string id, string body, string group, long sequence)
    {
        public string Id { get; } = id;

        public string Body { get; } = body;

        public string Group { get; } = group;

        public long Sequence { get; } = sequence;

        public DateTimeOffset VisibleAt { get; set; }

        public string? Receipt { get; set; }

        public int Receives { get; set; }

        public bool Deleted { get; set; }

        /// <summary>Gets each receipt the message was given, and when.</summary>
        public List<(string Receipt, DateTimeOffset At)> Receipts { get; } = [];
    }

    /// <summary>A visibility change of a receipt: requested when its call was made; applied when (if) it took effect.</summary>
    private sealed record Change(string Receipt, bool Extension, DateTimeOffset Requested, DateTimeOffset? Applied);
}
