using System;
using System.Collections.Generic;
using System.Net.Http;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;
using Missive.Aws.EventBridge;
using Missive.Aws.Protocol;
using Missive.Aws.Sns;
using Missive.Aws.Sqs;
using Missive.Offload;
using Missive.Transport;

namespace Missive.Aws;

/// <summary>
/// The bus's transport on Amazon SQS, SNS and EventBridge: their HTTP protocols spoken over
/// <see cref="HttpClient"/> (SQS: AWS JSON 1.0; SNS: Query; EventBridge: AWS JSON 1.1), every request signed with
/// Signature Version 4 over the bytes it sends (credentials from AWSSDK.Core's providers), failures retried as AWS's
/// standard retry mode says.
/// </summary>
/// <remarks>
/// <para>Queues are named by name or URL; names are resolved once with <c>GetQueueUrl</c>. Topics are named
/// by ARN, or by a name configured in <see cref="AwsTransportOptions.TopicArns"/>. Event buses by name or ARN.</para>
/// <para>Every receive asks for all message attributes and for the system attributes the bus reads. The MD5
/// digests SQS returns are checked on send and receive: a received message whose digest does not match (or that is
/// otherwise unreadable: a body that is not UTF-8, an attribute that does not parse) is logged and left in the queue,
/// and the other messages of the receive are returned. Answers are read only as far as the service can send for the
/// call. Failures surface as <see cref="MessageTransportException"/> with the AWS error code and request id, never
/// the message body.</para>
/// <para>With <see cref="AwsTransportOptions.SqsClient"/> or <see cref="AwsTransportOptions.UseSdkSqsClient"/>, the SQS
/// calls go through the AWS SDK's <c>IAmazonSQS</c> instead (its own signing, retries and MD5 checks, which have no
/// switch: a mismatch fails the SDK's whole receive, after which receives take one message at a time for a visibility
/// timeout, so that the message that does not match fails alone; a batch call that fails so reports its entries as
/// maybe taken). A message larger than its service takes is refused before the call
/// (<c>EntryTooLarge</c>).</para>
/// <para>Register it with <c>bus.UseAws(...)</c>, or create it directly (then dispose it).</para>
/// </remarks>
public sealed class AwsTransport : IMessageTransport, IDisposable
{
    private readonly ISqsOperations _sqs;

    /// <summary>Gets the SQS client when it is the application's <see cref="Amazon.SQS.IAmazonSQS"/> (the operator's tool calls it for what the transport does not).</summary>
    internal Sqs.SdkSqsClient? SdkSqs => _sqs as Sqs.SdkSqsClient;
    private readonly SnsClient _sns;
    private readonly EventBridgeClient _eventBridge;
    private readonly List<HttpClient> _owned = [];
    private readonly Dictionary<string, Uri> _queueUrls;
    private readonly Dictionary<string, string> _topicArns;
    private readonly (int Sqs, int Sns, int EventBridge) _maxSize; // the largest message each service takes

    /// <summary>Creates a transport with its own HTTP clients (dispose the transport to release them).</summary>
    /// <param name="options">The options. Must not be null.</param>
    /// <exception cref="MessageBusConfigurationException">An option is out of range (a FIFO queue or topic under a name without <c>.fifo</c> among them), or the region, the credentials or an endpoint cannot be resolved.</exception>
    public AwsTransport(AwsTransportOptions options)
        : this(options, loggerFactory: null)
    {
    }

    /// <summary>Creates a transport with its own HTTP clients (dispose the transport to release them), logging to <paramref name="loggerFactory"/>.</summary>
    /// <param name="options">The options. Must not be null.</param>
    /// <param name="loggerFactory">Where the transport logs (messages left unread, clock corrections), or <c>null</c>.</param>
    /// <exception cref="MessageBusConfigurationException">An option is out of range (a FIFO queue or topic under a name without <c>.fifo</c> among them), or the region, the credentials or an endpoint cannot be resolved.</exception>
    public AwsTransport(AwsTransportOptions options, ILoggerFactory? loggerFactory)
        : this(options, AwsSettings.Resolve(options, Environment.GetEnvironmentVariable), null, TimeProvider.System, loggerFactory?.CreateLogger<AwsTransport>())
    {
    }

