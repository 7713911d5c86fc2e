using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Net.Http;
using System.Threading;
using System.Threading.Tasks;
using Amazon.Runtime;
using Amazon.SQS;
using Amazon.SQS.Model;
using Microsoft.Extensions.Logging;
using Missive.Aws.Protocol;
using Missive.Transport;
using SdkAttribute = Amazon.SQS.Model.MessageAttributeValue;

namespace Missive.Aws.Sqs;

/// <summary>
/// The transport's SQS calls through the AWS SDK's <see cref="IAmazonSQS"/> (the application's own client, with its
/// region, credentials, endpoint and retry settings). What differs from the built-in client is the SDK's: its retries
/// of whole calls, and its MD5 checks, which have no switch: a mismatch fails the whole receive or call, where the
/// built-in client fails only the message. A receive that fails so is logged as the built-in client logs a message it
/// sets aside (event 3001, naming the message) and returns nothing; the queue's receives then take one message each for
/// two visibility timeouts (<see cref="DigestIsolation"/>; a later failure extends it), so that the message fails alone
/// and the others received with it come back once and are handled. A batch call that fails so reports its entries as
/// maybe taken.
/// </summary>
internal sealed class SdkSqsClient : ISqsOperations
{
    private static readonly List<string> AllAttributes = ["All"];

    /// <summary>The system attributes the bus reads, asked for on every receive (the built-in client's list).</summary>
    private static readonly List<string> SystemAttributeNames = [.. SqsClient.SystemAttributeNames];

    private readonly IAmazonSQS _sqs;
    private readonly BatchLimits _sendLimits;
    private readonly QueueUrlCache _queueUrls;
    private readonly AwsCallSite _site;
    private readonly DigestIsolation _isolation;
    private readonly ILogger _logger;
    private readonly string _client; // which client, and what chose its endpoint, for errors

    /// <summary>The error code of an answer whose MD5 digest the SDK found wrong.</summary>
    private const string DigestMismatchCode = "DigestMismatch";

    /// <summary>SQS's default visibility timeout, for a receive that asks for none.</summary>
    private static readonly TimeSpan DefaultVisibilityTimeout = TimeSpan.FromSeconds(30);

    public SdkSqsClient(IAmazonSQS sqs, IReadOnlyDictionary<string, Uri> configuredUrls, BatchLimits sendLimits, string credentialSource, TimeProvider clock, ILogger logger)
    {
        _isolation = new DigestIsolation(clock);
        _logger = logger;
        _sqs = sqs;
        _sendLimits = sendLimits;
        _queueUrls = new QueueUrlCache(configuredUrls, LookUpQueueUrlAsync);
        Site = SdkClientSite.Of(sqs.Config, "sqs");
        _site = new AwsCallSite("SQS", "sqs", Site.Endpoint, Site.Region, credentialSource, null);
        _client = "the application's IAmazonSQS: " + Site.Choice;
    }

    /// <summary>Gets where the client sends and what region it signs for, as the SDK decides them from its configuration.</summary>
    public SdkClientSite Site { get; }

    public string Description => $"the application's IAmazonSQS ({Site.Endpoint.GetLeftPart(UriPartial.Authority)}, signing region {Site.Region}: {Site.Choice})";

    public Task<string> GetQueueUrlAsync(string queue, CancellationToken cancellationToken) => _queueUrls.GetAsync(queue, cancellationToken);

    public async Task<(bool Fifo, bool ContentBasedDeduplication)> GetFifoAttributesAsync(string queue, CancellationToken cancellationToken)
    {
        string url = await GetQueueUrlAsync(queue, cancellationToken).ConfigureAwait(false);
        GetQueueAttributesResponse answer = await CallAsync("GetQueueAttributes", queue, ct => _sqs.GetQueueAttributesAsync(new GetQueueAttributesRequest { QueueUrl = url, AttributeNames = ["FifoQueue", "ContentBasedDeduplication"] }, ct), cancellationToken).ConfigureAwait(false);
        Dictionary<string, string>? attributes = answer.Attributes;
        return (attributes?.GetValueOrDefault("FifoQueue") == "true", attributes?.GetValueOrDefault("ContentBasedDeduplication") == "true");
    }

    public async Task<string> SendAsync(SqsSendRequest request, CancellationToken cancellationToken)
    {
        string url = await GetQueueUrlAsync(request.QueueName, cancellationToken).ConfigureAwait(false);
        var send = new SendMessageRequest
        {
            QueueUrl = url,
            MessageBody = request.Body,
            MessageAttributes = Attributes(request.MessageAttributes),
            MessageGroupId = request.MessageGroupId,
            MessageDeduplicationId = request.MessageDeduplicationId,
            DelaySeconds = request.Delay > TimeSpan.Zero ? SqsClient.Seconds(request.Delay) : null,
        };
        SendMessageResponse answer = await CallAsync("SendMessage", request.QueueName, ct => _sqs.SendMessageAsync(send, ct), cancellationToken).ConfigureAwait(false);
        return answer.MessageId ?? throw new MessageTransportException("SQS SendMessage answered with no MessageId.") { ErrorCode = "MalformedResponse" };
    }

