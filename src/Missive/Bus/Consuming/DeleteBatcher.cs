using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.Logging;
using Missive.Transport;

namespace Missive.Bus;

/// <summary>Deletes the handled messages of one queue in batch calls, with no thread of its own.</summary>
/// <remarks>
/// <list type="bullet">
/// <item>The tenth handled message sends the batch from its own continuation; a timer sends a part-full batch once
/// its oldest receipt has waited <see cref="MaxWait"/>.</item>
/// <item>Each call has a deadline (<c>callTimeout</c>) that holds whatever the transport does with its token, so
/// <see cref="CompleteAsync"/> cannot wait for ever: it sends whatever is pending and waits for every call under way, so
/// that nothing handled is left to be delivered again.</item>
/// <item>Entries are read by <see cref="BatchEntryResult.Outcome"/>: those not sent or whose outcome is unknown (and a
/// call that failed whole before its deadline) go again, up to <see cref="MaxAttempts"/> calls; only what is still not deleted then (or
/// whose receipt is gone) is logged as what may be handled twice.</item>
/// </list>
/// </remarks>
internal sealed class DeleteBatcher : IDisposable
{
    /// <summary>The most receipts one delete call takes (SQS's batch limit).</summary>
    public const int MaxBatch = 10;

    /// <summary>How many calls a receipt's delete is given: an entry not deleted (not sent, or its outcome unknown) goes again in a new call.</summary>
    public const int MaxAttempts = 3;

    /// <summary>How long a receipt waits for others before its batch goes out.</summary>
    public static readonly TimeSpan MaxWait = TimeSpan.FromMilliseconds(20);

    private readonly object _gate = new();
    private readonly IMessageTransport _transport;
    private readonly string _queue;
    private readonly ILogger _logger;
    private readonly ITimer _timer;
    private readonly TimeProvider _timeProvider;
    private readonly TimeSpan _callTimeout;
    private List<SqsMessage> _pending = new(MaxBatch);
    private int _calls;
    private bool _completed;
    private TaskCompletionSource? _drained;

    public DeleteBatcher(IMessageTransport transport, string queue, TimeProvider timeProvider, TimeSpan callTimeout, ILogger logger)
    {
        _timeProvider = timeProvider;
        _callTimeout = callTimeout;
        _transport = transport;
        _queue = queue;
        _logger = logger;
        _timer = timeProvider.CreateTimer(static state => ((DeleteBatcher)state!).Flush(), this, Timeout.InfiniteTimeSpan, Timeout.InfiniteTimeSpan);
    }

    /// <summary>Queues a handled message for deletion; the tenth of a batch sends it at once.</summary>
    public void Delete(SqsMessage message)
    {
        List<SqsMessage>? full = null;
        lock (_gate)
        {
            _pending.Add(message);
            if (_pending.Count >= MaxBatch || _completed)
            {
                // After completion (shutdown finished) a late delete goes out on its own rather than be lost.
                full = Take();
            }
            else if (_pending.Count == 1)
            {
                _timer.Change(MaxWait, Timeout.InfiniteTimeSpan);
            }
        }

        if (full is not null)
        {
            Send(full);
        }
    }

    /// <summary>Sends everything still pending and waits for every delete call under way.</summary>
    public Task CompleteAsync()
    {
        List<SqsMessage>? rest;
        Task drained;
        lock (_gate)
        {
            _completed = true;
            rest = _pending.Count > 0 ? Take() : null;
            if (rest is not null)
            {
                _calls++; // counted before the lock is left, so that the drain below waits for it
            }

            if (_calls == 0)
            {
                return Task.CompletedTask;
            }

            _drained ??= new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            drained = _drained.Task;
        }

        if (rest is not null)
        {
            _ = SendAsync(rest);
        }

        return drained;
    }

    public void Dispose() => _timer.Dispose();

    private void Flush()
    {
        List<SqsMessage>? batch;
        lock (_gate)
        {
            batch = _pending.Count > 0 ? Take() : null;
        }

        if (batch is not null)
        {
            Send(batch);
        }
    }

    /// <summary>Takes the pending batch and disarms the timer; called under the lock.</summary>
    private List<SqsMessage> Take()
    {
        List<SqsMessage> batch = _pending;
        _pending = new List<SqsMessage>(MaxBatch);
        _timer.Change(Timeout.InfiniteTimeSpan, Timeout.InfiniteTimeSpan);
        return batch;
    }

    private void Send(List<SqsMessage> batch)
    {
        lock (_gate)
        {
            _calls++;
        }

        _ = SendAsync(batch);
    }

    private async Task SendAsync(List<SqsMessage> batch)
    {
        try
        {
            List<SqsMessage> left = batch;
            for (int attempt = 1; left.Count > 0; attempt++)
            {
                left = await DeleteOnceAsync(left, lastAttempt: attempt == MaxAttempts).ConfigureAwait(false);
            }
        }
        finally
        {
            TaskCompletionSource? drained = null;
            lock (_gate)
            {
                if (--_calls == 0)
                {
                    drained = _drained;
                }
            }

            drained?.TrySetResult();
        }
    }

    /// <summary>
    /// One delete call over <paramref name="batch"/>; returns the messages to try again (their entries not sent, or their
    /// outcome unknown), none after the last attempt, which logs them as what may be handled twice.
    /// </summary>
    private async Task<List<SqsMessage>> DeleteOnceAsync(List<SqsMessage> batch, bool lastAttempt)
    {
        var handles = new string[batch.Count];
        for (int i = 0; i < handles.Length; i++)
        {
            handles[i] = batch[i].ReceiptHandle;
        }

        IReadOnlyList<BatchEntryResult> results;
        try
        {
            results = await CallDeadline.CallAsync(token => _transport.DeleteBatchAsync(_queue, handles, token), _callTimeout, _timeProvider, "The delete call").ConfigureAwait(false);
        }
        catch (Exception e) when (!ContentSafety.IsFatal(e))
        {
            if (lastAttempt || e is TimeoutException)
            {
                // The messages stay in the queue and come back after their visibility timeout: at least once, never lost.
                BusLog.DeleteBatchFailed(_logger, batch.Count, BusLog.IdsOf(batch), _queue, e);
                return [];
            }

            return batch; // the whole call failed in time: each entry's outcome is unknown, and a delete is safe to make again
        }

        List<SqsMessage> again = [];
        foreach (BatchEntryResult result in results)
        {
            SqsMessage message = batch[result.Index];
            if (result.Outcome is BatchEntryOutcome.NotSent or BatchEntryOutcome.Unknown && !lastAttempt)
            {
                again.Add(message);
            }
            else if (!result.Succeeded)
            {
                BusLog.DeleteFailed(_logger, message.MessageId, _queue, result.ErrorCode ?? "unknown", result.ErrorMessage);
            }
        }

        return again;
    }
}
