using System;
using System.Collections.Generic;
using System.Threading.Tasks;
using Missive.Transport;

namespace Missive.Bus;

/// <content>Handling: messages accepted from a receive, started as slots and FIFO groups allow, and what each outcome does with its message.</content>
internal sealed partial class PollerRun
{
    /// <summary>Holds received messages (the heartbeat keeps them invisible) and queues them: FIFO ones behind their group's.</summary>
    private void Accept(IReadOnlyList<SqsMessage> messages, DateTimeOffset requestedAt)
    {
        for (int i = 0; i < messages.Count; i++)
        {
            _heartbeat.Hold(messages[i], requestedAt);
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

    /// <summary>
    /// Starts ready messages while handler slots are free; those that complete synchronously are completed here. Every
    /// message's delete is queued before its slot is freed, so the deletes this burst queued are settled at its end.
    /// </summary>
    private void Pump()
    {
        try
        {
            StartReady();
        }
        finally
        {
            _deletes.Settle();
        }
    }

    private void StartReady()
    {
        while (true)
        {
            SqsMessage? message;
            TaskCompletionSource? receiveWaiter;
            lock (_gate)
            {
                if (_stopping || _running >= _options.MaxConcurrency || !_ready.TryDequeue(out message))
                {
                    return;
                }

                _running++;
                _waiting--;
                receiveWaiter = TakeReceiveWaiterIfAllowed();
            }

            receiveWaiter?.TrySetResult();
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
        bool handled = false;
        try
        {
            handled = await processing.ConfigureAwait(false);
        }
        finally
        {
            // Whatever happened, the slot is freed (ProcessAsync catches everything but fatal exceptions).
            Completed(message, handled);
            Pump();
        }
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
            (DispatchOutcome outcome, string? eventType) = await _dispatcher.DispatchAsync(message, _queue, _options.NativeMessages, _stoppingToken).ConfigureAwait(false);
            switch (outcome)
            {
                case DispatchOutcome.Done:
                    _deletes.Delete(message);
                    return true;
                case DispatchOutcome.Release:
                    await ReleaseAsync([message]).ConfigureAwait(false);
                    return false;
                case DispatchOutcome.DeadLetter when await _dispatcher.TryDeadLetterAsync(_transport, _options.DeadLetterQueue, message, _queue, eventType).ConfigureAwait(false):
                    _deletes.Delete(message);
                    return true;
                default:
                    if (_options.RetryDelay is { } delay)
                    {
                        await _heartbeat.SetVisibilityAsync([message], delay).ConfigureAwait(false);
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
        _heartbeat.Drop(message);
        List<SqsMessage>? released = null;
        TaskCompletionSource? receiveWaiter, idle = null;
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

            receiveWaiter = TakeReceiveWaiterIfAllowed();
            if (_stopping && _running == 0 && _releasing == 0)
            {
                idle = _idle;
            }
        }

        receiveWaiter?.TrySetResult();
        idle?.TrySetResult();
        if (released is not null)
        {
            BusLog.GroupReleased(_logger, message.MessageId, _queue, released.Count);
            _ = ReleaseGroupAsync(released);
        }
    }

    private async Task ReleaseGroupAsync(List<SqsMessage> messages)
    {
        try
        {
            await ReleaseAsync(messages).ConfigureAwait(false);
        }
        finally
        {
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
    }


    private string? GroupOf(SqsMessage message)
        => _fifo && message.SystemAttributes.TryGetValue(SqsSystemAttributes.MessageGroupId, out string? group) ? group : null;
}