    public async Task<BatchEntryResult[]> SendBatchAsync(string queue, IReadOnlyList<(int Index, SqsSendRequest Request)> requests, CancellationToken cancellationToken)
    {
        string url = await GetQueueUrlAsync(queue, cancellationToken).ConfigureAwait(false);
        return await SqsClient.SendInCallsAsync(url, requests, _sendLimits, async (list, start, end, chunk, ct) =>
        {
            var entries = new List<SendMessageBatchRequestEntry>(end - start);
            for (int i = start; i < end; i++)
            {
                SqsSendRequest request = list[i].Request;
                entries.Add(new SendMessageBatchRequestEntry
                {
                    Id = (i - start).ToString(CultureInfo.InvariantCulture),
                    MessageBody = request.Body,
                    MessageAttributes = Attributes(request.MessageAttributes),
                    MessageGroupId = request.MessageGroupId,
                    MessageDeduplicationId = request.MessageDeduplicationId,
                    DelaySeconds = request.Delay > TimeSpan.Zero ? SqsClient.Seconds(request.Delay) : null,
                });
            }

            SendMessageBatchResponse answer = await CallAsync("SendMessageBatch", queue, c => _sqs.SendMessageBatchAsync(new SendMessageBatchRequest { QueueUrl = url, Entries = entries }, c), ct).ConfigureAwait(false);
            Read(answer.Successful, static e => (e.Id, e.MessageId), answer.Failed, start, end, chunk);
        }, cancellationToken).ConfigureAwait(false);
    }

    public async Task<IReadOnlyList<SqsMessage>> ReceiveAsync(string queue, int maxMessages, TimeSpan waitTime, TimeSpan? visibilityTimeout, CancellationToken cancellationToken)
    {
        string url = await GetQueueUrlAsync(queue, cancellationToken).ConfigureAwait(false);
        bool alone = _isolation.ReceivesAlone(queue);
        var receive = new ReceiveMessageRequest
        {
            QueueUrl = url,
            MaxNumberOfMessages = alone ? 1 : Math.Clamp(maxMessages, 1, 10),
            WaitTimeSeconds = (int)Math.Clamp(Math.Ceiling(waitTime.TotalSeconds), 0, 20),
            VisibilityTimeout = visibilityTimeout is { } visibility ? SqsClient.Seconds(visibility) : null,
            MessageAttributeNames = AllAttributes,
            MessageSystemAttributeNames = SystemAttributeNames,
        };
        ReceiveMessageResponse answer;
        try
        {
            answer = await CallAsync("ReceiveMessage", queue, ct => _sqs.ReceiveMessageAsync(receive, ct), cancellationToken).ConfigureAwait(false);
        }
        catch (MessageTransportException e) when (e.ErrorCode == DigestMismatchCode)
        {
            // The SDK failed the whole receive for one message's digest: the receive's other messages are invisible for
            // their visibility timeout with no receipt to release them. Until they have come back, receives take one
            // message each, so that the message that does not match fails alone and no other's receive count rises again.
            _isolation.Isolate(queue, visibilityTimeout ?? DefaultVisibilityTimeout);
            AwsLog.ReceivedMessageSkipped(_logger, MessageIdIn(e) ?? "(unknown)", queue, $"the application's IAmazonSQS found its digest wrong and failed {(alone ? "the receive" : "the whole receive: the others received with it come back after their visibility timeout")}; receives now take one message at a time until they have");
            return [];
        }

        if (answer.Messages is not { Count: > 0 } messages)
        {
            return [];
        }

        var received = new List<SqsMessage>(messages.Count);
        foreach (Message message in messages)
        {
            received.Add(new SqsMessage
            {
                MessageId = message.MessageId ?? string.Empty,
                ReceiptHandle = message.ReceiptHandle ?? string.Empty,
                Body = message.Body ?? string.Empty,
                SystemAttributes = message.Attributes,
                MessageAttributes = Attributes(message.MessageAttributes)!, // null: none (SqsMessage takes it so)
            });
        }

        return received;
    }

    public async Task<bool> DeleteAsync(string queue, string receiptHandle, CancellationToken cancellationToken)
    {
        string url = await GetQueueUrlAsync(queue, cancellationToken).ConfigureAwait(false);
        return await UnlessGoneAsync("DeleteMessage", queue, ct => _sqs.DeleteMessageAsync(new DeleteMessageRequest { QueueUrl = url, ReceiptHandle = receiptHandle }, ct), cancellationToken).ConfigureAwait(false);
    }

