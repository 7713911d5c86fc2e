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
/// One run of a <see cref="QueuePoller"/>, from its start to its stop: the receive loop, the admission of received
/// messages to handler slots (FIFO groups one message at a time), the heartbeat and the deletes. Created and disposed
/// per run, so no state outlives it.
/// </summary>
internal sealed partial class PollerRun : IDisposable
{
    /// <summary>How long past its wait time a receive may run once stopping began before it is cancelled after all.</summary>
    private static readonly TimeSpan ReceiveOverrun = TimeSpan.FromSeconds(5);

    /// <summary>How long past its wait time a receive may run at all: one that has not answered by then failed.</summary>
    private static readonly TimeSpan ReceiveDeadline = TimeSpan.FromSeconds(60);

    private readonly IMessageTransport _transport;
    private readonly MessageDispatcher _dispatcher;
    private readonly string _queue;
    private readonly PollerOptions _options;
    private readonly TimeProvider _timeProvider;
    private readonly ILogger _logger;
    private readonly BusTelemetry _telemetry;
    private readonly bool _fifo;
    private readonly VisibilityHeartbeat _heartbeat; // every visibility change of the run's messages
    private readonly DeleteBatcher _deletes;
    private readonly CancellationToken _stoppingToken;
    private readonly PollerHealth _health;
    private readonly object _gate = new();
    private readonly Queue<SqsMessage> _ready = new();
    private readonly Dictionary<string, Queue<SqsMessage>> _groups = new(StringComparer.Ordinal);
    private int _running;
    private int _waiting;
    private int _releasing;
    private bool _stopping;
    private TaskCompletionSource? _receiveWaiter;
    private TaskCompletionSource? _idle;

    public PollerRun(IMessageTransport transport, MessageDispatcher dispatcher, string queue, PollerOptions options, TimeProvider timeProvider, ILogger logger, BusTelemetry telemetry, PollerHealth health, CancellationToken stopping)
    {
        _health = health;
        _telemetry = telemetry;
        _transport = transport;
        _dispatcher = dispatcher;
        _queue = queue;
        _options = options;
        _timeProvider = timeProvider;
        _logger = logger;
        _fifo = FifoRule.IsFifo(queue);
        _stoppingToken = stopping;
        _heartbeat = new VisibilityHeartbeat(transport, queue, options.VisibilityTimeout, timeProvider, logger, health);
        _deletes = new DeleteBatcher(transport, queue, timeProvider, Max(options.VisibilityTimeout, TimeSpan.FromSeconds(5)), logger);
    }

    /// <summary>Gets how many received messages the run holds (being handled or waiting their turn).</summary>
    public int InFlight => _heartbeat.Count;

    public void Dispose()
    {
        _heartbeat.Dispose();
        _deletes.Dispose();
    }

