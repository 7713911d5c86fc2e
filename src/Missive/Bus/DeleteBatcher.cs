using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Channels;
using System.Threading.Tasks;
using Microsoft.Extensions.Logging;
using Missive.Transport;

namespace Missive.Bus;

/// <summary>
/// Deletes handled messages of one queue in batch calls: a receipt waits at most <see cref="MaxWait"/> for
/// others to join it (up to 10, SQS's batch size). <see cref="CompleteAsync"/> deletes whatever is pending,
/// so that nothing handled is left to be delivered again.
/// </summary>
internal sealed class DeleteBatcher
{
    /// <summary>The most receipts one delete call takes (SQS's batch limit).</summary>
    public const int MaxBatch = 10;

    /// <summary>How long a receipt waits for others before its batch goes out.</summary>
    public static readonly TimeSpan MaxWait = TimeSpan.FromMilliseconds(20);

    private readonly Channel<(string ReceiptHandle, string MessageId)> _pending = Channel.CreateUnbounded<(string, string)>(new UnboundedChannelOptions { SingleReader = true });
    private readonly IMessageTransport _transport;
    private readonly string _queue;
    private readonly ILogger _logger;
    private readonly Task _loop;

    public DeleteBatcher(IMessageTransport transport, string queue, ILogger logger)
    {
        _transport = transport;
        _queue = queue;
        _logger = logger;
        _loop = Task.Run(RunAsync);
    }

    /// <summary>Queues a handled message's receipt for deletion.</summary>
    public void Delete(string receiptHandle, string messageId)
    {
        if (!_pending.Writer.TryWrite((receiptHandle, messageId)))
        {
            // Completed already (shutdown finished): delete it on its own rather than lose the delete.
            _ = DeleteNowAsync([(receiptHandle, messageId)]);
        }
    }

    /// <summary>Deletes everything still pending and stops.</summary>
    public Task CompleteAsync()
    {
        _pending.Writer.TryComplete();
        return _loop;
    }

    private async Task RunAsync()
    {
        var batch = new List<(string ReceiptHandle, string MessageId)>(MaxBatch);
        ChannelReader<(string, string)> reader = _pending.Reader;
        while (await reader.WaitToReadAsync().ConfigureAwait(false))
        {
            while (batch.Count < MaxBatch && reader.TryRead(out (string, string) item))
            {
                batch.Add(item);
            }

            if (batch.Count < MaxBatch && !reader.Completion.IsCompleted)
            {
                // Give concurrent handlers a moment to add theirs: fewer calls, the same latency budget as a heartbeat tick.
                using var wait = new CancellationTokenSource(MaxWait);
                try
                {
                    while (batch.Count < MaxBatch && await reader.WaitToReadAsync(wait.Token).ConfigureAwait(false))
                    {
                        while (batch.Count < MaxBatch && reader.TryRead(out (string, string) item))
                        {
                            batch.Add(item);
                        }
                    }
                }
                catch (OperationCanceledException)
                {
                    // waited long enough
                }
            }

            await DeleteNowAsync(batch).ConfigureAwait(false);
            batch.Clear();
        }
    }

    private async Task DeleteNowAsync(List<(string ReceiptHandle, string MessageId)> batch)
    {
        var handles = new string[batch.Count];
        for (int i = 0; i < handles.Length; i++)
        {
            handles[i] = batch[i].ReceiptHandle;
        }

        try
        {
            IReadOnlyList<BatchEntryResult> results = await _transport.DeleteBatchAsync(_queue, handles, CancellationToken.None).ConfigureAwait(false);
            foreach (BatchEntryResult result in results)
            {
                if (!result.Succeeded)
                {
                    BusLog.DeleteFailed(_logger, batch[result.Index].MessageId, _queue, result.ErrorCode ?? "unknown", result.ErrorMessage);
                }
            }
        }
        catch (Exception e) when (e is not OutOfMemoryException)
        {
            // The messages stay in the queue and come back after their visibility timeout: at least once, never lost.
            BusLog.DeleteBatchFailed(_logger, batch.Count, _queue, e);
        }
    }
}
