using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.Logging;
using Missive.Diagnostics;
using Missive.Transport;

namespace Missive.Bus;

/// <summary>
/// Polls one queue: receives up to <see cref="PollerOptions.MaxMessagesPerReceive"/> messages a call, handles at most
/// <see cref="PollerOptions.MaxConcurrency"/> at once, each in its own DI scope, keeps every message it holds invisible
/// with one heartbeat for the poller, deletes handled messages in batches, backs off exponentially after failed
/// receives, and on shutdown leaves no message invisible that was not handled.
/// </summary>
/// <remarks>
/// <para>Receiving is apart from handling: a receive is made as soon as no received message is waiting for a handler
/// slot, so on a backlog every call asks for a full batch and no free slot waits for a receive, while at most one
/// receive's messages wait ahead of the handlers (kept invisible meanwhile). A handler that completes synchronously
/// completes its message inline; nothing hops to another thread for a message.</para>
/// <para>FIFO queues (a name or URL ending in <c>.fifo</c>): the messages of one <c>MessageGroupId</c> are handled one
/// after another, in the order received; different groups run side by side, within <c>MaxConcurrency</c>. When a
/// message of a group is not handled (its handler failed, was cancelled, or chose to retry), the later messages of
/// its group from the same receive are not handled either: they are made visible again at once, and SQS delivers
/// them again after it, in order. A receive is also made when a handler slot is free and every waiting message waits
/// behind its group, so that other groups can run meanwhile.</para>
/// <para>Shutdown, precisely: once stopping begins no receive starts; a receive under way is let finish (within its
/// wait time) unless the transport can cancel it without loss, since SQS may still give messages to a long poll whose
/// request was abandoned, and they would stay invisible for their visibility timeout; messages received and not
/// started are released at once (made visible); a handler that ends with any exception after stopping began has its message released;
/// handled messages are deleted before the poller ends; when the host stops waiting for handlers that ignore
/// cancellation, their messages are released too (<see cref="ReleaseAbandonedAsync"/>). What remains is a handler
/// still running when the process exits: its message was released, so it may be handled again.</para>
/// </remarks>
[System.Diagnostics.CodeAnalysis.SuppressMessage("Design", "CA1001:Types that own disposable fields should be disposable", Justification = "The heartbeat and the batcher live for one run: RunAsync creates and disposes them.")]
internal sealed class QueuePoller
{
    private readonly IMessageTransport _transport;
    private readonly MessageDispatcher _dispatcher;
    private readonly string _queue;
    private readonly PollerOptions _options;
    private readonly TimeProvider _timeProvider;
    private readonly ILogger _logger;
    private readonly BusTelemetry _telemetry;
    private readonly bool _fifo;

    /// <summary>How long past its wait time a receive may run once stopping began before it is cancelled after all.</summary>
    private static readonly TimeSpan ReceiveOverrun = TimeSpan.FromSeconds(5);

    private readonly object _gate = new();
    private readonly Queue<SqsMessage> _ready = new();
    private readonly Dictionary<string, Queue<SqsMessage>> _groups = new(StringComparer.Ordinal);
    private int _running;
    private int _waiting;
    private int _releasing;
    private bool _stopping;
    private TaskCompletionSource? _room;
    private TaskCompletionSource? _idle;

    private VisibilityHeartbeat? _heartbeat;
    private DeleteBatcher? _deletes;
    private CancellationToken _stoppingToken;

    public QueuePoller(IMessageTransport transport, MessageDispatcher dispatcher, string queue, PollerOptions options, TimeProvider timeProvider, ILogger logger, BusTelemetry telemetry)
    {
        _telemetry = telemetry;
        _transport = transport;
        _dispatcher = dispatcher;
        _queue = queue;
        _options = options;
        _timeProvider = timeProvider;
        _logger = logger;
        _fifo = queue.EndsWith(".fifo", StringComparison.Ordinal);
    }

    /// <summary>Gets how many received messages the poller holds (being handled or waiting their turn).</summary>
    public int InFlight => _heartbeat?.Count ?? 0;