    internal AwsTransport(AwsTransportOptions options, AwsSettings settings, Func<string, HttpClient>? httpClients, TimeProvider timeProvider, ILogger? logger = null, Amazon.SQS.IAmazonSQS? sqsClient = null)
    {
        ArgumentNullException.ThrowIfNull(options);

        // The options' own checks hold however the transport is built (UseAws reports them when the host starts, and
        // builds the transport only afterwards): a FIFO queue or topic under a name without .fifo would lose its order.
        var problems = new List<string>();
        AwsTransportOptionsValidator.FindProblems(options, problems);
        if (problems.Count > 0)
        {
            throw new MessageBusConfigurationException(problems);
        }

        ILogger log = logger ?? NullLogger.Instance;
        Settings = settings;
        _queueUrls = new Dictionary<string, Uri>(options.QueueUrls, StringComparer.Ordinal);
        _topicArns = new Dictionary<string, string>(options.TopicArns, StringComparer.Ordinal);
        _maxSize = (options.MaxSqsMessageSize, options.MaxSnsMessageSize, options.MaxEventBridgeEntrySize);
        Retry = new AwsRetryStrategy(options.MaxAttempts, options.MaxBackoff, timeProvider);
        AwsCallSite Site(string service, string iamPrefix, Uri endpoint) => new(service, iamPrefix, endpoint, settings.Region.SystemName, settings.CredentialSource, null);

        HttpClient Client(string signingName)
        {
            if (httpClients is not null)
            {
                return httpClients(signingName);
            }

            var client = new HttpClient(CreateSigningHandler(settings, signingName)) { Timeout = Timeout.InfiniteTimeSpan };
            _owned.Add(client);
            return client;
        }

        BatchLimits sqsSend = BatchCalls.SqsSend.WithMaxEntrySize(options.MaxSqsMessageSize);
        _sqs = (sqsClient ?? options.SqsClient) is { } sdk
            ? new SdkSqsClient(sdk, _queueUrls, sqsSend, "the application's IAmazonSQS", timeProvider, log)
            : new SqsClient(
                new AwsServiceClient("SQS", settings.SqsEndpoint, AwsProtocol.Json, Client(AwsSettings.SqsSigningName), Retry, options.AttemptTimeout, settings.SignerFor(AwsSettings.SqsSigningName), log, Site("SQS", "sqs", settings.SqsEndpoint), ("x-amzn-query-mode", "true")),
                _queueUrls,
                options.VerifyMessageDigests,
                sqsSend,
                log);
        _sns = new SnsClient(
            new AwsServiceClient("SNS", settings.SnsEndpoint, AwsProtocol.Query, Client(AwsSettings.SnsSigningName), Retry, options.AttemptTimeout, settings.SignerFor(AwsSettings.SnsSigningName), log, Site("SNS", "sns", settings.SnsEndpoint)),
            _topicArns,
            BatchCalls.SnsPublish.WithMaxEntrySize(options.MaxSnsMessageSize));
        _eventBridge = new EventBridgeClient(
            new AwsServiceClient("EventBridge", settings.EventBridgeEndpoint, AwsProtocol.Json, Client(AwsSettings.EventBridgeSigningName), Retry, options.AttemptTimeout, settings.SignerFor(AwsSettings.EventBridgeSigningName), log, Site("EventBridge", "events", settings.EventBridgeEndpoint)),
            BatchCalls.EventBridgePutEvents.WithMaxEntrySize(options.MaxEventBridgeEntrySize));
    }

    /// <summary>Gets the region the transport signs for.</summary>
    public string Region => Settings.Region.SystemName;

    /// <summary>Gets the SQS endpoint of the built-in client (with an <c>IAmazonSQS</c>, the endpoint it was configured with, or the region's when it resolves its own).</summary>
    public Uri SqsEndpoint => (_sqs as SdkSqsClient)?.Site.Endpoint ?? Settings.SqsEndpoint;

