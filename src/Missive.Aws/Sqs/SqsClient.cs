using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
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
internal sealed partial class SqsClient : ISqsOperations
{
    private const string TargetPrefix = "AmazonSQS.";
    private static readonly AwsContentType ContentType = new("application/x-amz-json-1.0");

    private readonly AwsServiceClient _service;
    private readonly bool _verifyDigests;
    private readonly BatchLimits _sendLimits;
    private readonly ILogger _logger;
    private readonly QueueUrlCache _queueUrls;

    public SqsClient(AwsServiceClient service, IReadOnlyDictionary<string, Uri> configuredUrls, bool verifyDigests, BatchLimits sendLimits, ILogger logger)
    {
        _sendLimits = sendLimits;
        _service = service;
        _queueUrls = new QueueUrlCache(configuredUrls, LookUpQueueUrlAsync);
        _verifyDigests = verifyDigests;
        _logger = logger;
    }

    /// <summary>Gets what the client is: the built-in one, and its endpoint.</summary>
    public string Description => $"SQS {_service.Endpoint}";

    /// <summary>Gets the URL of a queue: an absolute URL as given, a configured one, or <c>GetQueueUrl</c>'s answer (cached).</summary>
    public Task<string> GetQueueUrlAsync(string queue, CancellationToken cancellationToken) => _queueUrls.GetAsync(queue, cancellationToken);

    /// <summary>Reads whether a queue is FIFO and deduplicates by content (<c>GetQueueAttributes</c>), resolving its URL first.</summary>
    public async Task<(bool Fifo, bool ContentBasedDeduplication)> GetFifoAttributesAsync(string queue, CancellationToken cancellationToken)
    {
        string url = await GetQueueUrlAsync(queue, cancellationToken).ConfigureAwait(false);
        using PooledBufferWriter body = AwsJson.Write(url, static (w, url) =>
        {
            w.WriteString("QueueUrl", url);
            w.WriteStartArray("AttributeNames");
            w.WriteStringValue("FifoQueue");
            w.WriteStringValue("ContentBasedDeduplication");
            w.WriteEndArray();
        });
        using JsonDocument answer = await PostAsync("GetQueueAttributes", body.WrittenMemory, queue, cancellationToken).ConfigureAwait(false);
        if (!answer.RootElement.TryGetProperty("Attributes", out JsonElement attributes) || attributes.ValueKind != JsonValueKind.Object)
        {
            return (false, false); // a standard queue answers neither attribute (and may answer no map at all)
        }

        return (AwsJson.String(attributes, "FifoQueue") == "true", AwsJson.String(attributes, "ContentBasedDeduplication") == "true");
    }

    private async Task<string> LookUpQueueUrlAsync(string queueName)
    {
        using PooledBufferWriter body = AwsJson.Write(queueName, static (w, name) => w.WriteString("QueueName", name));
        using AwsResponse response = await _service.PostAsync("GetQueueUrl", ContentType, TargetPrefix + "GetQueueUrl", body.WrittenMemory, TimeSpan.Zero, AwsAnswer.DefaultLimit, CancellationToken.None, resource: $"queue '{queueName}'").ConfigureAwait(false);
        using JsonDocument answer = AwsJson.Parse(response, "SQS GetQueueUrl");
        return AwsJson.String(answer.RootElement, "QueueUrl") ?? throw Malformed("GetQueueUrl", "no QueueUrl");
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
            return await _service.PostAsync(operation, ContentType, TargetPrefix + operation, body, longPoll, answerLimit, cancellationToken, resource: _queueUrls.Describe(queue)).ConfigureAwait(false);
        }
        catch (MessageTransportException e) when (IsNonExistentQueue(e.ErrorCode))
        {
            _queueUrls.Forget(queue); // the queue may be created again under a new URL
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
        catch (MessageTransportException e) when (BatchEntryResult.IsReceiptGone(e.ErrorCode, e.Message))
        {
            return false;
        }
    }

    private static MessageTransportException Malformed(string operation, string what)
        => new($"SQS {operation} answered with {what}.") { ErrorCode = "MalformedResponse" };

    internal static int Seconds(TimeSpan value) => (int)Math.Clamp(Math.Ceiling(value.TotalSeconds), 0, int.MaxValue);

    internal static bool IsNonExistentQueue(string? code)
        => code is "AWS.SimpleQueueService.NonExistentQueue" or "QueueDoesNotExist";
}
