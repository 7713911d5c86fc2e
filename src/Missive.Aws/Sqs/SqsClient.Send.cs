using System;
using System.Collections.Generic;
using System.Globalization;
using System.Text.Json;
using System.Threading;
using System.Threading.Tasks;
using Missive.Aws.Protocol;
using Missive.Buffers;
using Missive.Transport;

namespace Missive.Aws.Sqs;

/// <summary>Sending: <c>SendMessage</c> and <c>SendMessageBatch</c>, with the digests SQS returns checked.</summary>
internal sealed partial class SqsClient
{
    public async Task<string> SendAsync(SqsSendRequest request, CancellationToken cancellationToken)
    {
        string url = await GetQueueUrlAsync(request.QueueName, cancellationToken).ConfigureAwait(false);
        using PooledBufferWriter body = AwsJson.Write((request, url), static (w, s) =>
        {
            w.WriteString("QueueUrl", s.url);
            WriteMessage(w, s.request);
        });
        using JsonDocument answer = await PostAsync("SendMessage", body.WrittenMemory, request.QueueName, cancellationToken).ConfigureAwait(false);
        JsonElement root = answer.RootElement;
        string messageId = AwsJson.Id(root, "MessageId", "SQS SendMessage") ?? throw Malformed("SendMessage", "no MessageId");
        CheckSent(messageId, AwsJson.String(root, "MD5OfMessageBody"), AwsJson.String(root, "MD5OfMessageAttributes"), request, "SendMessage");
        return messageId;
    }

    /// <summary>Sends the requests of one queue in calls within SQS's batch limits (<see cref="BatchCalls.CallEachAsync"/>); results in request order.</summary>
    public async Task<BatchEntryResult[]> SendBatchAsync(string queue, IReadOnlyList<(int Index, SqsSendRequest Request)> requests, CancellationToken cancellationToken)
    {
        string url = await GetQueueUrlAsync(queue, cancellationToken).ConfigureAwait(false);
        return await SendInCallsAsync(url, requests, _sendLimits, (list, start, end, chunk, ct) => SendBatchCallAsync(url, queue, list, start, end, chunk, ct), cancellationToken).ConfigureAwait(false);
    }

    /// <summary>
    /// The requests of one queue (at <paramref name="url"/>) in <c>SendMessageBatch</c> calls within
    /// <paramref name="limits"/>, a FIFO queue's groups kept in order; each result at its request's index. Both SQS
    /// clients cut their batches so.
    /// </summary>
    internal static async Task<BatchEntryResult[]> SendInCallsAsync(string url, IReadOnlyList<(int Index, SqsSendRequest Request)> requests, BatchLimits limits, Func<IReadOnlyList<(int Index, SqsSendRequest Request)>, int, int, BatchEntryResult[], CancellationToken, Task> call, CancellationToken cancellationToken)
    {
        BatchEntryResult[] results = await BatchCalls.CallEachAsync(
            requests,
            limits,
            static entry => entry.Request.ComputeSize(),
            FifoRule.IsFifo(url) ? static entry => entry.Request.MessageGroupId : null, // a standard queue's group ids keep no order
            $"SQS SendMessageBatch to the queue {url}",
            call,
            cancellationToken).ConfigureAwait(false);
        for (int i = 0; i < results.Length; i++)
        {
            results[i] = results[i] with { Index = requests[i].Index };
        }

        return results;
    }

    /// <summary>One <c>SendMessageBatch</c> call over <paramref name="requests"/>[start..end).</summary>
    private async Task SendBatchCallAsync(string url, string queue, IReadOnlyList<(int Index, SqsSendRequest Request)> requests, int start, int end, BatchEntryResult[] results, CancellationToken cancellationToken)
    {
        using PooledBufferWriter body = AwsJson.Write((requests, url, start, end), static (w, s) =>
        {
            w.WriteString("QueueUrl", s.url);
            w.WriteStartArray("Entries");
            for (int i = s.start; i < s.end; i++)
            {
                w.WriteStartObject();
                w.WriteString("Id", (i - s.start).ToString(CultureInfo.InvariantCulture));
                WriteMessage(w, s.requests[i].Request);
                w.WriteEndObject();
            }

            w.WriteEndArray();
        });
        using AwsResponse answer = await PostAsync("SendMessageBatch", body.WrittenMemory, queue, TimeSpan.Zero, AwsAnswer.DefaultLimit, cancellationToken).ConfigureAwait(false);
        SqsBatchAnswer.Read(answer, "SendMessageBatch", start, end, results, withIds: true, (Requests: requests, Client: this), static (entry, s) =>
        {
            try
            {
                s.Client.CheckSent(entry.MessageId, entry.BodyDigest, entry.AttributesDigest, s.Requests[entry.Index].Request, "SendMessageBatch");
                return BatchEntryResult.Success(entry.Index, entry.MessageId);
            }
            catch (MessageTransportException e)
            {
                return BatchEntryResult.Failure(entry.Index, e); // this entry's digest did not match: only it failed
            }
        });
    }

    private static void WriteMessage(Utf8JsonWriter w, SqsSendRequest request)
    {
        if (request.HasUtf8Body)
        {
            w.WriteString("MessageBody", request.Utf8Body.Span); // escaped from the bytes the serializer wrote
        }
        else
        {
            w.WriteString("MessageBody", request.Body);
        }
        if (request.Delay > TimeSpan.Zero)
        {
            w.WriteNumber("DelaySeconds", Seconds(request.Delay));
        }

        AwsJson.WriteAttributes(w, "MessageAttributes", request.MessageAttributes);
        if (request.MessageGroupId is { } group)
        {
            w.WriteString("MessageGroupId", group);
        }

        if (request.MessageDeduplicationId is { } deduplication)
        {
            w.WriteString("MessageDeduplicationId", deduplication);
        }
    }

    private void CheckSent(string? messageId, string? bodyDigest, string? attributesDigest, SqsSendRequest request, string operation)
    {
        if (!_verifyDigests)
        {
            return;
        }

        bool matches = bodyDigest is not null && (request.HasUtf8Body ? SqsMessageDigest.BodyMatches(request.Utf8Body.Span, bodyDigest) : SqsMessageDigest.BodyMatches(request.Body, bodyDigest));
        if (!matches)
        {
            throw new MessageTransportException($"SQS {operation}: the MD5 digest of the body of message {messageId} is {bodyDigest ?? "missing"}, expected {SqsMessageDigest.OfBody(request.Utf8Body.Span)}; the message was corrupted in transit.")
            {
                ErrorCode = "DigestMismatch",
            };
        }

        CheckDigest(operation, "message attributes", messageId ?? string.Empty, attributesDigest, SqsMessageDigest.OfAttributes(request.MessageAttributes));
    }

    /// <summary>Compares a digest SQS returned with the one computed here; SQS returns no attribute digest for a message without attributes.</summary>
    private static void CheckDigest(string operation, string what, string messageId, string? returned, string? computed)
    {
        if (returned is null && computed is null)
        {
            return;
        }

        if (!string.Equals(returned, computed, StringComparison.OrdinalIgnoreCase))
        {
            throw new MessageTransportException($"SQS {operation}: the MD5 digest of the {what} of message {messageId} is {returned ?? "missing"}, expected {computed ?? "none"}; the message was corrupted in transit.")
            {
                ErrorCode = "DigestMismatch",
            };
        }
    }
}