    /// <summary>Gets whether SQS calls go through the AWS SDK's <c>IAmazonSQS</c> rather than the built-in client.</summary>
    public bool UsesSdkSqsClient => _sqs is SdkSqsClient;

    /// <summary>Gets the SNS endpoint.</summary>
    public Uri SnsEndpoint => Settings.SnsEndpoint;

    /// <summary>Gets where the transport's credentials come from (the options, a profile, the environment, a role), never the credentials.</summary>
    public string CredentialSource => Settings.CredentialSource;

    /// <summary>Gets the EventBridge endpoint.</summary>
    public Uri EventBridgeEndpoint => Settings.EventBridgeEndpoint;

    internal AwsSettings Settings { get; }

    internal AwsRetryStrategy Retry { get; }

    internal ISqsOperations Sqs => _sqs;

    internal SnsClient Sns => _sns;

    internal EventBridgeClient EventBridge => _eventBridge;

    /// <inheritdoc />
    public string Description => $"Amazon SQS, SNS and EventBridge (Missive.Aws): region {Region} (from {Settings.RegionSource}), {(_sqs is SdkSqsClient ? "SQS through " + _sqs.Description : "SQS " + SqsEndpoint)}, SNS {SnsEndpoint}, EventBridge {EventBridgeEndpoint} (endpoints from {EndpointSources()}), credentials from {CredentialSource}";

    /// <summary>What chose the endpoints of the built-in clients, once when they agree.</summary>
    private string EndpointSources()
    {
        string sns = Settings.SnsEndpointSource, events = Settings.EventBridgeEndpointSource;
        string sqs = _sqs is SdkSqsClient ? sns : Settings.SqsEndpointSource;
        return sqs == sns && sns == events ? sns : $"SQS: {sqs}; SNS: {sns}; EventBridge: {events}";
    }

    /// <inheritdoc />
    /// <remarks><c>true</c>: a body is read while the request is written and its digest checked, both within the call.</remarks>
    public bool IsDoneWithBodiesWhenCallsComplete => true;

    /// <inheritdoc />
    /// <remarks><c>true</c>: SQS, SNS and EventBridge deliver to whoever receives from the queue.</remarks>
    public bool DeliversToOtherProcesses => true;

    /// <inheritdoc />
    public Task<string> SendAsync(SqsSendRequest request, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(request);
        if (request.ComputeSize() is var size && size > _maxSize.Sqs)
        {
            return Task.FromException<string>(BatchCalls.TooLarge("SQS SendMessage", $"the queue '{request.QueueName}'", size, _maxSize.Sqs));
        }

        return _sqs.SendAsync(request, cancellationToken);
    }

    /// <inheritdoc />
    public Task<string> PublishAsync(SnsPublishRequest request, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(request);
        if (request.ComputeSize() is var size && size > _maxSize.Sns)
        {
            return Task.FromException<string>(BatchCalls.TooLarge("SNS Publish", $"the topic '{request.TopicArn}'", size, _maxSize.Sns));
        }

        return _sns.PublishAsync(request, cancellationToken);
    }

    /// <inheritdoc />
    public Task<string> PutEventAsync(EventBridgeEntry entry, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(entry);
        if (BatchCalls.EventBridgeEntrySize(entry) is var size && size > _maxSize.EventBridge)
        {
            return Task.FromException<string>(BatchCalls.TooLarge("EventBridge PutEvents", $"the event bus '{entry.EventBusName}'", size, _maxSize.EventBridge));
        }

        return _eventBridge.PutEventAsync(entry, cancellationToken);
    }

    /// <inheritdoc />
    public Task<IReadOnlyList<SqsMessage>> ReceiveAsync(string queueName, int maxMessages, TimeSpan waitTime, TimeSpan? visibilityTimeout = null, CancellationToken cancellationToken = default)
        => _sqs.ReceiveAsync(queueName, maxMessages, waitTime, visibilityTimeout, cancellationToken);

