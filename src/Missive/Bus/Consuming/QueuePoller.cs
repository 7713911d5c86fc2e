using System;
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
internal sealed class QueuePoller
{
    private readonly IMessageTransport _transport;
    private readonly MessageDispatcher _dispatcher;
    private readonly string _queue;
    private readonly PollerOptions _options;
    private readonly TimeProvider _timeProvider;
    private readonly ILogger _logger;
    private readonly BusTelemetry _telemetry;
    private readonly PollerHealth _health;
    private PollerRun? _run; // the current or last run

    public QueuePoller(IMessageTransport transport, MessageDispatcher dispatcher, string queue, PollerOptions options, TimeProvider timeProvider, ILogger logger, BusTelemetry telemetry, PollerHealth health)
    {
        _health = health;
        _transport = transport;
        _dispatcher = dispatcher;
        _queue = queue;
        _options = options;
        _timeProvider = timeProvider;
        _logger = logger;
        _telemetry = telemetry;
    }

    /// <summary>Gets how many received messages the poller holds (being handled or waiting their turn).</summary>
    public int InFlight => Volatile.Read(ref _run)?.InFlight ?? 0;

    /// <summary>Runs the poller until <paramref name="stopping"/> is cancelled (see the remarks for what stopping does).</summary>
    public async Task RunAsync(CancellationToken stopping)
    {
        await Task.Yield();
        BusLog.PollerStarted(_logger, _queue, _options.MaxConcurrency);
        using var run = new PollerRun(_transport, _dispatcher, _queue, _options, _timeProvider, _logger, _telemetry, _health, stopping);
        Volatile.Write(ref _run, run);
        await run.RunAsync().ConfigureAwait(false);
    }

    /// <summary>Makes the messages still held visible again: called when the host stopped waiting for their handlers.</summary>
    /// <param name="budget">How long each release call may take.</param>
    public Task ReleaseAbandonedAsync(TimeSpan budget) => Volatile.Read(ref _run)?.ReleaseAbandonedAsync(budget) ?? Task.CompletedTask;
}
