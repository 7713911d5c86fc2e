using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.Logging;
using Missive.Transport;

namespace Missive.Bus;

/// <summary>
/// Keeps the messages a poller holds invisible (those being handled and those waiting their turn): one timer per
/// poller, ticking every quarter visibility timeout, extends by one timeout from now, in batch calls, every message
/// whose visibility ends within half a timeout. A message handled in time costs an entry in a dictionary and
/// nothing else: no timer, task or call of its own. A message whose receipt SQS no longer accepts is not extended
/// again (logged once).
/// </summary>
internal sealed class VisibilityHeartbeat : IDisposable
{
    private readonly object _gate = new();
    private readonly Dictionary<string, Entry> _messages = new(StringComparer.Ordinal);
    private readonly IMessageTransport _transport;
    private readonly string _queue;
    private readonly TimeSpan _visibilityTimeout;
    private readonly TimeProvider _timeProvider;
    private readonly ILogger _logger;
    private readonly ITimer _timer;
    private int _extending;

    public VisibilityHeartbeat(IMessageTransport transport, string queue, TimeSpan visibilityTimeout, TimeProvider timeProvider, ILogger logger)
    {
        _transport = transport;
        _queue = queue;
        _visibilityTimeout = visibilityTimeout;
        _timeProvider = timeProvider;
        _logger = logger;
        TimeSpan period = visibilityTimeout / 4;
        _timer = timeProvider.CreateTimer(static state => ((VisibilityHeartbeat)state!).Tick(), this, period, period);
    }

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

    /// <summary>Starts keeping a received message invisible (its visibility timeout started when it was received).</summary>
    public void Hold(SqsMessage message)
    {
        DateTimeOffset visibleAt = _timeProvider.GetUtcNow() + _visibilityTimeout;
        lock (_gate)
        {
            _messages[message.ReceiptHandle] = new Entry(message, visibleAt, Lost: false);
        }
    }

    /// <summary>Stops keeping a message invisible (it was handled, released or given up).</summary>
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

    public void Dispose() => _timer.Dispose();

    /// <summary>Extends what is due, unless the previous tick's calls are still under way.</summary>
    internal void Tick()
    {
        if (Interlocked.Exchange(ref _extending, 1) == 1)
        {
            return;
        }

        DateTimeOffset now = _timeProvider.GetUtcNow();
        DateTimeOffset dueBefore = now + (_visibilityTimeout / 2);
        List<SqsMessage>? due = null;
        lock (_gate)
        {
            foreach (Entry entry in _messages.Values)
            {
                if (!entry.Lost && entry.VisibleAt <= dueBefore)
                {
                    (due ??= []).Add(entry.Message);
                }
            }
        }

        if (due is null)
        {
            Volatile.Write(ref _extending, 0);
            return;
        }

        _ = ExtendAsync(due, now);
    }

    private async Task ExtendAsync(List<SqsMessage> due, DateTimeOffset sentAt)
    {
        try
        {
            var handles = new string[due.Count];
            for (int i = 0; i < handles.Length; i++)
            {
                handles[i] = due[i].ReceiptHandle;
            }

            IReadOnlyList<BatchEntryResult> results = await _transport.ChangeVisibilityBatchAsync(_queue, handles, _visibilityTimeout, CancellationToken.None).ConfigureAwait(false);
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
        catch (Exception e) when (e is not OutOfMemoryException)
        {
            // Tried again at the next tick while the messages are still held.
            BusLog.HeartbeatFailed(_logger, due.Count, BusLog.IdsOf(due), _queue, e);
        }
        finally
        {
            Volatile.Write(ref _extending, 0);
        }
    }

    private readonly record struct Entry(SqsMessage Message, DateTimeOffset VisibleAt, bool Lost);
}