    public async Task<bool> ChangeVisibilityAsync(string queue, string receiptHandle, TimeSpan visibilityTimeout, CancellationToken cancellationToken)
    {
        string url = await GetQueueUrlAsync(queue, cancellationToken).ConfigureAwait(false);
        return await UnlessGoneAsync("ChangeMessageVisibility", queue, ct => _sqs.ChangeMessageVisibilityAsync(new ChangeMessageVisibilityRequest { QueueUrl = url, ReceiptHandle = receiptHandle, VisibilityTimeout = SqsClient.Seconds(visibilityTimeout) }, ct), cancellationToken).ConfigureAwait(false);
    }

    public async Task<BatchEntryResult[]> DeleteBatchAsync(string queue, IReadOnlyList<string> receiptHandles, CancellationToken cancellationToken)
    {
        string url = await GetQueueUrlAsync(queue, cancellationToken).ConfigureAwait(false);
        return await BatchCalls.CallEachAsync(receiptHandles, BatchCalls.SqsReceipts, null, null, "SQS DeleteMessageBatch", async (list, start, end, chunk, ct) =>
        {
            var entries = new List<DeleteMessageBatchRequestEntry>(end - start);
            for (int i = start; i < end; i++)
            {
                entries.Add(new DeleteMessageBatchRequestEntry { Id = (i - start).ToString(CultureInfo.InvariantCulture), ReceiptHandle = list[i] });
            }

            DeleteMessageBatchResponse answer = await CallAsync("DeleteMessageBatch", queue, c => _sqs.DeleteMessageBatchAsync(new DeleteMessageBatchRequest { QueueUrl = url, Entries = entries }, c), ct).ConfigureAwait(false);
            Read(answer.Successful, static e => (e.Id, (string?)null), answer.Failed, start, end, chunk);
        }, cancellationToken).ConfigureAwait(false);
    }

    public async Task<BatchEntryResult[]> ChangeVisibilityBatchAsync(string queue, IReadOnlyList<string> receiptHandles, TimeSpan visibilityTimeout, CancellationToken cancellationToken)
    {
        string url = await GetQueueUrlAsync(queue, cancellationToken).ConfigureAwait(false);
        int seconds = SqsClient.Seconds(visibilityTimeout);
        return await BatchCalls.CallEachAsync(receiptHandles, BatchCalls.SqsReceipts, null, null, "SQS ChangeMessageVisibilityBatch", async (list, start, end, chunk, ct) =>
        {
            var entries = new List<ChangeMessageVisibilityBatchRequestEntry>(end - start);
            for (int i = start; i < end; i++)
            {
                entries.Add(new ChangeMessageVisibilityBatchRequestEntry { Id = (i - start).ToString(CultureInfo.InvariantCulture), ReceiptHandle = list[i], VisibilityTimeout = seconds });
            }

            ChangeMessageVisibilityBatchResponse answer = await CallAsync("ChangeMessageVisibilityBatch", queue, c => _sqs.ChangeMessageVisibilityBatchAsync(new ChangeMessageVisibilityBatchRequest { QueueUrl = url, Entries = entries }, c), ct).ConfigureAwait(false);
            Read(answer.Successful, static e => (e.Id, (string?)null), answer.Failed, start, end, chunk);
        }, cancellationToken).ConfigureAwait(false);
    }

    /// <summary>
    /// The answer of one batch call into <paramref name="results"/>[start..end): entry ids are positions from
    /// <paramref name="start"/>; an entry the answer does not mention may have been taken (<c>NoAnswer</c>).
    /// </summary>
    private static void Read<TSuccess>(List<TSuccess>? successful, Func<TSuccess, (string? Id, string? MessageId)> success, List<BatchResultErrorEntry>? failed, int start, int end, BatchEntryResult[] results)
    {
        Span<bool> answered = stackalloc bool[end - start];
        answered.Clear();
        foreach (TSuccess entry in successful ?? [])
        {
            (string? id, string? messageId) = success(entry);
            int i = Position(id, start, end);
            results[start + i] = BatchEntryResult.Success(start + i, messageId);
            answered[i] = true;
        }

        foreach (BatchResultErrorEntry entry in failed ?? [])
        {
            int i = Position(entry.Id, start, end);
            results[start + i] = new BatchEntryResult(start + i, null, entry.Code ?? "Failed", entry.Message, entry.SenderFault ?? false);
            answered[i] = true;
        }

        for (int i = 0; i < answered.Length; i++)
        {
            if (!answered[i])
            {
                results[start + i] = SqsBatchAnswer.NoAnswer(start + i);
            }
        }
    }

    private static int Position(string? id, int start, int end)
        => int.TryParse(id, NumberStyles.None, CultureInfo.InvariantCulture, out int i) && i < end - start ? i
            : throw new MessageTransportException($"SQS answered about an entry '{id}' that was not sent.") { ErrorCode = "MalformedResponse" };

