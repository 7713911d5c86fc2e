using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Amazon.S3;
using Amazon.SQS;
using Amazon.SQS.Model;
using Missive.Aws;
using Missive.Offload;
using Missive.Transport;

namespace Missive.Tool;

/// <summary>The clients of one run of the tool, and the reads every command shares.</summary>
internal sealed class ToolSession : IDisposable
{
    /// <summary>How long a message the tool looks at stays invisible to others before the tool makes it visible again (or, if the tool is stopped, SQS does).</summary>
    public static readonly TimeSpan Hold = TimeSpan.FromSeconds(30);

    private readonly AmazonSQSClient _sqs;
    private readonly AmazonS3Client? _s3;
    private readonly S3PayloadStore? _store;

    /// <param name="settings">Where calls go.</param>
    /// <param name="queues">The queues the command names, by name or URL.</param>
    /// <param name="payloadBuckets">The buckets claim-checked payloads are fetched from, or none.</param>
    public ToolSession(ToolSettings settings, IEnumerable<string> queues, IReadOnlyCollection<string> payloadBuckets)
    {
        Settings = settings;
        _sqs = settings.CreateSqs();
        var urls = new Dictionary<string, Uri>(StringComparer.Ordinal);
        foreach (string queue in queues)
        {
            if (AsUrl(queue) is { } url)
            {
                urls[NameIn(url)] = url;
            }
        }

        Transport = settings.CreateTransport(_sqs, urls);
        PayloadResolver? resolver = null;
        if (payloadBuckets.Count > 0)
        {
            _s3 = settings.CreateS3();
            _store = new S3PayloadStore(new S3PayloadStoreOptions { Bucket = payloadBuckets.First() }, _s3);
            var options = new PayloadOffloadOptions();
            foreach (string bucket in payloadBuckets)
            {
                options.ReadableBuckets.Add(bucket);
            }

            resolver = new PayloadResolver(_store, options);
        }

        Decoder = new MessageDecoder(resolver);
    }

    public ToolSettings Settings { get; }

    public AwsTransport Transport { get; }

    public MessageDecoder Decoder { get; }

    /// <summary>The queues' oldest messages' ages from CloudWatch (by queue name), or why there are none.</summary>
    public Task<(Dictionary<string, TimeSpan?> Ages, string? Unavailable)> OldestMessageAgesAsync(IReadOnlyList<string> queues, CancellationToken cancellationToken)
        => OldestMessageAge.ReadAsync(queues.Select(QueueName).ToList(), Settings.ResolveCredentials(), ToolSettings.RegionOf(_sqs), Settings.CloudWatchEndpoint, cancellationToken);

    /// <summary>
    /// Receives up to <paramref name="max"/> distinct messages that pass <paramref name="filter"/>, decoded, and makes
    /// every message received visible again before returning (whatever happened).
    /// </summary>
    public async Task<List<DecodedMessage>> PeekAsync(string queue, int max, MessageFilter filter, CancellationToken cancellationToken)
    {
        string name = QueueName(queue);
        var held = new Dictionary<string, string>(StringComparer.Ordinal); // message id → latest receipt handle
        var shown = new List<DecodedMessage>();
        try
        {
            int quiet = 0;
            while (shown.Count < max && quiet < 2)
            {
                IReadOnlyList<SqsMessage> received = await Transport.ReceiveAsync(name, 10, TimeSpan.FromSeconds(1), Hold, cancellationToken).ConfigureAwait(false);
                bool anyNew = false;
                foreach (SqsMessage message in received)
                {
                    bool seen = held.ContainsKey(message.MessageId);
                    held[message.MessageId] = message.ReceiptHandle;
                    if (seen || shown.Count >= max)
                    {
                        continue;
                    }

                    anyNew = true;
                    DecodedMessage decoded = await Decoder.DecodeAsync(message, cancellationToken).ConfigureAwait(false);
                    if (filter.Matches(decoded))
                    {
                        shown.Add(decoded);
                    }
                }

                quiet = anyNew ? 0 : quiet + 1;
            }
        }
        finally
        {
            await ReleaseAsync(name, held.Values.ToList()).ConfigureAwait(false);
        }

        return shown;
    }

