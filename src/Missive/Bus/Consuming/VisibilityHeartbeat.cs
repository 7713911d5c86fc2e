using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.Logging;
using Missive.Transport;

namespace Missive.Bus;

/// <summary>
/// Every visibility change of the messages one poller run holds: it keeps them invisible while they are handled or wait
/// their turn, and it makes the releases and retry delays, so that an extension cannot undo them. Its calls go through a
/// <see cref="Batcher{TKey, TEntry}"/>: one lane for extensions, one per visibility of releases and retry delays.
/// </summary>
/// <remarks>
/// <list type="bullet">
/// <item>One timer, ticking every eighth of the visibility timeout, extends by one timeout from now every held message
/// whose visibility ends within three quarters of a timeout and that no extension is under way for: a message is first
/// due at least five ticks before it would show again, so that a stalled, failed or starved extension leaves time for
/// several more. A message handled within a quarter of the timeout costs an entry in a dictionary and no call.</item>
/// <item>Every call has a deadline shorter than what it protects, kept whatever the transport does with its token: an
/// extension gets an eighth of the visibility timeout (<see cref="ExtensionDeadline"/>); one that does not answer in
/// time is abandoned and tried again at once, while the messages are still invisible. A release or retry delay gets
/// one visibility timeout (at shutdown, what the caller gives).</item>
/// <item>Entries are read by <see cref="BatchEntryResult.Outcome"/>: only <see cref="BatchEntryOutcome.ReceiptGone"/>
/// stops extending a message (logged once); any other failure leaves it due, tried again at the next tick.</item>
/// <item>A call abandoned at its deadline makes one retry: the next tick's work, done at once (not one call per message).</item>
/// <item>A release or a retry delay (<see cref="SetVisibilityAsync"/>) stops holding its messages; while an extension
/// of one of them may still take effect (under way; or ended without an answer, which the service may still apply for
/// <see cref="Batcher{TKey, TEntry}.LateLandingWindow"/>, whatever later extensions answer), the change is made again each
/// time such an extension's call ends, at every tick while that window is open (a landing then hides the message for at
/// most a tick), and once more when it closes, with what is left of the delay, since the service may apply the two in
/// either order (a change made again with a receipt SQS has since replaced changes nothing). An abandoned extension's
/// changes are also made again at once.</item>
/// </list>
/// </remarks>
internal sealed partial class VisibilityHeartbeat : IDisposable
{
    private readonly object _gate = new();
    private readonly Dictionary<string, Entry> _messages = new(StringComparer.Ordinal);
    private readonly Dictionary<string, Landing> _mayLand = new(StringComparer.Ordinal); // by receipt: extensions that may still take effect
    private readonly Dictionary<string, Change> _redo = new(StringComparer.Ordinal); // by receipt: the change to make again when they do
    private readonly IMessageTransport _transport;
    private readonly string _queue;
    private readonly TimeSpan _visibilityTimeout;
    private readonly TimeProvider _timeProvider;
    private readonly ILogger _logger;
    private readonly ITimer _timer;
    private readonly PollerHealth? _health;
    private readonly Batcher<Lane, Change> _batcher;
    private readonly ITimer _landingTimer; // fires when the earliest window of an extension that ended without an answer closes
    private long _extensions; // numbers the extensions, in the order they are made

    public VisibilityHeartbeat(IMessageTransport transport, string queue, TimeSpan visibilityTimeout, TimeProvider timeProvider, ILogger logger, PollerHealth? health = null)
    {
        _health = health;
        _transport = transport;
        _queue = queue;
        _visibilityTimeout = visibilityTimeout;
        _timeProvider = timeProvider;
        _logger = logger;
        _batcher = new Batcher<Lane, Change>(static lane => new BatchPolicy { MaxEntries = 10, CallDeadline = lane.Deadline }, CallAsync, Complete, timeProvider, CallEnded, ResultsGiven);
        TimeSpan period = visibilityTimeout / 8;
        _timer = timeProvider.CreateTimer(static state => ((VisibilityHeartbeat)state!).Tick(), this, period, period);
        _landingTimer = timeProvider.CreateTimer(static state => ((VisibilityHeartbeat)state!).LandingWindowsClosed(), this, Timeout.InfiniteTimeSpan, Timeout.InfiniteTimeSpan);
    }

    /// <summary>Gets how long an extension may take before it is abandoned and tried again.</summary>
    public TimeSpan ExtensionDeadline => _visibilityTimeout / 8;

    /// <summary>Gets how many messages are held.</summary>
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