    public async Task RunAsync(CancellationToken stopping)
    {
        await Task.Yield();
        BusLog.PollerStarted(_logger, _queue, _options.MaxConcurrency);
        _stoppingToken = stopping;
        using VisibilityHeartbeat heartbeat = _heartbeat = new VisibilityHeartbeat(_transport, _queue, _options.VisibilityTimeout, _timeProvider, _logger);
        using DeleteBatcher deletes = _deletes = new DeleteBatcher(_transport, _queue, _timeProvider, _logger);
        int failures = 0;

        // A receive the transport cannot cancel without losing what it is given (an SQS long poll) is let finish when
        // stopping begins, and what it got is released; it is cancelled only if it outlasts its wait time by far.
        using var receiveEnds = _transport.IsReceiveCancellationSafe ? null : new CancellationTokenSource();
        using CancellationTokenRegistration stopped = receiveEnds is null ? default : stopping.Register(static state =>
        {
            var (source, wait) = ((CancellationTokenSource, TimeSpan))state!;
            source.CancelAfter(wait);
        }, (receiveEnds, _options.WaitTime + ReceiveOverrun));
        CancellationToken receiving = receiveEnds?.Token ?? stopping;
        try
        {
            while (!stopping.IsCancellationRequested)
            {
                if (WaitForRoom() is { } room)
                {
                    await room.WaitAsync(stopping).ConfigureAwait(false);
                }

                IReadOnlyList<SqsMessage> messages;
                long started = Stopwatch.GetTimestamp();
                try
                {
                    messages = await _transport.ReceiveAsync(_queue, _options.MaxMessagesPerReceive, _options.WaitTime, _options.VisibilityTimeout, receiving).ConfigureAwait(false);
                    _telemetry.ReceiveCalled(_queue, Stopwatch.GetElapsedTime(started), null);
                }
                catch (Exception e) when (e is not OperationCanceledException)
                {
                    _telemetry.ReceiveCalled(_queue, Stopwatch.GetElapsedTime(started), e);
                    TimeSpan delay = ReceiveBackoff(++failures);
                    BusLog.ReceiveFailed(_logger, _queue, delay, e);
                    await Task.Delay(delay, _timeProvider, stopping).ConfigureAwait(false);
                    continue;
                }

                failures = 0;
                if (messages.Count == 0)
                {
                    continue;
                }

                if (stopping.IsCancellationRequested)
                {
                    await ReleaseAsync(messages).ConfigureAwait(false);
                    BusLog.ReleasedUnstarted(_logger, messages.Count, _queue);
                    break;
                }

                Accept(messages);
                Pump();
            }
        }
        catch (OperationCanceledException) when (stopping.IsCancellationRequested)
        {
            // Shutdown: stop receiving.
        }

        // What waits is released at once; what runs finishes (its token is cancelled); what was handled is deleted.
        (List<SqsMessage> unstarted, Task idle) = Stop();
        if (unstarted.Count > 0)
        {
            await ReleaseAsync(unstarted).ConfigureAwait(false);
            BusLog.ReleasedUnstarted(_logger, unstarted.Count, _queue);
        }

        await idle.ConfigureAwait(false);
        await deletes.CompleteAsync().ConfigureAwait(false);
    }

    /// <summary>Makes the messages still held visible again: called when the host stopped waiting for their handlers.</summary>
    public async Task ReleaseAbandonedAsync()
    {
        List<SqsMessage> abandoned = _heartbeat?.DropAll() ?? [];
        if (abandoned.Count == 0)
        {
            return;
        }

        await ReleaseAsync(abandoned).ConfigureAwait(false);
        BusLog.AbandonedOnStop(_logger, abandoned.Count, _queue);
    }