    /// <inheritdoc />
    /// <remarks>A payload location that an offloading receive put before the handle is stripped (<see cref="PayloadLocation.SqsReceiptHandle"/>); the payload is not deleted here.</remarks>
    public Task<bool> DeleteAsync(string queueName, string receiptHandle, CancellationToken cancellationToken = default)
        => _sqs.DeleteAsync(queueName, PayloadLocation.SqsReceiptHandle(receiptHandle), cancellationToken);

    /// <inheritdoc />
    /// <remarks>A payload location that an offloading receive put before the handle is stripped (<see cref="PayloadLocation.SqsReceiptHandle"/>).</remarks>
    public Task<bool> ChangeVisibilityAsync(string queueName, string receiptHandle, TimeSpan visibilityTimeout, CancellationToken cancellationToken = default)
        => _sqs.ChangeVisibilityAsync(queueName, PayloadLocation.SqsReceiptHandle(receiptHandle), visibilityTimeout, cancellationToken);

    /// <inheritdoc />
    /// <remarks>
    /// In <c>SendMessageBatch</c> calls within SQS's limits (10 entries, 1 MiB), one queue after another. Entries SQS
    /// failed on its side (<see cref="BatchEntryResult.SenderFault"/> false) are sent again in a new call under the
    /// standard retry mode (its attempts, backoff and quota), except on a FIFO queue, where a later message of the group
    /// may already be sent.
    /// </remarks>
    public async Task<IReadOnlyList<BatchEntryResult>> SendBatchAsync(IReadOnlyList<SqsSendRequest> requests, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(requests);
        return await BatchEntryRetry.SendByDestinationAsync(Retry, requests, static r => r.QueueName, IsFifoQueue, _sqs.SendBatchAsync, cancellationToken).ConfigureAwait(false);
    }

    /// <inheritdoc />
    /// <remarks>
    /// In <c>PublishBatch</c> calls within SNS's limits (10 entries, 256 KiB), one topic after another; entries SNS failed
    /// on its side are sent again as for <see cref="SendBatchAsync"/>, except on a FIFO topic.
    /// </remarks>
    public async Task<IReadOnlyList<BatchEntryResult>> PublishBatchAsync(IReadOnlyList<SnsPublishRequest> requests, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(requests);
        return await BatchEntryRetry.SendByDestinationAsync(Retry, requests, static r => r.TopicArn, IsFifoTopic, _sns.PublishBatchAsync, cancellationToken).ConfigureAwait(false);
    }

    /// <summary>Puts several events on EventBridge: the former name of <see cref="PutEventBatchAsync"/>.</summary>
    /// <param name="entries">The events. Must not be null.</param>
    /// <param name="cancellationToken">Cancels the calls.</param>
    /// <returns>One result per entry, in order.</returns>
    [Obsolete("Use PutEventBatchAsync, named like SendBatchAsync and PublishBatchAsync. PutEventsAsync will be removed in a later release.")]
    public Task<IReadOnlyList<BatchEntryResult>> PutEventsAsync(IReadOnlyList<EventBridgeEntry> entries, CancellationToken cancellationToken = default)
        => PutEventBatchAsync(entries, cancellationToken);

    /// <inheritdoc />
    /// <remarks>
    /// In <c>PutEvents</c> calls within EventBridge's limits (10 entries, their sizes together under 256 KiB); entries
    /// EventBridge failed on its side (throttling, an internal failure) are sent again as for <see cref="SendBatchAsync"/>.
    /// </remarks>
    public async Task<IReadOnlyList<BatchEntryResult>> PutEventBatchAsync(IReadOnlyList<EventBridgeEntry> entries, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(entries);
        return await BatchEntryRetry.SendByDestinationAsync(Retry, entries, static _ => string.Empty, static _ => false, (_, indexed, ct) => _eventBridge.PutEventBatchAsync(indexed, ct), cancellationToken).ConfigureAwait(false);
    }

    /// <inheritdoc />
    /// <remarks>Payload locations that an offloading receive put before the handles are stripped, as for <see cref="DeleteAsync"/>.</remarks>
    public async Task<IReadOnlyList<BatchEntryResult>> DeleteBatchAsync(string queueName, IReadOnlyList<string> receiptHandles, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(receiptHandles);
        return await _sqs.DeleteBatchAsync(queueName, SqsReceiptHandles(receiptHandles), cancellationToken).ConfigureAwait(false);
    }

