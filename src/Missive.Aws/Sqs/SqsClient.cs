using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Globalization;
using System.Net.Http.Headers;
using System.Text.Json;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.Logging;
using Missive.Aws.Protocol;
using Missive.Buffers;
using Missive.Transport;

namespace Missive.Aws.Sqs;

/// <summary>
/// Amazon SQS over its AWS JSON 1.0 protocol (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/):
/// <c>POST /</c> with <c>X-Amz-Target: AmazonSQS.&lt;Operation&gt;</c>. Queues are named by URL in requests; a queue
/// name is resolved once with <c>GetQueueUrl</c> and cached (until SQS says the queue does not exist).
/// </summary>
internal sealed class SqsClient
{
    /// <summary>The most entries one batch call takes.</summary>
    public const int MaxBatchEntries = 10;

    /// <summary>The largest payload (bodies and attributes) one SendMessageBatch call takes: 1 MiB.</summary>
    public const int MaxBatchPayload = 1024 * 1024;

    private const string TargetPrefix = "AmazonSQS.";
    private static readonly MediaTypeHeaderValue ContentType = new("application/x-amz-json-1.0");

    /// <summary>The system attributes the bus reads, asked for on every receive (SQS returns none unasked).</summary>
    private static readonly string[] SystemAttributeNames =
    [
        SqsSystemAttributes.ApproximateReceiveCount,
        SqsSystemAttributes.ApproximateFirstReceiveTimestamp,
        SqsSystemAttributes.SentTimestamp,
        SqsSystemAttributes.MessageGroupId,
        SqsSystemAttributes.MessageDeduplicationId,
        SqsSystemAttributes.SequenceNumber,
        SqsSystemAttributes.DeadLetterQueueSourceArn,
    ];

    private readonly AwsServiceClient _service;
    private readonly IReadOnlyDictionary<string, Uri> _configuredUrls;
    private readonly bool _verifyDigests;
    private readonly ILogger _logger;
    private readonly ConcurrentDictionary<string, Task<string>> _queueUrls = new(StringComparer.Ordinal);

    public SqsClient(AwsServiceClient service, IReadOnlyDictionary<string, Uri> configuredUrls, bool verifyDigests, ILogger logger)
    {
        _service = service;
        _configuredUrls = configuredUrls;
        _verifyDigests = verifyDigests;
        _logger = logger;
    }

    /// <summary>Gets the URL of a queue: an absolute URL as given, a configured one, or <c>GetQueueUrl</c>'s answer (cached).</summary>
    public Task<string> GetQueueUrlAsync(string queue, CancellationToken cancellationToken)
    {
        ArgumentException.ThrowIfNullOrEmpty(queue);
        if (Uri.TryCreate(queue, UriKind.Absolute, out Uri? absolute) && (absolute.Scheme == Uri.UriSchemeHttps || absolute.Scheme == Uri.UriSchemeHttp))
        {
            return Task.FromResult(queue);
        }

        if (_configuredUrls.TryGetValue(queue, out Uri? configured))
        {
            return Task.FromResult(configured.AbsoluteUri);
        }

        // One lookup per name, shared by concurrent callers and not cancelled by any one of them.
        return _queueUrls.GetOrAdd(queue, static (name, self) => self.LookUpQueueUrlAsync(name), this).WaitAsync(cancellationToken);
    }

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

    /// <summary>Sends the requests of one queue in calls of at most 10 entries and 1 MiB; results in request order.</summary>
    public async Task<BatchEntryResult[]> SendBatchAsync(string queue, IReadOnlyList<(int Index, SqsSendRequest Request)> requests, CancellationToken cancellationToken)
    {
        string url = await GetQueueUrlAsync(queue, cancellationToken).ConfigureAwait(false);
        var results = new BatchEntryResult[requests.Count];
        int start = 0;
        while (start < requests.Count)
        {
            // As many entries as fit in one call: at most 10, and at most 1 MiB of payload (one is always taken).
            int end = start;
            long payload = 0;
            while (end < requests.Count && end - start < MaxBatchEntries)
            {
                long size = requests[end].Request.ComputeSize();
                if (end > start && payload + size > MaxBatchPayload)
                {
                    break;
                }

                payload += size;
                end++;
            }

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
            SqsBatchAnswer.Read(answer, "SQS SendMessageBatch", start, end, results, withIds: true, (Requests: requests, Client: this), static (entry, s) =>
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
            start = end;
        }

        for (int i = 0; i < results.Length; i++)
        {
            results[i] = results[i] with { Index = requests[i].Index };
        }

        return results;
    }

    public async Task<IReadOnlyList<SqsMessage>> ReceiveAsync(string queue, int maxMessages, TimeSpan waitTime, TimeSpan? visibilityTimeout, CancellationToken cancellationToken)
    {
        string url = await GetQueueUrlAsync(queue, cancellationToken).ConfigureAwait(false);
        int waitSeconds = (int)Math.Clamp(Math.Ceiling(waitTime.TotalSeconds), 0, 20);
        using PooledBufferWriter body = AwsJson.Write((url, maxMessages, waitSeconds, visibilityTimeout), static (w, s) =>
        {
            w.WriteString("QueueUrl", s.url);
            w.WriteNumber("MaxNumberOfMessages", Math.Clamp(s.maxMessages, 1, 10));
            w.WriteNumber("WaitTimeSeconds", s.waitSeconds);
            if (s.visibilityTimeout is { } visibility)
            {
                w.WriteNumber("VisibilityTimeout", Seconds(visibility));
            }

            w.WriteStartArray("MessageAttributeNames");
            w.WriteStringValue("All");
            w.WriteEndArray();
            w.WriteStartArray("MessageSystemAttributeNames");
            foreach (string name in SystemAttributeNames)
            {
                w.WriteStringValue(name);
            }

            w.WriteEndArray();
        });
        using AwsResponse response = await PostAsync("ReceiveMessage", body.WrittenMemory, queue, TimeSpan.FromSeconds(waitSeconds), AwsAnswer.ReceiveLimit(maxMessages), cancellationToken).ConfigureAwait(false);
        var skipped = new List<(string? MessageId, string Problem)>();
        List<SqsMessage> received = SqsReceiveAnswer.Read(response, _verifyDigests, skipped);
        foreach ((string? messageId, string problem) in skipped)
        {
            AwsLog.ReceivedMessageSkipped(_logger, messageId ?? "(without a readable id)", queue, problem);
        }

        return received;
    }

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
        var results = new BatchEntryResult[receiptHandles.Count];
        for (int start = 0; start < receiptHandles.Count; start += MaxBatchEntries)
        {
            int end = Math.Min(start + MaxBatchEntries, receiptHandles.Count);
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
            SqsBatchAnswer.Read(answer, "SQS " + operation, start, end, results, withIds: false, 0, static (entry, _) => BatchEntryResult.Success(entry.Index, null));
        }

        return results;
    }

