using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using Missive.Diagnostics;
using Missive.Offload;
using Missive.Transport;

namespace Missive.Bus;

/// <summary>
/// Takes one received message from its body to its handler: reads the envelope, finds the handler (or the fallback
/// handler for a type nobody registered), and runs the handling middleware and the handler in a DI scope of their own,
/// inside a consumer span, counting what happens. The queue poller and the Lambda processor act on the outcome.
/// </summary>
internal sealed class MessageDispatcher
{
    private readonly PayloadResolver? _payloads;
    private readonly InboundMessageReader _reader;
    private readonly IServiceScopeFactory _scopes;
    private readonly BusConfiguration _configuration;
    private readonly BusTelemetry _telemetry;
    private readonly ILogger _logger;
    private readonly bool _logContent;

    public MessageDispatcher(InboundMessageReader reader, IServiceScopeFactory scopes, BusConfiguration configuration, BusTelemetry telemetry, ILogger logger, PayloadResolver? payloads = null)
    {
        _payloads = payloads;
        _reader = reader;
        _scopes = scopes;
        _configuration = configuration;
        _telemetry = telemetry;
        _logger = logger;
        _logContent = reader.LogMessageContent;
    }

    /// <summary>Gets whether message content may appear in logs (<c>SerializationOptions.LogMessageContent</c>).</summary>
    public bool LogMessageContent => _logContent;

    /// <summary>Reads a received message and hands it to its handler; a pointer to a stored payload is resolved first (with <c>UsePayloadOffload</c>).</summary>
    /// <param name="message">The message as received.</param>
    /// <param name="queue">The queue it came from.</param>
    /// <param name="native">How bodies that are not envelopes are read on that queue; <c>null</c> or empty: every body is an envelope.</param>
    /// <param name="stopping">Cancelled when the host stops.</param>
    public ValueTask<(DispatchOutcome Outcome, string? EventType)> DispatchAsync(SqsMessage message, string queue, NativeMessageRules? native, CancellationToken stopping)
        => _payloads is null ? DispatchReadAsync(message, queue, native, stopping) : ResolveAndDispatchAsync(_payloads, message, queue, native, stopping);

    /// <summary>A pointer becomes the message as sent; one that cannot be resolved is unreadable, like a body that cannot be read.</summary>
    private async ValueTask<(DispatchOutcome Outcome, string? EventType)> ResolveAndDispatchAsync(PayloadResolver payloads, SqsMessage message, string queue, NativeMessageRules? native, CancellationToken stopping)
    {
        SqsMessage resolved;
        try
        {
            resolved = await payloads.ResolveAsync(message, stopping).ConfigureAwait(false);
        }
        catch (InvalidEnvelopeException e)
        {
            _telemetry.Received(queue, message.ReceiveCount);
            return Unreadable(message, queue, message.ReceiveCount, e);
        }
        catch (OperationCanceledException) when (stopping.IsCancellationRequested)
        {
            BusLog.ReleasedOnShutdown(_logger, message.MessageId, queue); // stopped while its payload was fetched: back at once
            return (DispatchOutcome.Release, null);
        }

        return await DispatchReadAsync(resolved, queue, native, stopping).ConfigureAwait(false);
    }

