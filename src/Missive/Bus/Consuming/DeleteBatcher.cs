using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.Logging;
using Missive.Transport;

namespace Missive.Bus;

/// <summary>Deletes the handled messages of one queue in batch calls: a <see cref="Batcher{TKey, TEntry}"/> lane.</summary>
/// <remarks>
/// <list type="bullet">
/// <item>The tenth handled message sends the batch from its own continuation; a part-full batch goes once its oldest
/// receipt has waited <see cref="MaxWait"/>; calls go side by side. The wait's timer is armed by <see cref="Settle"/>
/// once the poller has started what it could, so a receive's messages that fill a batch arm no timer at all.</item>
/// <item>Each call has a deadline (<c>callTimeout</c>) that holds whatever the transport does with its token, so
/// <see cref="CompleteAsync"/> cannot wait for ever: it sends whatever is pending and waits for every call under way, so
/// that nothing handled is left to be delivered again.</item>
/// <item>Entries are read by <see cref="BatchEntryResult.Outcome"/>: those not sent or whose outcome is unknown go again
/// in a later call after a backoff (<see cref="RetryDelay"/>, doubling), up to <see cref="MaxAttempts"/> calls (a call
/// abandoned at its deadline is not repeated): the transport has made its own attempts within each call, so a failing
/// endpoint is given time. Only what is still not deleted then, or whose receipt is gone, is logged as what may be
/// handled twice. Completing sends the receipts waiting for their backoff at once.</item>
/// </list>
/// </remarks>
internal sealed class DeleteBatcher : IDisposable
{
    /// <summary>The most receipts one delete call takes (SQS's batch limit).</summary>
    public const int MaxBatch = 10;

    /// <summary>How many calls a receipt's delete is given.</summary>
    public const int MaxAttempts = 3;

    /// <summary>How long a receipt waits for others before its batch goes out.</summary>
    public static readonly TimeSpan MaxWait = TimeSpan.FromMilliseconds(20);

    /// <summary>How long a receipt whose delete call failed waits before its second call; the third waits twice as long.</summary>
    public static readonly TimeSpan RetryDelay = TimeSpan.FromSeconds(1);

    private readonly IMessageTransport _transport;
    private readonly string _queue;
    private readonly ILogger _logger;
    private readonly Batcher<string, Receipt> _batcher;

    public DeleteBatcher(IMessageTransport transport, string queue, TimeProvider timeProvider, TimeSpan callTimeout, ILogger logger)
    {
        _transport = transport;
        _queue = queue;
        _logger = logger;
        var policy = new BatchPolicy { MaxEntries = MaxBatch, MaxWait = MaxWait, CallDeadline = callTimeout, ArmAfterBurst = true };
        _batcher = new Batcher<string, Receipt>(_ => policy, CallAsync, Complete, timeProvider);
    }

    /// <summary>Gets how many receipts wait for their backoff before another delete call (tests).</summary>
    internal int WaitingForBackoff => _batcher.DelayedCount;

    /// <summary>Queues a handled message for deletion; the tenth of a batch sends it at once, <see cref="Settle"/> starts the wait of a part-full one.</summary>
    public void Delete(SqsMessage message) => _batcher.Add(_queue, new Receipt(message));

    /// <summary>The deletes of a burst of handled messages have been queued: a part-full batch now waits at most <see cref="MaxWait"/> from its first receipt.</summary>
    public void Settle() => _batcher.Settle(_queue);

    /// <summary>Sends everything still pending and waits for every delete call under way; a later delete goes out on its own.</summary>
    public Task CompleteAsync() => _batcher.DrainAsync(complete: true);

    public void Dispose() => _batcher.Dispose();

    private Task<IReadOnlyList<BatchEntryResult>> CallAsync(string queue, IReadOnlyList<Receipt> receipts, CancellationToken cancellationToken)
    {
        var handles = new string[receipts.Count];
        for (int i = 0; i < handles.Length; i++)
        {
            handles[i] = receipts[i].Message.ReceiptHandle;
        }

        return _transport.DeleteBatchAsync(queue, handles, cancellationToken);
    }

    private void Complete(Receipt receipt, BatchEntryResult result)
    {
        if (result.Succeeded)
        {
            return;
        }

        if (result.Outcome is BatchEntryOutcome.NotSent or BatchEntryOutcome.Unknown && result.ErrorCode != BatchResults.TimedOutCode && ++receipt.Attempts < MaxAttempts)
        {
            _batcher.AddAfter(_queue, receipt, RetryDelay * (1 << (receipt.Attempts - 1))); // a delete is safe to make again
            return;
        }

        // The message stays in the queue and comes back after its visibility timeout: at least once, never lost.
        BusLog.DeleteFailed(_logger, receipt.Message.MessageId, _queue, result.ErrorCode ?? "unknown", result.ErrorMessage);
    }

    /// <summary>A handled message to delete, and how many calls its delete has had.</summary>
    private sealed class Receipt(SqsMessage message)
    {
        public SqsMessage Message { get; } = message;

        public int Attempts { get; set; }
    }
}