    /// <summary>Gets whether an extension is under way for any held message (its answer not yet taken in).</summary>
    internal bool ExtensionUnderWay
    {
        get
        {
            lock (_gate)
            {
                foreach (Entry entry in _messages.Values)
                {
                    if (entry.Extension is not null)
                    {
                        return true;
                    }
                }

                return false;
            }
        }
    }

    private Lane Extensions => new(Extension: true, _visibilityTimeout, ExtensionDeadline);

    /// <summary>Starts keeping a received message invisible.</summary>
    /// <param name="message">The message.</param>
    /// <param name="requestedAt">
    /// When the receive that got it was asked for, or <c>null</c> for now: its visibility timeout started no earlier, so
    /// counting from there never extends too late, however long the answer took to be taken in.
    /// </param>
    public void Hold(SqsMessage message, DateTimeOffset? requestedAt = null)
    {
        DateTimeOffset visibleAt = (requestedAt ?? _timeProvider.GetUtcNow()) + _visibilityTimeout;
        lock (_gate)
        {
            _messages[message.ReceiptHandle] = new Entry(message, visibleAt);
        }
    }

    /// <summary>Stops keeping a message invisible (it was handled and is being deleted).</summary>
    public void Drop(SqsMessage message)
    {
        lock (_gate)
        {
            _messages.Remove(message.ReceiptHandle);
        }
    }

    /// <summary>Stops keeping every message invisible, and returns them.</summary>
    public List<SqsMessage> DropAll()
    {
        lock (_gate)
        {
            var all = new List<SqsMessage>(_messages.Count);
            foreach (Entry entry in _messages.Values)
            {
                all.Add(entry.Message);
            }

            _messages.Clear();
            return all;
        }
    }

    /// <summary>
    /// Stops holding <paramref name="messages"/> and sets their visibility to <paramref name="visibility"/> from now: zero
    /// releases them, more is a retry delay. The task ends when the calls have answered or given up; a failure is logged
    /// (the messages come back when their visibility ends).
    /// </summary>
    /// <param name="messages">The messages.</param>
    /// <param name="visibility">Their visibility from now.</param>
    /// <param name="deadline">How long each call may take; <c>null</c> for one visibility timeout.</param>
    public Task SetVisibilityAsync(IReadOnlyList<SqsMessage> messages, TimeSpan visibility, TimeSpan? deadline = null)
    {
        if (messages.Count == 0)
        {
            return Task.CompletedTask;
        }

        DateTimeOffset visibleAt = _timeProvider.GetUtcNow() + visibility;
        var changes = new Change[messages.Count];
        var done = new Countdown(messages.Count);
        lock (_gate)
        {
            for (int i = 0; i < changes.Length; i++)
            {
                SqsMessage message = messages[i];
                changes[i] = new Change(message, visibleAt, done);
                _messages.Remove(message.ReceiptHandle);
                if (_mayLand.ContainsKey(message.ReceiptHandle))
                {
                    _redo[message.ReceiptHandle] = new Change(message, visibleAt);
                }
            }
        }

        _batcher.AddRange(new Lane(Extension: false, visibility, deadline ?? _visibilityTimeout), changes, flush: true);
        return done.Task;
    }

    public void Dispose()
    {
        _timer.Dispose();
        _landingTimer.Dispose();
        _batcher.Dispose();
    }

    /// <summary>Extends what is due and has no extension under way.</summary>
    internal void Tick()
    {
        DateTimeOffset now = _timeProvider.GetUtcNow();
        _health?.HeartbeatRan(now);
        DateTimeOffset dueBefore = now + (_visibilityTimeout * 3 / 4);
        List<Change>? due = null, redo;
        lock (_gate)
        {
            foreach (Entry entry in _messages.Values)
            {
                if (entry is { Lost: false, Extension: null } && entry.VisibleAt <= dueBefore)
                {
                    var change = new Change(entry.Message, now + _visibilityTimeout) { Number = ++_extensions };
                    (due ??= []).Add(change);
                }
            }

            if (due is not null)
            {
                foreach (Change change in due)
                {
                    // Under the lock that chose it: a release made from now on is made again when this call ends.
                    string receipt = change.Message.ReceiptHandle;
                    _messages[receipt] = _messages[receipt] with { Extension = change };
                    if (!_mayLand.TryGetValue(receipt, out Landing? landing))
                    {
                        _mayLand[receipt] = landing = new Landing();
                    }

                    landing.UnderWay.Add(change.Number);
                }
            }

            redo = _redo.Count == 0 ? null : RedoWhileWindowsOpen();
        }

        if (due is not null)
        {
            _batcher.AddRange(Extensions, due, flush: true);
        }

        if (redo is not null)
        {
            RedoChanges(redo);
        }
    }