    /// <inheritdoc />
    /// <remarks>Payload locations that an offloading receive put before the handles are stripped, as for <see cref="DeleteAsync"/>.</remarks>
    public async Task<IReadOnlyList<BatchEntryResult>> ChangeVisibilityBatchAsync(string queueName, IReadOnlyList<string> receiptHandles, TimeSpan visibilityTimeout, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(receiptHandles);
        return await _sqs.ChangeVisibilityBatchAsync(queueName, SqsReceiptHandles(receiptHandles), visibilityTimeout, cancellationToken).ConfigureAwait(false);
    }

    /// <summary>The handles as SQS issued them: the list itself unless one carries a payload location.</summary>
    private static IReadOnlyList<string> SqsReceiptHandles(IReadOnlyList<string> receiptHandles)
    {
        string[]? stripped = null;
        for (int i = 0; i < receiptHandles.Count; i++)
        {
            string handle = PayloadLocation.SqsReceiptHandle(receiptHandles[i]);
            if (!ReferenceEquals(handle, receiptHandles[i]))
            {
                stripped ??= [.. receiptHandles];
                stripped[i] = handle;
            }
        }

        return stripped ?? receiptHandles;
    }

    /// <summary>Gets a queue's URL: the URL given, a configured one, or <c>GetQueueUrl</c>'s answer (asked once, then cached).</summary>
    /// <param name="queueName">The queue name or URL.</param>
    /// <param name="cancellationToken">Cancels the wait.</param>
    /// <returns>The URL.</returns>
    public Task<string> GetQueueUrlAsync(string queueName, CancellationToken cancellationToken = default)
        => _sqs.GetQueueUrlAsync(queueName, cancellationToken);

    /// <summary>Releases the HTTP clients the transport created itself.</summary>
    public void Dispose()
    {
        foreach (HttpClient client in _owned)
        {
            client.Dispose();
        }

        _owned.Clear();
    }

    /// <summary>
    /// The handler chain below the transport's retries: the service's SigV4 signer over a socket handler that never
    /// follows redirects (a followed redirect would not be signed again).
    /// </summary>
    internal static HttpMessageHandler CreateSigningHandler(AwsSettings settings, string signingName)
        => new SigV4Handler(settings.SignerFor(signingName), new SocketsHttpHandler { AllowAutoRedirect = false, PooledConnectionLifetime = TimeSpan.FromMinutes(5) });

    /// <summary>The service's signing handler over <paramref name="inner"/> (tests put a recording handler there).</summary>
    internal static DelegatingHandler CreateSigningHandler(AwsSettings settings, string signingName, HttpMessageHandler inner)
        => new SigV4Handler(settings.SignerFor(signingName), inner);

    /// <summary>A signing handler of its own over <paramref name="inner"/>; <paramref name="signedAt"/> fixes the signing time (the published test vectors), else the clock is used.</summary>
    internal static DelegatingHandler CreateSigningHandler(Amazon.Runtime.AWSCredentials credentials, Amazon.RegionEndpoint region, string signingName, HttpMessageHandler inner, DateTime? signedAt = null)
        => new SigV4Handler(new SigV4Signer(credentials, region.SystemName, signingName, TimeProvider.System, signedAt), inner);

    /// <summary>Whether a queue, by its name or URL or by the URL configured for its name, is FIFO (<see cref="FifoRule"/>).</summary>
    private bool IsFifoQueue(string queue)
        => FifoRule.IsFifo(queue) || (_queueUrls.TryGetValue(queue, out Uri? url) && FifoRule.IsFifo(url.AbsolutePath));

    /// <summary>Whether a topic, by its ARN or by the ARN configured for its name, is FIFO (<see cref="FifoRule"/>).</summary>
    private bool IsFifoTopic(string topic)
        => FifoRule.IsFifo(topic) || (_topicArns.TryGetValue(topic, out string? arn) && FifoRule.IsFifo(arn));
}