    private static Dictionary<string, SdkAttribute>? Attributes(IReadOnlyDictionary<string, Missive.MessageAttributeValue> attributes)
    {
        if (attributes.Count == 0)
        {
            return null;
        }

        var converted = new Dictionary<string, SdkAttribute>(attributes.Count, StringComparer.Ordinal);
        foreach ((string name, Missive.MessageAttributeValue value) in attributes)
        {
            converted[name] = value.IsBinary
                ? new SdkAttribute { DataType = value.DataType, BinaryValue = new MemoryStream(value.BinaryValue.ToArray(), writable: false) }
                : new SdkAttribute { DataType = value.DataType, StringValue = value.StringValue };
        }

        return converted;
    }

    private static Dictionary<string, Missive.MessageAttributeValue>? Attributes(Dictionary<string, SdkAttribute>? attributes)
    {
        if (attributes is not { Count: > 0 })
        {
            return null;
        }

        var converted = new Dictionary<string, Missive.MessageAttributeValue>(attributes.Count, StringComparer.Ordinal);
        foreach ((string name, SdkAttribute value) in attributes)
        {
            converted[name] = value.BinaryValue is { } binary
                ? new Missive.MessageAttributeValue { DataType = value.DataType, BinaryValue = binary.ToArray() }
                : new Missive.MessageAttributeValue { DataType = value.DataType, StringValue = value.StringValue };
        }

        return converted;
    }

    private async Task<string> LookUpQueueUrlAsync(string queueName)
    {
        GetQueueUrlResponse answer = await CallAsync("GetQueueUrl", queueName, ct => _sqs.GetQueueUrlAsync(new GetQueueUrlRequest { QueueName = queueName }, ct), CancellationToken.None).ConfigureAwait(false);
        return answer.QueueUrl ?? throw new MessageTransportException("SQS GetQueueUrl answered with no QueueUrl.") { ErrorCode = "MalformedResponse" };
    }

    private async Task<bool> UnlessGoneAsync<T>(string operation, string queue, Func<CancellationToken, Task<T>> call, CancellationToken cancellationToken)
    {
        try
        {
            await CallAsync(operation, queue, call, cancellationToken).ConfigureAwait(false);
            return true;
        }
        catch (MessageTransportException e) when (BatchEntryResult.IsReceiptGone(e.ErrorCode, e.Message))
        {
            return false;
        }
    }

    /// <summary>One SDK call; its failures as <see cref="MessageTransportException"/>s (the caller's own cancellation passes as it is).</summary>
    internal async Task<T> CallAsync<T>(string operation, string queue, Func<CancellationToken, Task<T>> call, CancellationToken cancellationToken)
    {
        try
        {
            return await call(cancellationToken).ConfigureAwait(false);
        }
        catch (Exception e) when (!(e is OperationCanceledException && cancellationToken.IsCancellationRequested) && Failure(e, operation, queue) is { } failure)
        {
            throw failure;
        }
    }

    /// <summary>
    /// An SDK exception as the built-in client reports the same failure: the AWS error code, request id and status;
    /// transient (5xx, throttling, a lost connection, no answer in time) or persistent (an operator must act); what to
    /// check. A queue found gone is forgotten (it may be created again under a new URL).
    /// </summary>
    private MessageTransportException Failure(Exception e, string operation, string queue)
    {
        string resource = _queueUrls.Describe(queue);
        SdkFailure failure = SdkFailure.Of(e);
        if (failure.Kind == SdkFailureKind.Service && SqsClient.IsNonExistentQueue(failure.Code))
        {
            _queueUrls.Forget(queue);
        }

        if (failure.Kind == SdkFailureKind.Other && e is AmazonSQSException)
        {
            // The SDK's own MD5 check of an answer throws AmazonSQSException without code or status: the call reached SQS.
            return new MessageTransportException($"SQS {operation} on {resource}: {e.Message}: the answer does not match what was sent or stored.", e) { ErrorCode = DigestMismatchCode };
        }

        string? hint = failure.Kind == SdkFailureKind.Service ? AwsErrorHints.For(failure.Code, _site with { Resource = resource }, operation, e.Message) : null;
        return failure.ToTransportException(e, $"SQS {operation} on {resource}", _site, _client, hint, SqsClient.IsNonExistentQueue);
    }

    /// <summary>The message id the SDK's digest error names (<c>MD5 hash mismatch for message id {id}</c>), or <c>null</c>.</summary>
    private static string? MessageIdIn(Exception e)
    {
        const string Marker = "message id ";
        string text = e.InnerException?.Message ?? e.Message;
        int at = text.IndexOf(Marker, StringComparison.Ordinal);
        return at < 0 ? null : text[(at + Marker.Length)..].Trim();
    }
}
