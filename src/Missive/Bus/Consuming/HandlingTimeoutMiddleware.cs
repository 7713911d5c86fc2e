using System;
using System.Threading;
using System.Threading.Tasks;

namespace Missive.Bus;

/// <summary>
/// A handling middleware that cancels the token a handler receives once the timeout of its message type passes
/// (<see cref="HandlingTimeoutOptions"/>) and stops waiting for it then: the handling fails with a
/// <see cref="TimeoutException"/>, so the message is retried and its handler slot is free. A handler that ignores its
/// token runs on unobserved, its DI scope disposed, and whatever it does after the timeout is not the message's fate.
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
        Task? handling = null;
        try
        {
            handling = nextStep(context);
            await handling.WaitAsync(timeout, _timeProvider, outer).ConfigureAwait(false);
        }
        catch (Exception e) when ((e is TimeoutException || (e is OperationCanceledException && timer.IsCancellationRequested)) && !outer.IsCancellationRequested)
        {
            await timer.CancelAsync().ConfigureAwait(false); // so that a handler still running sees its token cancelled
            if (handling is { IsCompleted: false })
            {
                _ = handling.ContinueWith(static t => _ = t.Exception, CancellationToken.None, TaskContinuationOptions.OnlyOnFaulted | TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
            }

            throw new HandlingTimeoutException($"Handling message {context.Message.MessageId} ({context.Envelope.Type}) took longer than its timeout of {timeout}; it is retried.");
        }
        finally
        {
            context.CancellationToken = outer;
        }
    }
}
