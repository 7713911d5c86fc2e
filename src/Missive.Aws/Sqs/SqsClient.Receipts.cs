using System;
using System.Collections.Generic;
using System.Globalization;
using System.Threading;
using System.Threading.Tasks;
using Missive.Aws.Protocol;
using Missive.Buffers;
using Missive.Transport;

namespace Missive.Aws.Sqs;

/// <summary>What a receipt handle is handed back for: deleting and changing visibility, one or in batches.</summary>
internal sealed partial class SqsClient
{
    /// <summary>Deletes one message; <c>false</c> when SQS says the receipt handle is not valid.</summary>
    public async Task<bool> DeleteAsync(string queue, string receiptHandle, CancellationToken cancellationToken)
    {
        string url = await GetQueueUrlAsync(queue, cancellationToken).ConfigureAwait(false);
        using PooledBufferWriter body = AwsJson.Write((url, receiptHandle), static (w, s) =>
        {
            w.WriteString("QueueUrl", s.url);
            w.WriteString("ReceiptHandle", s.receiptHandle);
        });
        return await PostUnlessStaleAsync("DeleteMessage", body.WrittenMemory, queue, cancellationToken).ConfigureAwait(false);
    }

    /// <summary>Changes one message's visibility; <c>false</c> when the receipt is not current (not in flight, or not valid).</summary>
    public async Task<bool> ChangeVisibilityAsync(string queue, string receiptHandle, TimeSpan visibilityTimeout, CancellationToken cancellationToken)
    {
        string url = await GetQueueUrlAsync(queue, cancellationToken).ConfigureAwait(false);
        using PooledBufferWriter body = AwsJson.Write((url, receiptHandle, visibilityTimeout), static (w, s) =>
        {
            w.WriteString("QueueUrl", s.url);
            w.WriteString("ReceiptHandle", s.receiptHandle);
            w.WriteNumber("VisibilityTimeout", Seconds(s.visibilityTimeout));
        });
        return await PostUnlessStaleAsync("ChangeMessageVisibility", body.WrittenMemory, queue, cancellationToken).ConfigureAwait(false);
    }

    public Task<BatchEntryResult[]> DeleteBatchAsync(string queue, IReadOnlyList<string> receiptHandles, CancellationToken cancellationToken)
        => ReceiptBatchAsync("DeleteMessageBatch", queue, receiptHandles, null, cancellationToken);

    public Task<BatchEntryResult[]> ChangeVisibilityBatchAsync(string queue, IReadOnlyList<string> receiptHandles, TimeSpan visibilityTimeout, CancellationToken cancellationToken)
        => ReceiptBatchAsync("ChangeMessageVisibilityBatch", queue, receiptHandles, visibilityTimeout, cancellationToken);

    private async Task<BatchEntryResult[]> ReceiptBatchAsync(string operation, string queue, IReadOnlyList<string> receiptHandles, TimeSpan? visibilityTimeout, CancellationToken cancellationToken)
    {
        string url = await GetQueueUrlAsync(queue, cancellationToken).ConfigureAwait(false);
        return await BatchCalls.CallEachAsync(
            receiptHandles,
            BatchCalls.SqsReceipts,
            size: null,
            fifoGroup: null,
            operation == "DeleteMessageBatch" ? "SQS DeleteMessageBatch" : "SQS ChangeMessageVisibilityBatch", // constants: no string per call
            (list, start, end, results, ct) => ReceiptBatchCallAsync(operation, url, queue, list, start, end, visibilityTimeout, results, ct),
            cancellationToken).ConfigureAwait(false);
    }

    /// <summary>One <c>DeleteMessageBatch</c> or <c>ChangeMessageVisibilityBatch</c> call over <paramref name="receiptHandles"/>[start..end).</summary>
    private async Task ReceiptBatchCallAsync(string operation, string url, string queue, IReadOnlyList<string> receiptHandles, int start, int end, TimeSpan? visibilityTimeout, BatchEntryResult[] results, CancellationToken cancellationToken)
    {
        using PooledBufferWriter body = AwsJson.Write((receiptHandles, url, start, end, visibilityTimeout), static (w, s) =>
        {
            w.WriteString("QueueUrl", s.url);
            w.WriteStartArray("Entries");
            for (int i = s.start; i < s.end; i++)
            {
                w.WriteStartObject();
                w.WriteString("Id", (i - s.start).ToString(CultureInfo.InvariantCulture));
                w.WriteString("ReceiptHandle", s.receiptHandles[i]);
                if (s.visibilityTimeout is { } visibility)
                {
                    w.WriteNumber("VisibilityTimeout", Seconds(visibility));
                }

                w.WriteEndObject();
            }

            w.WriteEndArray();
        });
        using AwsResponse answer = await PostAsync(operation, body.WrittenMemory, queue, TimeSpan.Zero, AwsAnswer.DefaultLimit, cancellationToken).ConfigureAwait(false);
        SqsBatchAnswer.Read(answer, operation, start, end, results, withIds: false, 0, static (entry, _) => BatchEntryResult.Success(entry.Index, null));
    }
}