    private Task<IReadOnlyList<BatchEntryResult>> CallAsync(Lane lane, IReadOnlyList<Change> changes, CancellationToken cancellationToken)
    {
        var handles = new string[changes.Count];
        for (int i = 0; i < handles.Length; i++)
        {
            handles[i] = changes[i].Message.ReceiptHandle;
        }

        return _transport.ChangeVisibilityBatchAsync(_queue, handles, lane.Visibility, cancellationToken);
    }

    /// <summary>An entry's result: an extension updates its message; a release or retry delay ends its caller's wait; a change made again is over.</summary>
    private void Complete(Change change, BatchEntryResult result)
    {
        if (change.Number == 0 && change.Done is null)
        {
            return; // made again: its failure leaves the message to show when its visibility ends, as the first's would
        }

        if (change.Done is { } done)
        {
            try
            {
                if (result.Outcome is not (BatchEntryOutcome.Succeeded or BatchEntryOutcome.ReceiptGone))
                {
                    BusLog.VisibilityChangeFailed(_logger, 1, change.Message.MessageId, _queue, change.VisibleAt - _timeProvider.GetUtcNow(), BatchSends.EntryFailed(result));
                }
            }
            finally
            {
                done.Signal();
            }

            return;
        }

        SqsMessage message = change.Message;
        BatchEntryOutcome outcome = result.Outcome;
        bool held, abandoned = result.ErrorCode == BatchResults.TimedOutCode;
        List<Change>? redo = null;
        lock (_gate)
        {
            held = _messages.TryGetValue(message.ReceiptHandle, out Entry entry) && ReferenceEquals(entry.Extension, change);
            if (held)
            {
                _messages[message.ReceiptHandle] = outcome switch
                {
                    BatchEntryOutcome.Succeeded => entry with { VisibleAt = change.VisibleAt, Extension = null },
                    BatchEntryOutcome.ReceiptGone => entry with { Lost = true, Extension = null },
                    _ => entry with { Extension = null }, // not extended: it stays due and is tried again
                };
            }

            if (abandoned && _redo.TryGetValue(message.ReceiptHandle, out Change? again))
            {
                (redo ??= []).Add(again); // made again now, and again when the abandoned call ends
            }
        }

        if (held && outcome == BatchEntryOutcome.ReceiptGone)
        {
            BusLog.HeartbeatLost(_logger, message.MessageId, _queue);
        }
        else if (held && abandoned)
        {
            BusLog.HeartbeatFailed(_logger, 1, message.MessageId, _queue, BatchSends.EntryFailed(result));
        }
        else if (held && outcome != BatchEntryOutcome.Succeeded)
        {
            BusLog.HeartbeatEntryFailed(_logger, message.MessageId, _queue, result.ErrorCode ?? "unknown");
        }

        if (redo is not null)
        {
            RedoChanges(redo);
        }
    }

    /// <summary>A call's entries all have their results: an extension call abandoned at its deadline is tried again at once, once.</summary>
    private void ResultsGiven(Lane lane, IReadOnlyList<BatchEntryResult> results)
    {
        if (!lane.Extension)
        {
            return;
        }

        foreach (BatchEntryResult result in results)
        {
            if (result.ErrorCode == BatchResults.TimedOutCode)
            {
                Tick(); // one retry for the whole call, while its messages are still invisible
                return;
            }
        }
    }

    /// <summary>A held message: when it shows again, whether its receipt is gone, and the extension under way for it.</summary>
    private readonly record struct Entry(SqsMessage Message, DateTimeOffset VisibleAt, bool Lost = false, Change? Extension = null);

    /// <summary>A lane of calls: extensions, or releases and retry delays to one visibility; and each call's deadline.</summary>
    private readonly record struct Lane(bool Extension, TimeSpan Visibility, TimeSpan Deadline);

    /// <summary>One message's visibility change: when it is to show again, and, for a release or retry delay, its caller's wait.</summary>
    private sealed class Change(SqsMessage message, DateTimeOffset visibleAt, Countdown? done = null)
    {
        public SqsMessage Message { get; } = message;

        public DateTimeOffset VisibleAt { get; } = visibleAt;

        public Countdown? Done { get; } = done;

        /// <summary>Gets an extension's number, in the order extensions are made (0 for a release or retry delay).</summary>
        public long Number { get; init; }
    }

    /// <summary>The wait of one release or retry delay: it ends when each of its messages' entries has its result.</summary>
    private sealed class Countdown(int count)
    {
        private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
        private int _left = count;

        public Task Task => _done.Task;

        public void Signal()
        {
            if (Interlocked.Decrement(ref _left) == 0)
            {
                _done.TrySetResult();
            }
        }
    }
}