    /// <summary>The wait after the <paramref name="failures"/>-th failed receive in a row: doubling from the configured delay, capped, with jitter.</summary>
    internal TimeSpan ReceiveBackoff(int failures)
    {
        double doubled = _options.ReceiveErrorDelay.TotalMilliseconds * Math.Pow(2, Math.Min(failures - 1, 20));
        double capped = Math.Min(doubled, _options.MaxReceiveErrorDelay.TotalMilliseconds);
        return TimeSpan.FromMilliseconds(capped * (0.5 + (Random.Shared.NextDouble() / 2)));
    }

    /// <summary>
    /// Whether a receive may be made now: no received message can start (none is ready) and either a handler slot is
    /// free (only FIFO messages behind their group wait) or nothing waits at all (one receive ahead). Under the lock.
    /// </summary>
    private bool CanReceive() => _ready.Count == 0 && (_running < _options.MaxConcurrency || _waiting == 0);

    /// <summary>Returns <c>null</c> when a receive may be made now, else a task that completes when one may.</summary>
    private Task? WaitForRoom()
    {
        lock (_gate)
        {
            if (CanReceive())
            {
                return null;
            }

            _room = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            return _room.Task;
        }
    }

    /// <summary>Holds received messages (the heartbeat keeps them invisible) and queues them: FIFO ones behind their group's.</summary>
    private void Accept(IReadOnlyList<SqsMessage> messages)
    {
        for (int i = 0; i < messages.Count; i++)
        {
            _heartbeat!.Hold(messages[i]);
        }

        lock (_gate)
        {
            for (int i = 0; i < messages.Count; i++)
            {
                SqsMessage message = messages[i];
                if (GroupOf(message) is { } group)
                {
                    if (_groups.TryGetValue(group, out Queue<SqsMessage>? behind))
                    {
                        behind.Enqueue(message); // its group has a message ready or running: it waits its turn
                        continue;
                    }

                    _groups[group] = new Queue<SqsMessage>();
                }

                _ready.Enqueue(message);
            }

            _waiting += messages.Count;
        }
    }

    /// <summary>Starts ready messages while handler slots are free; those that complete synchronously are completed here.</summary>
    private void Pump()
    {
        while (true)
        {
            SqsMessage? message;
            TaskCompletionSource? room;
            lock (_gate)
            {
                if (_stopping || _running >= _options.MaxConcurrency || !_ready.TryDequeue(out message))
                {
                    return;
                }

                _running++;
                _waiting--;
                room = TakeRoomSignal();
            }

            room?.TrySetResult();
            ValueTask<bool> processing = ProcessAsync(message);
            if (processing.IsCompleted)
            {
                Completed(message, processing.GetAwaiter().GetResult());
            }
            else
            {
                _ = CompleteLaterAsync(message, processing);
            }
        }
    }

    private async Task CompleteLaterAsync(SqsMessage message, ValueTask<bool> processing)
    {
        bool handled = await processing.ConfigureAwait(false);
        Completed(message, handled);
        Pump();
    }

    /// <summary>
    /// Handles one message to its end: dispatched, then deleted (through the batcher), released, retried later or
    /// dead-lettered as its outcome says. Returns whether it was handled (deleted or dead-lettered), which lets the
    /// next message of its FIFO group go.
    /// </summary>
    private async ValueTask<bool> ProcessAsync(SqsMessage message)
    {
        try
        {
            (DispatchOutcome outcome, string? eventType) = await _dispatcher.DispatchAsync(message, _queue, _stoppingToken).ConfigureAwait(false);
            switch (outcome)
            {
                case DispatchOutcome.Done:
                    _deletes!.Delete(message);
                    return true;
                case DispatchOutcome.Release:
                    await ReleaseAsync([message]).ConfigureAwait(false);
                    return false;
                case DispatchOutcome.DeadLetter when await _dispatcher.TryDeadLetterAsync(_transport, _options.DeadLetterQueue, message, _queue, eventType).ConfigureAwait(false):
                    _deletes!.Delete(message);
                    return true;
                default:
                    if (_options.RetryDelay is { } delay)
                    {
                        await _transport.ChangeVisibilityAsync(_queue, message.ReceiptHandle, delay, CancellationToken.None).ConfigureAwait(false);
                    }

                    return false;
            }
        }
        catch (Exception e) when (!ContentSafety.IsFatal(e))
        {
            // The transport failed to release or retry the message: it is still in the queue and comes back
            // after its visibility timeout. Polling goes on; without this the failure would go unobserved.
            BusLog.ProcessingFailed(_logger, message.MessageId, _queue, ContentSafety.ForLog(e, _dispatcher.LogMessageContent));
            return false;
        }
    }

