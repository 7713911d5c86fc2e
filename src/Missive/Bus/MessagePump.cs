using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;
using Missive.Transport;

namespace Missive.Bus;

/// <summary>
/// The hosted service that polls the configured queues: receives, reads, dispatches to the handler in
/// a new DI scope, deletes on success, and on failure leaves the message to come back (after
/// <see cref="PollerOptions.RetryDelay"/> or its visibility timeout) until the queue dead-letters it.
/// </summary>
/// <remarks>
/// Nothing is lost: a message is deleted only after its handler returned. An unreadable body, a
/// missing handler or a failing handler all leave the message in the queue. On shutdown receiving
/// stops, handlers see their token cancelled, and every message whose handler did not finish is made
/// visible again at once.
/// </remarks>
internal sealed class MessagePump : BackgroundService
{
    private static readonly TimeSpan ReceiveErrorDelay = TimeSpan.FromSeconds(1);

    private readonly IMessageTransport _transport;
    private readonly InboundMessageReader _reader;
    private readonly IServiceScopeFactory _scopes;
    private readonly BusConfiguration _configuration;
    private readonly ILogger _logger;

    public MessagePump(IMessageTransport transport, InboundMessageReader reader, IServiceScopeFactory scopes, BusConfiguration configuration, ILogger<MessagePump>? logger = null)
    {
        _transport = transport;
        _reader = reader;
        _scopes = scopes;
        _configuration = configuration;
        _logger = logger ?? NullLogger<MessagePump>.Instance;
    }

    protected override Task ExecuteAsync(CancellationToken stoppingToken)
    {
        var pollers = new List<Task>(_configuration.Pollers.Count);
        foreach ((string queue, PollerOptions options) in _configuration.Pollers)
        {
            pollers.Add(PollAsync(queue, options, stoppingToken));
        }

        return Task.WhenAll(pollers);
    }

    private async Task PollAsync(string queue, PollerOptions options, CancellationToken stoppingToken)
    {
        await Task.Yield();
        BusLog.PollerStarted(_logger, queue, options.MaxConcurrency);
        using var slots = new SemaphoreSlim(options.MaxConcurrency, options.MaxConcurrency);
        var inFlight = new ConcurrentDictionary<Task, bool>();
        try
        {
            while (!stoppingToken.IsCancellationRequested)
            {
                await slots.WaitAsync(stoppingToken).ConfigureAwait(false);
                int wanted = Math.Min(options.MaxMessagesPerReceive, slots.CurrentCount + 1);
                IReadOnlyList<SqsMessage> messages;
                try
                {
                    messages = await _transport.ReceiveAsync(queue, wanted, options.WaitTime, options.VisibilityTimeout, stoppingToken).ConfigureAwait(false);
                }
                catch (Exception e) when (e is not OperationCanceledException)
                {
                    slots.Release();
                    BusLog.ReceiveFailed(_logger, queue, ReceiveErrorDelay, e);
                    await Task.Delay(ReceiveErrorDelay, stoppingToken).ConfigureAwait(false);
                    continue;
                }

                if (messages.Count == 0)
                {
                    slots.Release();
                    continue;
                }

                // One slot is held already; take one more for each further message (there is room: wanted <= free + 1).
                for (int i = 1; i < messages.Count; i++)
                {
                    await slots.WaitAsync(CancellationToken.None).ConfigureAwait(false);
                }

                foreach (SqsMessage message in messages)
                {
                    Task task = ProcessAsync(queue, options, message, slots, stoppingToken);
                    inFlight[task] = true;
                    _ = task.ContinueWith(static (t, state) => ((ConcurrentDictionary<Task, bool>)state!).TryRemove(t, out _), inFlight, CancellationToken.None, TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
                }
            }
        }
        catch (OperationCanceledException) when (stoppingToken.IsCancellationRequested)
        {
            // Shutdown: stop receiving; the handlers in flight finish or release their messages below.
        }

        await Task.WhenAll(inFlight.Keys).ConfigureAwait(false);
    }

    private async Task ProcessAsync(string queue, PollerOptions options, SqsMessage message, SemaphoreSlim slots, CancellationToken stoppingToken)
    {
        int receiveCount = message.ReceiveCount;
        try
        {
            InboundMessage inbound;
            try
            {
                inbound = _reader.Read(message);
            }
            catch (InvalidEnvelopeException e)
            {
                BusLog.EnvelopeUnreadable(_logger, message.MessageId, queue, receiveCount, e.Reason, e.Position, e);
                await RetryLaterAsync(queue, options, message).ConfigureAwait(false);
                return;
            }

            if (inbound.Envelope is not { } envelope)
            {
                BusLog.ControlMessageSkipped(_logger, message.MessageId, queue);
                await _transport.DeleteAsync(queue, message.ReceiptHandle, CancellationToken.None).ConfigureAwait(false);
                return;
            }

            if (!_configuration.Handlers.TryGetValue(envelope.MessageType, out HandlerInvoker? invoker))
            {
                BusLog.NoHandler(_logger, envelope.MessageType.FullName ?? envelope.MessageType.Name, message.MessageId, queue);
                await RetryLaterAsync(queue, options, message).ConfigureAwait(false);
                return;
            }

            try
            {
                AsyncServiceScope scope = _scopes.CreateAsyncScope();
                await using (scope.ConfigureAwait(false))
                {
                    await invoker.InvokeAsync(scope.ServiceProvider, envelope, stoppingToken).ConfigureAwait(false);
                }
            }
            catch (OperationCanceledException) when (stoppingToken.IsCancellationRequested)
            {
                BusLog.ReleasedOnShutdown(_logger, message.MessageId, queue);
                await _transport.ChangeVisibilityAsync(queue, message.ReceiptHandle, TimeSpan.Zero, CancellationToken.None).ConfigureAwait(false);
                return;
            }
            catch (Exception e)
            {
                BusLog.HandlerFailed(_logger, message.MessageId, envelope.MessageType.Name, queue, receiveCount, e);
                await RetryLaterAsync(queue, options, message).ConfigureAwait(false);
                return;
            }

            if (!await _transport.DeleteAsync(queue, message.ReceiptHandle, CancellationToken.None).ConfigureAwait(false))
            {
                BusLog.DeleteFailed(_logger, message.MessageId, queue);
            }
        }
        catch (Exception e)
        {
            // The transport failed to delete, release or retry the message: it is still in the queue and comes
            // back after its visibility timeout. Polling goes on; without this the failure would go unobserved.
            BusLog.ProcessingFailed(_logger, message.MessageId, queue, e);
        }
        finally
        {
            slots.Release();
        }
    }

    private Task RetryLaterAsync(string queue, PollerOptions options, SqsMessage message)
        => options.RetryDelay is { } delay
            ? _transport.ChangeVisibilityAsync(queue, message.ReceiptHandle, delay, CancellationToken.None)
            : Task.CompletedTask;
}