    private async Task<string> LookUpQueueUrlAsync(string queueName)
    {
        try
        {
            using PooledBufferWriter body = AwsJson.Write(queueName, static (w, name) => w.WriteString("QueueName", name));
            using AwsResponse response = await _service.PostAsync("GetQueueUrl", ContentType, TargetPrefix + "GetQueueUrl", body.WrittenMemory, TimeSpan.Zero, AwsAnswer.DefaultLimit, CancellationToken.None).ConfigureAwait(false);
            using JsonDocument answer = AwsJson.Parse(response, "SQS GetQueueUrl");
            return AwsJson.String(answer.RootElement, "QueueUrl") ?? throw Malformed("GetQueueUrl", "no QueueUrl");
        }
        catch
        {
            _queueUrls.TryRemove(queueName, out _); // a failed lookup is not cached: the next call asks again
            throw;
        }
    }

    private async Task<JsonDocument> PostAsync(string operation, ReadOnlyMemory<byte> body, string queue, CancellationToken cancellationToken)
    {
        using AwsResponse response = await PostAsync(operation, body, queue, TimeSpan.Zero, AwsAnswer.DefaultLimit, cancellationToken).ConfigureAwait(false);
        return AwsJson.Parse(response, "SQS " + operation);
    }

    private async Task<AwsResponse> PostAsync(string operation, ReadOnlyMemory<byte> body, string queue, TimeSpan longPoll, int answerLimit, CancellationToken cancellationToken)
    {
        try
        {
            return await _service.PostAsync(operation, ContentType, TargetPrefix + operation, body, longPoll, answerLimit, cancellationToken).ConfigureAwait(false);
        }
        catch (MessageTransportException e) when (IsNonExistentQueue(e.ErrorCode))
        {
            _queueUrls.TryRemove(queue, out _); // the queue may be created again under a new URL
            throw;
        }
    }

    private async Task<bool> PostUnlessStaleAsync(string operation, ReadOnlyMemory<byte> body, string queue, CancellationToken cancellationToken)
    {
        try
        {
            using JsonDocument answer = await PostAsync(operation, body, queue, cancellationToken).ConfigureAwait(false);
            return true;
        }
        catch (MessageTransportException e) when (IsStaleReceipt(e.ErrorCode))
        {
            return false;
        }
    }

    private static void WriteMessage(Utf8JsonWriter w, SqsSendRequest request)
    {
        w.WriteString("MessageBody", request.MessageBody);
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

        if (bodyDigest is null || !SqsMessageDigest.BodyMatches(request.MessageBody, bodyDigest))
        {
            throw new MessageTransportException($"SQS {operation}: the MD5 digest of the body of message {messageId} is {bodyDigest ?? "missing"}, expected {SqsMessageDigest.OfBody(request.MessageBody)}; the message was corrupted in transit.")
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

    private static MessageTransportException Malformed(string operation, string what)
        => new($"SQS {operation} answered with {what}.") { ErrorCode = "MalformedResponse" };

    private static int Seconds(TimeSpan value) => (int)Math.Clamp(Math.Ceiling(value.TotalSeconds), 0, int.MaxValue);

    private static bool IsNonExistentQueue(string? code)
        => code is "AWS.SimpleQueueService.NonExistentQueue" or "QueueDoesNotExist";

    private static bool IsStaleReceipt(string? code)
        => code is "ReceiptHandleIsInvalid" or "AWS.SimpleQueueService.MessageNotInflight" or "MessageNotInflight" or "InvalidReceiptHandle";
}
