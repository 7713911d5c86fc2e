using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.Logging;
using Missive.Transport;

namespace Missive.Bus;

/// <summary>
/// Polls one queue: receives up to the free handler slots, handles each message in its own DI scope with a
/// visibility heartbeat, deletes handled messages in batches, backs off exponentially after failed receives,
/// and on shutdown leaves no message invisible that was not handled.
/// </summary>
/// <remarks>
/// Shutdown, precisely: once stopping begins no receive starts; messages a receive returned after that are
/// released at once (made visible); a handler that ends with any exception after stopping began has its message
/// released; handled messages are deleted before the poller ends; when the host stops waiting for handlers that
/// ignore cancellation, their messages are released too (<see cref="ReleaseAbandonedAsync"/>). What remains is a
/// handler still running when the process exits: its message was released, so it may be handled again.
/// </remarks>
internal sealed class QueuePoller
{
    private readonly IMessageTransport _transport;
    private readonly MessageDispatcher _dispatcher;
    private readonly string _queue;
    private readonly PollerOptions _options;
    private readonly TimeProvider _timeProvider;
    private readonly ILogger _logger;
    private readonly ConcurrentDictionary<string, SqsMessage> _inFlight = new(StringComparer.Ordinal);

    public QueuePoller(IMessageTransport transport, MessageDispatcher dispatcher, string queue, PollerOptions options, TimeProvider timeProvider, ILogger logger)
    {
        _transport = transport;
        _dispatcher = dispatcher;
        _queue = queue;
        _options = options;
        _timeProvider = timeProvider;
        _logger = logger;
    }

    /// <summary>Gets how many received messages are being handled.</summary>
    public int InFlight => _inFlight.Count;

    public async Task RunAsync(CancellationToken stopping)
    {
        await Task.Yield();
        BusLog.PollerStarted(_logger, _queue, _options.MaxConcurrency);
        var deletes = new DeleteBatcher(_transport, _queue, _logger);
        using var slots = new SemaphoreSlim(_options.MaxConcurrency, _options.MaxConcurrency);
        var handlers = new ConcurrentDictionary<Task, bool>();
        int failures = 0;
        try
        {
            while (true)
            {
                await slots.WaitAsync(stopping).ConfigureAwait(false);
                if (stopping.IsCancellationRequested)
                {
                    slots.Release(); // a slot freed by a cancelled handler can win the race with cancellation
                    break;
                }

                int wanted = Math.Min(_options.MaxMessagesPerReceive, slots.CurrentCount + 1);
                IReadOnlyList<SqsMessage> messages;
                try
                {
                    messages = await _transport.ReceiveAsync(_queue, wanted, _options.WaitTime, _options.VisibilityTimeout, stopping).ConfigureAwait(false);
                }
                catch (Exception e) when (e is not OperationCanceledException)
                {
                    slots.Release();
                    TimeSpan delay = ReceiveBackoff(++failures);
                    BusLog.ReceiveFailed(_logger, _queue, delay, e);
                    await Task.Delay(delay, _timeProvider, stopping).ConfigureAwait(false);
                    continue;
                }

                failures = 0;
                if (messages.Count == 0)
                {
                    slots.Release();
                    continue;
                }

                if (stopping.IsCancellationRequested)
                {
                    slots.Release();
                    await ReleaseAsync(messages).ConfigureAwait(false);
                    BusLog.ReleasedUnstarted(_logger, messages.Count, _queue);
                    break;
                }

                // One slot is held already; take one more for each further message (there is room: wanted <= free + 1).
                for (int i = 1; i < messages.Count; i++)
                {
                    await slots.WaitAsync(CancellationToken.None).ConfigureAwait(false);
                }

                foreach (SqsMessage message in messages)
                {
                    _inFlight[message.ReceiptHandle] = message;
                    Task handler = ProcessAsync(message, slots, deletes, stopping);
                    handlers[handler] = true;
                    _ = handler.ContinueWith(static (t, state) => ((ConcurrentDictionary<Task, bool>)state!).TryRemove(t, out _), handlers, CancellationToken.None, TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
                }
            }
        }
        catch (OperationCanceledException) when (stopping.IsCancellationRequested)
        {
            // Shutdown: stop receiving; the handlers in flight finish or release their messages.
        }

        await Task.WhenAll(handlers.Keys).ConfigureAwait(false);
        await deletes.CompleteAsync().ConfigureAwait(false);
    }

    /// <summary>Makes the messages still in flight visible again: called when the host stopped waiting for their handlers.</summary>
    public async Task ReleaseAbandonedAsync()
    {
        var abandoned = new List<SqsMessage>(_inFlight.Values);
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

    private async Task ProcessAsync(SqsMessage message, SemaphoreSlim slots, DeleteBatcher deletes, CancellationToken stopping)
    {
        try
        {
            DispatchOutcome outcome;
            string? eventType;
            var heartbeat = new VisibilityHeartbeat(_transport, _queue, message, _options.VisibilityTimeout, _timeProvider, _logger);
            await using (heartbeat.ConfigureAwait(false))
            {
                (outcome, eventType) = await _dispatcher.DispatchAsync(message, _queue, stopping).ConfigureAwait(false);
            }

            switch (outcome)
            {
                case DispatchOutcome.Done:
                    deletes.Delete(message.ReceiptHandle, message.MessageId);
                    break;
                case DispatchOutcome.Release:
                    await ReleaseAsync([message]).ConfigureAwait(false);
                    break;
                case DispatchOutcome.DeadLetter:
                    if (await _dispatcher.TryDeadLetterAsync(_transport, _options.DeadLetterQueue, message, _queue, eventType).ConfigureAwait(false))
                    {
                        deletes.Delete(message.ReceiptHandle, message.MessageId);
                    }
                    else
                    {
                        await RetryLaterAsync(message).ConfigureAwait(false);
                    }

                    break;
                default:
                    await RetryLaterAsync(message).ConfigureAwait(false);
                    break;
            }
        }
        catch (Exception e)
        {
            // The transport failed to release or retry the message: it is still in the queue and comes back
            // after its visibility timeout. Polling goes on; without this the failure would go unobserved.
            BusLog.ProcessingFailed(_logger, message.MessageId, _queue, e);
        }
        finally
        {
            _inFlight.TryRemove(message.ReceiptHandle, out _);
            slots.Release();
        }
    }

    private Task RetryLaterAsync(SqsMessage message)
        => _options.RetryDelay is { } delay
            ? _transport.ChangeVisibilityAsync(_queue, message.ReceiptHandle, delay, CancellationToken.None)
            : Task.CompletedTask;

    private async Task ReleaseAsync(IReadOnlyList<SqsMessage> messages)
    {
        var handles = new string[messages.Count];
        for (int i = 0; i < handles.Length; i++)
        {
            handles[i] = messages[i].ReceiptHandle;
            _inFlight.TryRemove(handles[i], out _);
        }

        try
        {
            await _transport.ChangeVisibilityBatchAsync(_queue, handles, TimeSpan.Zero, CancellationToken.None).ConfigureAwait(false);
        }
        catch (Exception e) when (e is not OutOfMemoryException)
        {
            BusLog.ProcessingFailed(_logger, messages[0].MessageId, _queue, e); // they come back after their visibility timeout
        }
    }
}