    private async ValueTask<(DispatchOutcome Outcome, string? EventType)> DispatchReadAsync(SqsMessage message, string queue, NativeMessageRules? native, CancellationToken stopping)
    {
        int receiveCount = message.ReceiveCount;
        _telemetry.Received(queue, receiveCount);
        InboundMessage inbound;
        try
        {
            inbound = _reader.Read(message, native);
        }
        catch (InvalidEnvelopeException e)
        {
            return Unreadable(message, queue, receiveCount, e);
        }

        RecordSize(queue, message, inbound.Envelope?.Type);
        if (inbound.Envelope is not { } envelope)
        {
            BusLog.ControlMessageSkipped(_logger, message.MessageId, queue, inbound.Kind == InboundMessageKind.S3TestEvent ? "S3's test event" : "an SNS subscription control message");
            return (DispatchOutcome.Done, null);
        }

        if (!_configuration.Handlers.TryGetValue(envelope.MessageType, out HandleStep? handler))
        {
            if (envelope is not MessageEnvelope<UnregisteredMessage> || !_configuration.HasFallbackHandler)
            {
                BusLog.NoHandler(_logger, envelope.MessageType.FullName ?? envelope.MessageType.Name, message.MessageId, queue);
                _telemetry.Processed(queue, envelope.Type, null, "NoHandler");
                return (DispatchOutcome.RetryLater, envelope.Type);
            }

            handler = FallbackHandler.Instance;
        }

        using Activity? activity = BusTelemetry.StartProcess(queue, message.MessageId, envelope);
        long started = Stopwatch.GetTimestamp();
        HandleOutcome outcome;
        try
        {
            // The scope itself, disposed as AsyncServiceScope disposes it, without boxing that struct for each message.
            IServiceScope scope = _scopes.CreateScope();
            try
            {
                var context = new HandleContext(envelope, message, queue, scope.ServiceProvider, stopping);
                await Pipeline(scope.ServiceProvider, handler)(context).ConfigureAwait(false);
                outcome = context.Outcome;
                if (!IsOutcome(outcome))
                {
                    throw new PipelineException($"The handling decided an outcome of {(int)outcome}, which is not a HandleOutcome.");
                }
            }
            finally
            {
                if (scope is IAsyncDisposable asynchronous)
                {
                    await asynchronous.DisposeAsync().ConfigureAwait(false);
                }
                else
                {
                    scope.Dispose();
                }
            }
        }
        catch (Exception e) when (stopping.IsCancellationRequested && !ContentSafety.IsFatal(e))
        {
            // Cancelled by shutdown, or failed while it was under way (a handler may turn the
            // cancellation into another exception): the message goes back at once, not after its timeout.
            BusTelemetry.Fail(activity, e, _logContent);
            BusLog.ReleasedOnShutdown(_logger, message.MessageId, queue);
            return (DispatchOutcome.Release, envelope.Type);
        }
        catch (Exception e) when (!ContentSafety.IsFatal(e))
        {
            // The application's code failed (a handler, a middleware, the fallback handler), whatever it threw, an
            // OperationCanceledException that is not the host's among it: the message is retried. What it threw goes
            // into the log whole only when content may be shown (its message may hold content).
            BusTelemetry.Fail(activity, e, _logContent);
            BusLog.HandlerFailed(_logger, message.MessageId, envelope.MessageType.Name, queue, receiveCount, ContentSafety.ForLog(e, _logContent));
            _telemetry.Processed(queue, envelope.Type, Stopwatch.GetElapsedTime(started), e.GetType().FullName);
            return (DispatchOutcome.RetryLater, envelope.Type);
        }

        TimeSpan elapsed = Stopwatch.GetElapsedTime(started);
        switch (outcome)
        {
            case HandleOutcome.RetryLater:
                BusTelemetry.Fail(activity, nameof(HandleOutcome.RetryLater));
                BusLog.RetryChosen(_logger, message.MessageId, envelope.Type, queue, receiveCount);
                _telemetry.Processed(queue, envelope.Type, elapsed, nameof(HandleOutcome.RetryLater));
                return (DispatchOutcome.RetryLater, envelope.Type);
            case HandleOutcome.DeadLetter:
                BusTelemetry.Fail(activity, nameof(HandleOutcome.DeadLetter));
                _telemetry.Processed(queue, envelope.Type, elapsed, nameof(HandleOutcome.DeadLetter), counted: false);
                return (DispatchOutcome.DeadLetter, envelope.Type);
            default:
                _telemetry.Processed(queue, envelope.Type, elapsed, null);
                if (_logger.IsEnabled(LogLevel.Debug))
                {
                    BusLog.MessageHandled(_logger, message.MessageId, envelope.Type, queue, elapsed.TotalMilliseconds);
                }

                return (DispatchOutcome.Done, envelope.Type);
        }
    }

    /// <summary>
    /// Whether <paramref name="outcome"/> is one of <see cref="HandleOutcome"/>'s members. Not <c>Enum.IsDefined</c>: in a
    /// profile of the pump it rebuilt the enum's table of values by reflection again and again (its per-type cache did not hold).
    /// </summary>
    private static bool IsOutcome(HandleOutcome outcome) => (uint)outcome <= (uint)HandleOutcome.DeadLetter;