    /// <summary>Ends a message's turn: frees its slot, lets its group's next message go (or releases the rest of the group).</summary>
    private void Completed(SqsMessage message, bool handled)
    {
        _heartbeat!.Drop(message);
        List<SqsMessage>? released = null;
        TaskCompletionSource? room, idle = null;
        lock (_gate)
        {
            _running--;
            if (GroupOf(message) is { } group && _groups.TryGetValue(group, out Queue<SqsMessage>? behind))
            {
                if (handled && behind.TryDequeue(out SqsMessage? next))
                {
                    _ready.Enqueue(next);
                }
                else
                {
                    _groups.Remove(group);
                    if (behind.Count > 0)
                    {
                        released = [.. behind];
                        _waiting -= released.Count;
                        _releasing++;
                    }
                }
            }

            room = TakeRoomSignal();
            if (_stopping && _running == 0 && _releasing == 0)
            {
                idle = _idle;
            }
        }

        room?.TrySetResult();
        idle?.TrySetResult();
        if (released is not null)
        {
            BusLog.GroupReleased(_logger, message.MessageId, _queue, released.Count);
            _ = ReleaseGroupAsync(released);
        }
    }

    private async Task ReleaseGroupAsync(List<SqsMessage> messages)
    {
        await ReleaseAsync(messages).ConfigureAwait(false);
        TaskCompletionSource? idle = null;
        lock (_gate)
        {
            if (--_releasing == 0 && _stopping && _running == 0)
            {
                idle = _idle;
            }
        }

        idle?.TrySetResult();
    }

    /// <summary>The receive loop's signal, taken when a receive may be made now. Under the lock.</summary>
    private TaskCompletionSource? TakeRoomSignal()
    {
        TaskCompletionSource? room = _room;
        if (room is null || !CanReceive())
        {
            return null;
        }

        _room = null;
        return room;
    }

    /// <summary>Stops starting messages: returns those received and not started (to be released), and a task that completes when no handler runs.</summary>
    private (List<SqsMessage> Unstarted, Task Idle) Stop()
    {
        lock (_gate)
        {
            _stopping = true;
            var unstarted = new List<SqsMessage>(_waiting);
            unstarted.AddRange(_ready);
            foreach (Queue<SqsMessage> behind in _groups.Values)
            {
                unstarted.AddRange(behind);
            }

            _ready.Clear();
            _groups.Clear();
            _waiting = 0;
            _idle = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            if (_running == 0 && _releasing == 0)
            {
                _idle.TrySetResult();
            }

            return (unstarted, _idle.Task);
        }
    }

    private string? GroupOf(SqsMessage message)
        => _fifo && message.SystemAttributes.TryGetValue(SqsSystemAttributes.MessageGroupId, out string? group) ? group : null;

    /// <summary>Makes messages visible again at once (and stops keeping them invisible); a failure is logged, and they come back after their visibility timeout.</summary>
    private async Task ReleaseAsync(IReadOnlyList<SqsMessage> messages)
    {
        var handles = new string[messages.Count];
        for (int i = 0; i < handles.Length; i++)
        {
            _heartbeat?.Drop(messages[i]);
            handles[i] = messages[i].ReceiptHandle;
        }

        try
        {
            await _transport.ChangeVisibilityBatchAsync(_queue, handles, TimeSpan.Zero, CancellationToken.None).ConfigureAwait(false);
        }
        catch (Exception e) when (e is not OutOfMemoryException)
        {
            BusLog.ProcessingFailed(_logger, messages[0].MessageId, _queue, e);
        }
    }
}