    /// <summary>Makes messages visible again at once; a failure leaves them to come back after <see cref="Hold"/>.</summary>
    public async Task ReleaseAsync(string queue, IReadOnlyList<string> receiptHandles)
    {
        for (int i = 0; i < receiptHandles.Count; i += 10)
        {
            using var deadline = new CancellationTokenSource(TimeSpan.FromSeconds(30));
            try
            {
                await Transport.ChangeVisibilityBatchAsync(queue, receiptHandles.Skip(i).Take(10).ToList(), TimeSpan.Zero, deadline.Token).ConfigureAwait(false);
            }
            catch (Exception e) when (e is MessageTransportException or OperationCanceledException)
            {
                // They come back on their own after the hold.
            }
        }
    }

    /// <summary>The name the transport knows a queue by: its own, or the last segment of its URL (mapped to that URL).</summary>
    public static string QueueName(string queue) => AsUrl(queue) is { } url ? NameIn(url) : queue;

    private static Uri? AsUrl(string queue)
        => Uri.TryCreate(queue, UriKind.Absolute, out Uri? url) && (url.Scheme == Uri.UriSchemeHttps || url.Scheme == Uri.UriSchemeHttp) ? url : null;

    private static string NameIn(Uri url) => url.Segments[^1].TrimEnd('/');

    /// <summary>The queue's URL: as given, or as SQS tells it (a missing queue named with the endpoint and region asked).</summary>
    public Task<string> QueueUrlAsync(string queue, CancellationToken cancellationToken)
        => AsUrl(queue) is not null ? Task.FromResult(queue) : SdkSqs.GetQueueUrlAsync(queue, cancellationToken);

    /// <summary>The queue's attributes, as SQS gives them (a failure in the transport's words: endpoint, region, what to check).</summary>
    public async Task<Dictionary<string, string>> AttributesAsync(string queue, List<string> names, CancellationToken cancellationToken)
    {
        string url = await QueueUrlAsync(queue, cancellationToken).ConfigureAwait(false);
        GetQueueAttributesResponse answer = await SdkSqs.CallAsync("GetQueueAttributes", QueueName(queue), ct => _sqs.GetQueueAttributesAsync(new GetQueueAttributesRequest { QueueUrl = url, AttributeNames = names }, ct), cancellationToken).ConfigureAwait(false);
        return answer.Attributes ?? [];
    }

    /// <summary>The queues whose redrive policy names <paramref name="deadLetterQueue"/>: SQS's own list, or where the service has no such call, its queues' policies read one by one.</summary>
    public async Task<List<string>> SourceQueuesAsync(string deadLetterQueue, CancellationToken cancellationToken)
    {
        string url = await QueueUrlAsync(deadLetterQueue, cancellationToken).ConfigureAwait(false);
        try
        {
            ListDeadLetterSourceQueuesResponse sources = await _sqs.ListDeadLetterSourceQueuesAsync(new ListDeadLetterSourceQueuesRequest { QueueUrl = url }, cancellationToken).ConfigureAwait(false);
            return sources.QueueUrls ?? [];
        }
        catch (AmazonSQSException e) when (e.ErrorCode is "InvalidAction" or "UnknownOperationException")
        {
            string arn = (await AttributesAsync(deadLetterQueue, ["QueueArn"], cancellationToken).ConfigureAwait(false)).GetValueOrDefault("QueueArn") ?? string.Empty;
            var found = new List<string>();
            ListQueuesResponse queues = await SdkSqs.CallAsync("ListQueues", QueueName(deadLetterQueue), ct => _sqs.ListQueuesAsync(new ListQueuesRequest(), ct), cancellationToken).ConfigureAwait(false);
            foreach (string candidate in queues.QueueUrls ?? [])
            {
                if (RedrivePolicy.Parse((await AttributesAsync(candidate, ["RedrivePolicy"], cancellationToken).ConfigureAwait(false)).GetValueOrDefault("RedrivePolicy")) is { } policy && policy.DeadLetterTargetArn == arn)
                {
                    found.Add(candidate);
                }
            }

            return found;
        }
    }