    /// <summary>A message that cannot be read (or whose payload cannot be fetched): logged without content, left to be received again.</summary>
    private (DispatchOutcome Outcome, string? EventType) Unreadable(SqsMessage message, string queue, int receiveCount, InvalidEnvelopeException e)
    {
        RecordSize(queue, message, null);
        if (e.Reason == InvalidEnvelopeReason.UnknownMessageType)
        {
            BusLog.UnknownMessageType(_logger, message.MessageId, queue, receiveCount, e.UnknownType, e);
        }
        else
        {
            BusLog.EnvelopeUnreadable(_logger, message.MessageId, queue, receiveCount, e);
        }

        _telemetry.Processed(queue, null, null, e.Reason.ToString());
        return (DispatchOutcome.RetryLater, null);
    }

    private void RecordSize(string queue, SqsMessage message, string? eventType)
    {
        if (_telemetry.MeasuresEnvelopeSize)
        {
            _telemetry.EnvelopeReceived(queue, message.Utf8Length, eventType);
        }
    }

    /// <summary>Builds the handling pipeline: the middleware in registration order (the first outermost) around the handler.</summary>
    private HandleStep Pipeline(IServiceProvider services, HandleStep handler)
    {
        List<Type> middleware = _configuration.HandleMiddleware;
        HandleStep next = handler;
        for (int i = middleware.Count - 1; i >= 0; i--)
        {
            var step = (IHandleMiddleware)services.GetRequiredService(middleware[i]);
            HandleStep inner = next;
            next = context => step.InvokeAsync(context, inner);
        }

        return next;
    }

    /// <summary>
    /// Moves a message whose handling chose <see cref="HandleOutcome.DeadLetter"/> to the dead-letter queue: sends it
    /// there as received (body and attributes; for a FIFO queue its group, deduplicated by its message id). Returns
    /// whether it was sent, after which the caller deletes it (or reports it handled). Without a dead-letter queue or
    /// a transport, or when sending fails, it is logged and counted as failed, and the message stays to be retried.
    /// </summary>
    public async Task<bool> TryDeadLetterAsync(IMessageTransport? transport, string? deadLetterQueue, SqsMessage message, string queue, string? eventType)
    {
        if (deadLetterQueue is null || transport is null)
        {
            BusLog.DeadLetterWithoutQueue(_logger, message.MessageId, queue);
            _telemetry.Processed(queue, eventType, null, "DeadLetterUnavailable");
            return false;
        }

        bool fifo = FifoRule.IsFifo(deadLetterQueue);
        message.SystemAttributes.TryGetValue(SqsSystemAttributes.MessageGroupId, out string? group);
        var request = new SqsSendRequest
        {
            QueueName = deadLetterQueue,
            GivenBody = message.GivenBody, // as it came: its bytes when the transport gave bytes, never made a string
            MessageAttributes = message.MessageAttributes,
            MessageGroupId = fifo ? group ?? message.MessageId : null,
            MessageDeduplicationId = fifo ? message.MessageId : null,
        };
        try
        {
            await transport.SendAsync(request, CancellationToken.None).ConfigureAwait(false);
        }
        catch (Exception e) when (e is not OutOfMemoryException)
        {
            BusLog.DeadLetterFailed(_logger, message.MessageId, queue, deadLetterQueue, e);
            _telemetry.Processed(queue, eventType, null, "DeadLetterUnavailable");
            return false;
        }

        _telemetry.DeadLettered(queue, eventType);
        BusLog.DeadLettered(_logger, message.MessageId, eventType, queue, deadLetterQueue);
        return true;
    }

    /// <summary>The handler of envelopes of unregistered types: the application's <see cref="IFallbackMessageHandler"/>.</summary>
    private static class FallbackHandler
    {
        public static readonly HandleStep Instance = Invoke;

        private static async Task Invoke(HandleContext context)
        {
            if (context.HandlerCalled)
            {
                throw new PipelineException($"The next step of the handling pipeline was called twice for message {context.Message.MessageId}: the fallback handler runs once per delivery.");
            }

            context.HandlerCalled = true;
            IFallbackMessageHandler fallback = context.Services.GetRequiredService<IFallbackMessageHandler>();
            HandleOutcome outcome = await (fallback.HandleAsync((MessageEnvelope<UnregisteredMessage>)context.Envelope, context.CancellationToken)
                ?? throw new PipelineException($"The fallback handler {fallback.GetType().Name} returned null instead of a task.")).ConfigureAwait(false);
            context.Outcome = IsOutcome(outcome) ? outcome : throw new PipelineException($"The fallback handler {fallback.GetType().Name} answered {(int)outcome}, which is not a HandleOutcome.");
        }
    }
}
