using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.Logging;
using Missive.Transport;

namespace Missive.Bus;

/// <summary>
/// Every visibility change of the messages one poller run holds: it keeps them invisible while they are handled or wait
/// their turn, and it makes the releases and retry delays, so that an extension cannot undo them.
/// </summary>
/// <remarks>
/// <list type="bullet">
/// <item>One timer, ticking every eighth of the visibility timeout, extends by one timeout from now, in batch calls,
/// every held message whose visibility ends within half a timeout: a message is first due at least three ticks before
/// it would show again, so that a stalled or failed extension leaves time for two more. A message handled in time costs
/// an entry in a dictionary and no call.</item>
/// <item>Every call has a deadline shorter than what it protects, kept whatever the transport does with its token: an
/// extension gets an eighth of the visibility timeout (<see cref="ExtensionDeadline"/>); one that does not answer in
/// time is abandoned and tried again at once, while the messages are still invisible. A release or retry delay gets
/// one visibility timeout (at shutdown, what the caller gives).</item>
/// <item>Entries are read by <see cref="BatchEntryResult.Outcome"/>: only <see cref="BatchEntryOutcome.ReceiptGone"/>
/// stops extending a message (logged once); any other failure leaves it due, tried again at the next tick (at once when
/// the deadline cut the call short).</item>
/// <item>A release or a retry delay (<see cref="SetVisibilityAsync"/>) stops holding its messages; while an extension
/// of one of them is under way (or abandoned and not yet ended: it may still land), the change is made again when that
/// extension's call ends, with what is left of the delay, since the service may apply the two in either order. An
/// abandoned extension's changes are also made again at once.</item>
/// </list>
/// </remarks>
internal sealed class VisibilityHeartbeat : IDisposable
{
    private readonly object _gate = new();
    private readonly Dictionary<string, Entry> _messages = new(StringComparer.Ordinal);
    private readonly List<Extension> _inFlight = []; // extensions whose call has not ended, abandoned ones included
    private readonly IMessageTransport _transport;
    private readonly string _queue;
    private readonly TimeSpan _visibilityTimeout;
    private readonly TimeProvider _timeProvider;
    private readonly ILogger _logger;
    private readonly ITimer _timer;
    private readonly PollerHealth? _health;
    private bool _extensionUnderWay;