    /// <summary>
    /// Starts SQS's own message move task from <paramref name="deadLetterQueue"/> (to <paramref name="target"/>, or to
    /// the queues its messages came from) and returns its handle, or <c>null</c> when the service has no such call.
    /// </summary>
    public async Task<(string Handle, string SourceArn)?> StartMoveAsync(string deadLetterQueue, string? target, int? perSecond, CancellationToken cancellationToken)
    {
        string sourceArn = await ArnAsync(deadLetterQueue, cancellationToken).ConfigureAwait(false);
        string? destinationArn = target is null ? null : await ArnAsync(target, cancellationToken).ConfigureAwait(false);
        try
        {
            StartMessageMoveTaskResponse started = await _sqs.StartMessageMoveTaskAsync(new StartMessageMoveTaskRequest { SourceArn = sourceArn, DestinationArn = destinationArn, MaxNumberOfMessagesPerSecond = perSecond }, cancellationToken).ConfigureAwait(false);
            return (started.TaskHandle, sourceArn);
        }
        catch (AmazonSQSException e) when (e.ErrorCode is "InvalidAction" or "UnknownOperationException")
        {
            return null;
        }
    }

    /// <summary>The move task of <paramref name="sourceArn"/> as SQS last reported it (the most recent one).</summary>
    public async Task<ListMessageMoveTasksResultEntry?> MoveTaskAsync(string sourceArn, CancellationToken cancellationToken)
    {
        ListMessageMoveTasksResponse tasks = await _sqs.ListMessageMoveTasksAsync(new ListMessageMoveTasksRequest { SourceArn = sourceArn, MaxResults = 1 }, cancellationToken).ConfigureAwait(false);
        return tasks.Results is { Count: > 0 } results ? results[0] : null;
    }

    private async Task<string> ArnAsync(string queue, CancellationToken cancellationToken)
        => (await AttributesAsync(queue, ["QueueArn"], cancellationToken).ConfigureAwait(false)).GetValueOrDefault("QueueArn")
            ?? throw new ToolException($"SQS gave no ARN for queue '{queue}'.");

    /// <summary>The queue's <c>maxReceiveCount</c> when it has a redrive policy, else <c>null</c>.</summary>
    public async Task<int?> MaxReceiveCountAsync(string queue, CancellationToken cancellationToken)
        => RedrivePolicy.Parse((await AttributesAsync(queue, ["RedrivePolicy"], cancellationToken).ConfigureAwait(false)).GetValueOrDefault("RedrivePolicy"))?.MaxReceiveCount;

    private Missive.Aws.Sqs.SdkSqsClient SdkSqs => Transport.SdkSqs ?? throw new InvalidOperationException("The transport is on the SDK's client.");

    public void Dispose()
    {
        Transport.Dispose();
        _store?.Dispose();
        _s3?.Dispose();
        _sqs.Dispose();
    }
}

/// <summary>Which decoded messages a command takes: by CloudEvents type and source, and by the time SQS says they were sent.</summary>
internal sealed class MessageFilter(IReadOnlyCollection<string> types, string? source, DateTimeOffset? since, DateTimeOffset? until)
{
    public bool IsEmpty => types.Count == 0 && source is null && since is null && until is null;

    public bool Matches(DecodedMessage message)
    {
        if (types.Count > 0 && (message.Type is not { } type || !types.Contains(type)))
        {
            return false;
        }

        if (source is not null && !string.Equals(message.Envelope?.Source, source, StringComparison.Ordinal))
        {
            return false;
        }

        DateTimeOffset? sent = message.SentAt;
        return (since is null || (sent is { } s && s >= since)) && (until is null || (sent is { } u && u < until));
    }
}