    /// <summary>Receives and handles until <c>stopping</c> is cancelled; then releases what waits, lets what runs finish and deletes what was handled.</summary>
    public async Task RunAsync()
    {
        CancellationToken stopping = _stoppingToken;
        int failures = 0;
        _health.Started();

        // A receive the transport cannot cancel without losing what it is given (an SQS long poll) is let finish when
        // stopping begins, and what it got is released; it is cancelled only if it outlasts its wait time by far.
        // Registrations are unregistered, never disposed, here: a disposal waits for a callback under way on another
        // thread, and the callbacks below may run on the thread that stops the host.
        using var receiveEnds = _transport.IsReceiveCancellationSafe ? null : new CancellationTokenSource(Timeout.InfiniteTimeSpan, _timeProvider);
        CancellationTokenRegistration stopped = stopping.Register(static state =>
        {
            var (run, source, wait) = ((PollerRun, CancellationTokenSource?, TimeSpan))state!;
            if (source is not null)
            {
                Quietly(source, s => s.CancelAfter(wait));
            }

            run.StopWaitingToReceive();
        }, (this, receiveEnds, _options.WaitTime + ReceiveOverrun));
        CancellationToken receiving = receiveEnds?.Token ?? stopping;
        try
        {
            while (!stopping.IsCancellationRequested)
            {
                if (WaitUntilReceiveAllowed() is { } allowed)
                {
                    await allowed.ConfigureAwait(false); // cancelled when stopping begins
                }

                IReadOnlyList<SqsMessage> messages;
                long started = Stopwatch.GetTimestamp();
                DateTimeOffset requestedAt = _timeProvider.GetUtcNow(); // the messages' visibility starts no earlier
                try
                {
                    using var deadline = new CancellationTokenSource(_options.WaitTime + ReceiveDeadline, _timeProvider);
                    CancellationTokenRegistration link = receiving.UnsafeRegister(static state => Quietly((CancellationTokenSource)state!, static s => s.Cancel()), deadline);
                    try
                    {
                        messages = await _transport.ReceiveAsync(_queue, _options.MaxMessagesPerReceive, _options.WaitTime, _options.VisibilityTimeout, deadline.Token).ConfigureAwait(false);
                    }
                    finally
                    {
                        link.Unregister();
                    }

                    _telemetry.ReceiveCalled(_queue, Stopwatch.GetElapsedTime(started), null);
                }
                catch (Exception e) when (!stopping.IsCancellationRequested && !ContentSafety.IsFatal(e))
                {
                    // Outside shutdown every exception is a failed receive, the transport's own cancellations
                    // (an HTTP timeout) and the deadline above among them: back off, log, go on. A failure no retry
                    // clears is logged at Error once, when it begins, and tried again at the longest interval.
                    _telemetry.ReceiveCalled(_queue, Stopwatch.GetElapsedTime(started), e);
                    bool persistent = e is MessageTransportException { IsPersistent: true };
                    TimeSpan delay = persistent ? _options.MaxReceiveErrorDelay : ReceiveBackoff(_options, failures + 1);
                    failures++;
                    bool changed = _health.Failed(e, persistent);
                    if (!persistent)
                    {
                        // The first failure of a run is logged whole; later ones in one line each, and the run once at
                        // Error when it has lasted (a refused connection or an endpoint that does not resolve does not clear).
                        string code = (e as MessageTransportException)?.ErrorCode ?? e.GetType().Name;
                        if (failures == 1)
                        {
                            BusLog.ReceiveFailed(_logger, _queue, delay, e);
                        }
                        else if (failures == FailuresBeforeError)
                        {
                            BusLog.ReceiveFailingRepeatedly(_logger, _queue, failures, code, e.Message, _options.MaxReceiveErrorDelay);
                        }
                        else
                        {
                            BusLog.ReceiveFailedAgain(_logger, _queue, failures, code, delay);
                        }
                    }
                    else if (changed)
                    {
                        BusLog.ReceiveFailingPersistently(_logger, _queue, ((MessageTransportException)e).ErrorCode ?? "error", delay, e);
                    }

                    await ClockDelay.WaitAsync(_timeProvider, delay, stopping).ConfigureAwait(false);
                    continue;
                }

                if (_health.Received(_timeProvider.GetUtcNow()) is > 0 and int failed)
                {
                    BusLog.ReceiveRecovered(_logger, _queue, failed);
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

                Accept(messages, requestedAt);
                Pump();
            }
        }
        catch (Exception e) when (stopping.IsCancellationRequested && !ContentSafety.IsFatal(e))
        {
            // Shutdown: stop receiving (a receive under way may end with its own exception then).
        }
        finally
        {
            stopped.Unregister();
            _health.Stopped();

            // Whatever ended the loop: what waits is released at once; what runs finishes (its token is cancelled);
            // what was handled is deleted.
            (List<SqsMessage> unstarted, Task idle) = Stop();
            if (unstarted.Count > 0)
            {
                await ReleaseAsync(unstarted).ConfigureAwait(false);
                BusLog.ReleasedUnstarted(_logger, unstarted.Count, _queue);
            }

            await idle.ConfigureAwait(false);
            await _deletes.CompleteAsync().ConfigureAwait(false);
        }
    }

    /// <summary>Makes the messages still held visible again: called when the host stopped waiting for their handlers.</summary>
    /// <param name="budget">How long each release call may take.</param>
    public async Task ReleaseAbandonedAsync(TimeSpan budget)
    {
        List<SqsMessage> abandoned = _heartbeat.DropAll();
        if (abandoned.Count == 0)
        {
            return;
        }

        await _heartbeat.SetVisibilityAsync(abandoned, TimeSpan.Zero, budget).ConfigureAwait(false);
        BusLog.AbandonedOnStop(_logger, abandoned.Count, _queue);
    }

    /// <summary>How many transient receive failures in a row make one Error line.</summary>
    internal const int FailuresBeforeError = 3;

    /// <summary>The wait after the <paramref name="failures"/>-th failed receive in a row: doubling from the configured delay, capped, with jitter.</summary>
    internal static TimeSpan ReceiveBackoff(PollerOptions options, int failures)
    {
        double doubled = options.ReceiveErrorDelay.TotalMilliseconds * Math.Pow(2, Math.Min(failures - 1, 20));
        double capped = Math.Min(doubled, options.MaxReceiveErrorDelay.TotalMilliseconds);
        return TimeSpan.FromMilliseconds(capped * (0.5 + (Random.Shared.NextDouble() / 2)));
    }

    /// <summary>
    /// Whether a receive may be made now: no received message can start (none is ready) and either a handler slot is
    /// free (only FIFO messages behind their group wait) or nothing waits at all (one receive ahead). Under the lock.
    /// </summary>
    private bool CanReceive() => _ready.Count == 0 && (_running < _options.MaxConcurrency || _waiting == 0);

    /// <summary>Returns <c>null</c> when a receive may be made now, else a task that completes when one may (cancelled when stopping begins).</summary>
    private Task? WaitUntilReceiveAllowed()
    {
        lock (_gate)
        {
            if (_stoppingToken.IsCancellationRequested)
            {
                return Task.FromCanceled(_stoppingToken);
            }

            if (CanReceive())
            {
                return null;
            }

            _receiveWaiter = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            return _receiveWaiter.Task;
        }
    }

    /// <summary>
    /// Cancels a source a registration callback holds. <c>Unregister</c> does not wait for a callback already running on
    /// the thread that stops the host, so the callback may reach the source after the receive it bounded ended and
    /// disposed it: then there is nothing left to cancel, and the stop must not fail for it.
    /// </summary>
    private static void Quietly(CancellationTokenSource source, Action<CancellationTokenSource> cancel)
    {
        try
        {
            cancel(source);
        }
        catch (ObjectDisposedException)
        {
        }
    }

    /// <summary>Stopping began: the receive loop no longer waits to receive.</summary>
    private void StopWaitingToReceive()
    {
        TaskCompletionSource? receiveWaiter;
        lock (_gate)
        {
            receiveWaiter = _receiveWaiter;
            _receiveWaiter = null;
        }

        receiveWaiter?.TrySetCanceled(_stoppingToken);
    }

    /// <summary>The receive loop's waiter, taken (to be completed) when a receive may be made now. Under the lock.</summary>
    private TaskCompletionSource? TakeReceiveWaiterIfAllowed()
    {
        TaskCompletionSource? receiveWaiter = _receiveWaiter;
        if (receiveWaiter is null || !CanReceive())
        {
            return null;
        }

        _receiveWaiter = null;
        return receiveWaiter;
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

    /// <summary>Makes messages visible again at once (and stops keeping them invisible); a failure is logged, and they come back after their visibility timeout.</summary>
    private Task ReleaseAsync(IReadOnlyList<SqsMessage> messages) => _heartbeat.SetVisibilityAsync(messages, TimeSpan.Zero);

    private static TimeSpan Max(TimeSpan a, TimeSpan b) => a > b ? a : b;
}