    public VisibilityHeartbeat(IMessageTransport transport, string queue, TimeSpan visibilityTimeout, TimeProvider timeProvider, ILogger logger, PollerHealth? health = null)
    {
        _health = health;
        _transport = transport;
        _queue = queue;
        _visibilityTimeout = visibilityTimeout;
        _timeProvider = timeProvider;
        _logger = logger;
        TimeSpan period = visibilityTimeout / 8;
        _timer = timeProvider.CreateTimer(static state => ((VisibilityHeartbeat)state!).Tick(), this, period, period);
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

    /// <summary>Gets whether an extension is under way (its answer not yet taken in).</summary>
    internal bool ExtensionUnderWay
    {
        get
        {
            lock (_gate)
            {
                return _extensionUnderWay;
            }
        }
    }

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
            _messages[message.ReceiptHandle] = new Entry(message, visibleAt, Lost: false);
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
    /// releases them, more is a retry delay. A failure is logged (they come back when their visibility ends).
    /// </summary>
    /// <param name="messages">The messages.</param>
    /// <param name="visibility">Their visibility from now.</param>
    /// <param name="deadline">How long the call may take; <c>null</c> for one visibility timeout.</param>
    public Task SetVisibilityAsync(IReadOnlyList<SqsMessage> messages, TimeSpan visibility, TimeSpan? deadline = null)
    {
        DateTimeOffset now = _timeProvider.GetUtcNow();
        lock (_gate)
        {
            foreach (SqsMessage message in messages)
            {
                _messages.Remove(message.ReceiptHandle);
                foreach (Extension extension in _inFlight)
                {
                    if (extension.Receipts.Contains(message.ReceiptHandle))
                    {
                        extension.Redo.Add(new Change(message, now + visibility));
                    }
                }
            }
        }

        return ChangeAsync(messages, visibility, deadline ?? _visibilityTimeout);
    }

    public void Dispose() => _timer.Dispose();

    /// <summary>Extends what is due, unless an extension is under way (it has a deadline).</summary>
    internal void Tick()
    {
        DateTimeOffset now = _timeProvider.GetUtcNow();
        _health?.HeartbeatRan(now);
        DateTimeOffset dueBefore = now + (_visibilityTimeout / 2);
        List<SqsMessage>? due = null;
        lock (_gate)
        {
            if (_extensionUnderWay)
            {
                return;
            }

            foreach (Entry entry in _messages.Values)
            {
                if (!entry.Lost && entry.VisibleAt <= dueBefore)
                {
                    (due ??= []).Add(entry.Message);
                }
            }

            _extensionUnderWay = due is not null;
        }

        if (due is not null)
        {
            _ = ExtendAsync(due, now);
        }
    }

    private async Task ExtendAsync(List<SqsMessage> due, DateTimeOffset sentAt)
    {
        bool again = false; // the deadline cut the extension short: tried again at once
        var handles = new string[due.Count];
        for (int i = 0; i < handles.Length; i++)
        {
            handles[i] = due[i].ReceiptHandle;
        }

        var extension = new Extension(handles);
        lock (_gate)
        {
            _inFlight.Add(extension);
        }

        var deadline = new CancellationTokenSource(ExtensionDeadline, _timeProvider);
        CancellationToken expired = deadline.Token; // read after the source is disposed (when the call ends)
        Task<IReadOnlyList<BatchEntryResult>> call = CallDeadline.Start(token => _transport.ChangeVisibilityBatchAsync(_queue, handles, _visibilityTimeout, token), expired);
        _ = EndedAsync(call, extension, deadline);
        try
        {
            if (!await CallDeadline.EndsBeforeAsync(call, expired).ConfigureAwait(false))
            {
                again = true;
                BusLog.HeartbeatFailed(_logger, due.Count, BusLog.IdsOf(due), _queue, new TimeoutException($"The visibility extension did not answer within {ExtensionDeadline.TotalSeconds:0.###} s: abandoned, and tried again."));
                List<Change> redo;
                lock (_gate)
                {
                    redo = [.. extension.Redo]; // made again now, and again once the abandoned call has ended
                }

                RedoChanges(redo);
                return;
            }

            IReadOnlyList<BatchEntryResult> results = await call.ConfigureAwait(false);
            again = expired.IsCancellationRequested;
            DateTimeOffset visibleAt = sentAt + _visibilityTimeout;
            foreach (BatchEntryResult result in results)
            {
                SqsMessage message = due[result.Index];
                BatchEntryOutcome outcome = result.Outcome;
                bool held;
                lock (_gate)
                {
                    held = _messages.ContainsKey(message.ReceiptHandle);
                    if (held && outcome == BatchEntryOutcome.Succeeded)
                    {
                        _messages[message.ReceiptHandle] = new Entry(message, visibleAt, Lost: false);
                    }
                    else if (held && outcome == BatchEntryOutcome.ReceiptGone)
                    {
                        _messages[message.ReceiptHandle] = new Entry(message, DateTimeOffset.MaxValue, Lost: true);
                    }

                    // Any other outcome: not extended; the message stays due and is tried again.
                }

                if (held && outcome == BatchEntryOutcome.ReceiptGone)
                {
                    BusLog.HeartbeatLost(_logger, message.MessageId, _queue);
                }
                else if (held && outcome != BatchEntryOutcome.Succeeded)
                {
                    BusLog.HeartbeatEntryFailed(_logger, message.MessageId, _queue, result.ErrorCode ?? "unknown");
                }
            }
        }
        catch (Exception e) when (!ContentSafety.IsFatal(e))
        {
            // Tried again at once when the deadline ended it, else at the next tick, while the messages are still held.
            again = expired.IsCancellationRequested;
            BusLog.HeartbeatFailed(_logger, due.Count, BusLog.IdsOf(due), _queue, e);
        }
        finally
        {
            lock (_gate)
            {
                _extensionUnderWay = false;
            }

            if (again)
            {
                Tick();
            }
        }
    }

    /// <summary>Once an extension's call has ended (in time or, abandoned, later), makes again the changes made meanwhile.</summary>
    private async Task EndedAsync(Task call, Extension extension, CancellationTokenSource deadline)
    {
        try
        {
            await call.ConfigureAwait(false);
        }
        catch (Exception e) when (!ContentSafety.IsFatal(e))
        {
            // Its failure is the extension's to log; here only its end counts.
        }
        finally
        {
            deadline.Dispose();
        }

        List<Change> redo;
        lock (_gate)
        {
            _inFlight.Remove(extension);
            redo = extension.Redo;
        }

        if (redo.Count > 0)
        {
            RedoChanges(redo);
        }
    }

    /// <summary>Makes again the releases and retry delays an extension may have undone, with what is left of each.</summary>
    private void RedoChanges(List<Change> redo)
    {
        DateTimeOffset now = _timeProvider.GetUtcNow();
        var byVisibility = new Dictionary<long, List<SqsMessage>>();
        foreach (Change change in redo)
        {
            TimeSpan left = change.VisibleAt - now;
            long seconds = left <= TimeSpan.Zero ? 0 : (long)Math.Ceiling(left.TotalSeconds);
            if (!byVisibility.TryGetValue(seconds, out List<SqsMessage>? messages))
            {
                byVisibility[seconds] = messages = [];
            }

            messages.Add(change.Message);
        }

        foreach ((long seconds, List<SqsMessage> messages) in byVisibility)
        {
            _ = ChangeAsync(messages, TimeSpan.FromSeconds(seconds), _visibilityTimeout);
        }
    }

    private async Task ChangeAsync(IReadOnlyList<SqsMessage> messages, TimeSpan visibility, TimeSpan deadline)
    {
        var handles = new string[messages.Count];
        for (int i = 0; i < handles.Length; i++)
        {
            handles[i] = messages[i].ReceiptHandle;
        }

        try
        {
            await CallDeadline.CallAsync(token => _transport.ChangeVisibilityBatchAsync(_queue, handles, visibility, token), deadline, _timeProvider, "The visibility change").ConfigureAwait(false);
        }
        catch (Exception e) when (!ContentSafety.IsFatal(e))
        {
            BusLog.VisibilityChangeFailed(_logger, messages.Count, BusLog.IdsOf(messages), _queue, visibility, e);
        }
    }

    private readonly record struct Entry(SqsMessage Message, DateTimeOffset VisibleAt, bool Lost);

    /// <summary>A release or retry delay: the message, and when it is to become visible.</summary>
    private readonly record struct Change(SqsMessage Message, DateTimeOffset VisibleAt);

    /// <summary>One extension's call: its receipts, and the changes made while it had not ended.</summary>
    private sealed class Extension(string[] receipts)
    {
        public HashSet<string> Receipts { get; } = new(receipts, StringComparer.Ordinal);

        public List<Change> Redo { get; } = [];
    }
}
