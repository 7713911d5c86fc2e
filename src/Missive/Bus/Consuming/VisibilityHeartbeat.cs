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
/// <item>One timer, ticking every quarter visibility timeout, extends by one timeout from now, in batch calls, every held
/// message whose visibility ends within half a timeout. A message handled in time costs an entry in a dictionary and no
/// call.</item>
/// <item>Every call has a deadline shorter than what it protects: an extension gets an eighth of the visibility timeout
/// (<see cref="ExtensionDeadline"/>); one that does not answer in time is abandoned and tried again at once, while the
/// messages are still invisible. A release or retry delay gets one visibility timeout.</item>
/// <item>A release or a retry delay (<see cref="SetVisibilityAsync"/>) stops holding its messages; when an extension of
/// one of them is under way, the change is made again once that extension has answered (with what is left of the
/// delay), since the service may apply the two in either order.</item>
/// <item>A message whose receipt the service no longer accepts is not extended again (logged once).</item>
/// </list>
/// </remarks>
internal sealed class VisibilityHeartbeat : IDisposable
{
    private readonly object _gate = new();
    private readonly Dictionary<string, Entry> _messages = new(StringComparer.Ordinal);
    private readonly HashSet<string> _extending = new(StringComparer.Ordinal); // receipts in the extension under way
    private readonly List<Change> _redo = []; // changes to make again when the extension under way answers
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
        TimeSpan period = visibilityTimeout / 4;
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
    public Task SetVisibilityAsync(IReadOnlyList<SqsMessage> messages, TimeSpan visibility)
    {
        DateTimeOffset now = _timeProvider.GetUtcNow();
        lock (_gate)
        {
            foreach (SqsMessage message in messages)
            {
                _messages.Remove(message.ReceiptHandle);
                if (_extending.Contains(message.ReceiptHandle))
                {
                    _redo.Add(new Change(message, now + visibility));
                }
            }
        }

        return ChangeAsync(messages, visibility);
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
                    _extending.Add(entry.Message.ReceiptHandle);
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
        bool stalled = false;
        try
        {
            var handles = new string[due.Count];
            for (int i = 0; i < handles.Length; i++)
            {
                handles[i] = due[i].ReceiptHandle;
            }

            using var deadline = new CancellationTokenSource(ExtensionDeadline, _timeProvider);
            IReadOnlyList<BatchEntryResult> results;
            try
            {
                results = await _transport.ChangeVisibilityBatchAsync(_queue, handles, _visibilityTimeout, deadline.Token).ConfigureAwait(false);
            }
            catch (OperationCanceledException e) when (deadline.IsCancellationRequested)
            {
                stalled = true; // tried again at once, below
                BusLog.HeartbeatFailed(_logger, due.Count, BusLog.IdsOf(due), _queue, e);
                return;
            }

            DateTimeOffset visibleAt = sentAt + _visibilityTimeout;
            foreach (BatchEntryResult result in results)
            {
                SqsMessage message = due[result.Index];
                bool held;
                lock (_gate)
                {
                    held = _messages.ContainsKey(message.ReceiptHandle);
                    if (held)
                    {
                        _messages[message.ReceiptHandle] = new Entry(message, result.Succeeded ? visibleAt : DateTimeOffset.MaxValue, Lost: !result.Succeeded);
                    }
                }

                if (held && !result.Succeeded)
                {
                    BusLog.HeartbeatLost(_logger, message.MessageId, _queue);
                }
            }
        }
        catch (Exception e) when (!ContentSafety.IsFatal(e))
        {
            // Tried again at the next tick while the messages are still held.
            BusLog.HeartbeatFailed(_logger, due.Count, BusLog.IdsOf(due), _queue, e);
        }
        finally
        {
            List<Change>? redo = null;
            lock (_gate)
            {
                _extending.Clear();
                _extensionUnderWay = false;
                if (_redo.Count > 0)
                {
                    redo = [.. _redo];
                    _redo.Clear();
                }
            }

            if (redo is not null)
            {
                RedoChanges(redo);
            }

            if (stalled)
            {
                Tick();
            }
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
            _ = ChangeAsync(messages, TimeSpan.FromSeconds(seconds));
        }
    }

    private async Task ChangeAsync(IReadOnlyList<SqsMessage> messages, TimeSpan visibility)
    {
        var handles = new string[messages.Count];
        for (int i = 0; i < handles.Length; i++)
        {
            handles[i] = messages[i].ReceiptHandle;
        }

        try
        {
            using var deadline = new CancellationTokenSource(_visibilityTimeout, _timeProvider);
            await _transport.ChangeVisibilityBatchAsync(_queue, handles, visibility, deadline.Token).ConfigureAwait(false);
        }
        catch (Exception e) when (!ContentSafety.IsFatal(e))
        {
            BusLog.VisibilityChangeFailed(_logger, messages.Count, BusLog.IdsOf(messages), _queue, visibility, e);
        }
    }

    private readonly record struct Entry(SqsMessage Message, DateTimeOffset VisibleAt, bool Lost);

    /// <summary>A release or retry delay: the message, and when it is to become visible.</summary>
    private readonly record struct Change(SqsMessage Message, DateTimeOffset VisibleAt);
}
