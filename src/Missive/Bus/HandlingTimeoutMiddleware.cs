using System;
using System.Threading;
using System.Threading.Tasks;

namespace Missive.Bus;

/// <summary>
/// A handling middleware that cancels the token a handler receives once the timeout of its message type passes
/// (<see cref="HandlingTimeoutOptions"/>), and reports a handler that stopped for it as a <see cref="TimeoutException"/>,
/// so the message is retried. A handler that ignores its token runs on; when it then succeeds, the message is handled.
/// Register it with <c>UseHandlingTimeout(...)</c>.
/// </summary>
public sealed class HandlingTimeoutMiddleware : IHandleMiddleware
{
    private readonly HandlingTimeoutOptions _options;
    private readonly TimeProvider _timeProvider;

    /// <summary>Creates the middleware.</summary>
    /// <param name="options">The timeouts. Must not be null.</param>
    /// <param name="timeProvider">The clock. Must not be null.</param>
    public HandlingTimeoutMiddleware(HandlingTimeoutOptions options, TimeProvider timeProvider)
    {
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(timeProvider);
        _options = options;
        _timeProvider = timeProvider;
    }

    /// <inheritdoc />
    public async Task InvokeAsync(HandleContext context, HandleStep nextStep)
    {
        ArgumentNullException.ThrowIfNull(context);
        ArgumentNullException.ThrowIfNull(nextStep);
        if (_options.TimeoutFor(context.Envelope.MessageType) is not { } timeout)
        {
            await nextStep(context).ConfigureAwait(false);
            return;
        }

        CancellationToken outer = context.CancellationToken;
        using var timer = new CancellationTokenSource(timeout, _timeProvider);
        using var linked = CancellationTokenSource.CreateLinkedTokenSource(outer, timer.Token);
        context.CancellationToken = linked.Token;
        try
        {
            await nextStep(context).ConfigureAwait(false);
        }
        catch (OperationCanceledException e) when (timer.IsCancellationRequested && !outer.IsCancellationRequested)
        {
            throw new TimeoutException($"Handling message {context.Message.MessageId} ({context.Envelope.Type}) took longer than its timeout of {timeout}.", e);
        }
        finally
        {
            context.CancellationToken = outer;
        }
    }
}
