using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using Missive.Transport;

namespace Missive.InMemory;

/// <summary>
/// SQS queues, SNS topics and EventBridge buses in process: the embedded transport for samples,
/// tests and benchmarks. It writes the real wire shapes (SNS notification JSON, EventBridge event JSON,
/// raw delivery with attributes), and enforces SQS body rules and size limits with clear errors.
/// </summary>
/// <remarks>
/// Set up the topology first (<see cref="CreateQueue"/>, <see cref="CreateTopic"/>, <see cref="Subscribe"/>,
/// <see cref="CreateEventBus"/>, <see cref="AddRule"/>); every operation is thread-safe. Deliveries SNS or
/// EventBridge would drop (over 10 attributes towards a raw-delivery queue, a queue refusing the
/// message) are counted in <see cref="DroppedDeliveries"/>.
/// </remarks>
public sealed class InMemoryBroker : IMessageTransport
{
    private readonly ConcurrentDictionary<string, InMemoryQueue> _queues = new(StringComparer.Ordinal);
    private readonly ConcurrentDictionary<string, Topic> _topics = new(StringComparer.Ordinal);
    private readonly ConcurrentDictionary<string, List<Rule>> _buses = new(StringComparer.Ordinal);
    private int _dropped;

    /// <summary>Creates a broker.</summary>
    /// <param name="timeProvider">The clock for visibility timeouts and timestamps; <c>null</c> for the system clock.</param>
    public InMemoryBroker(TimeProvider? timeProvider = null) => TimeProvider = timeProvider ?? TimeProvider.System;

    /// <inheritdoc />
    public string Description => $"the in-memory broker (queues: {_queues.Count}, topics: {_topics.Count}, event buses: {_buses.Count})";

    /// <summary>Gets the account id written into ARNs and events.</summary>
    public string AccountId { get; init; } = "123456789012";

    /// <summary>Gets the region written into ARNs and events.</summary>
    public string Region { get; init; } = "eu-west-1";

    /// <summary>Gets the number of deliveries dropped as SNS or EventBridge would drop them.</summary>
    public int DroppedDeliveries => Volatile.Read(ref _dropped);

    internal TimeProvider TimeProvider { get; }

    /// <summary>Creates a queue (or returns the existing one of that name).</summary>
    /// <param name="name">The name; FIFO queue names end in <c>.fifo</c>.</param>
    /// <param name="configure">Queue settings.</param>
    /// <returns>The queue.</returns>
    public InMemoryQueue CreateQueue(string name, Action<InMemoryQueueOptions>? configure = null)
    {
        ArgumentException.ThrowIfNullOrEmpty(name);
        return _queues.GetOrAdd(name, n =>
        {
            var options = new InMemoryQueueOptions { Fifo = FifoRule.IsFifo(n) };
            configure?.Invoke(options);
            if (options.Fifo != FifoRule.IsFifo(n))
            {
                throw new MessageTransportException("A FIFO queue's name must end in '.fifo', and only a FIFO queue's name may.");
            }

            if (options.MaxMessageSize is < 1024 or > SqsRules.MaxMessageSize)
            {
                throw new MessageTransportException("A queue's maximum message size is 1,024 to 1,048,576 bytes.");
            }

            ValidateRedrive(n, options);
            options.Freeze(); // what was validated is what the queue runs with
            return new InMemoryQueue(this, n, options);
        });
    }

    /// <summary>
    /// Refuses the redrive settings SQS refuses, when the queue is created rather than when a message is moved:
    /// a dead-letter queue must exist, be another queue, be of the same kind (FIFO for a FIFO queue, standard
    /// for a standard one) and take messages as large as the queue does; the max receive count is 1 to 1,000.
    /// </summary>
    private void ValidateRedrive(string name, InMemoryQueueOptions options)
    {
        if (options.DeadLetterQueue is not { } deadLetterName)
        {
            return;
        }

        if (deadLetterName == name)
        {
            throw new MessageTransportException($"The queue '{name}' cannot be its own dead-letter queue.");
        }

        if (!_queues.TryGetValue(deadLetterName, out InMemoryQueue? deadLetters))
        {
            throw new MessageTransportException($"The dead-letter queue '{deadLetterName}' of '{name}' does not exist; create it first.");
        }

        if (deadLetters.Options.Fifo != options.Fifo)
        {
            throw new MessageTransportException($"The dead-letter queue of {(options.Fifo ? "a FIFO" : "a standard")} queue must be {(options.Fifo ? "a FIFO" : "a standard")} queue too ('{deadLetterName}' is not).");
        }

        if (deadLetters.Options.MaxMessageSize < options.MaxMessageSize)
        {
            throw new MessageTransportException($"The dead-letter queue '{deadLetterName}' takes messages of at most {deadLetters.Options.MaxMessageSize} bytes, fewer than the {options.MaxMessageSize} of '{name}': a message could not be moved.");
        }

        if (options.MaxReceiveCount is < 1 or > 1000)
        {
            throw new MessageTransportException($"The max receive count of '{name}' must be 1 to 1,000.");
        }
    }

    /// <summary>Gets a queue.</summary>
    /// <param name="name">The name.</param>
    /// <returns>The queue.</returns>
    /// <exception cref="MessageTransportException">No queue has that name.</exception>
    public InMemoryQueue GetQueue(string name)
        => _queues.TryGetValue(name, out InMemoryQueue? queue) ? queue : throw new MessageTransportException($"The queue '{name}' does not exist.") { ErrorCode = "AWS.SimpleQueueService.NonExistentQueue", FailureKind = TransportFailureKind.Persistent };

    /// <summary>Whether a queue of that name exists.</summary>
    internal bool HasQueue(string name) => _queues.ContainsKey(name);

    /// <summary>Whether a topic of that name (or ARN) exists.</summary>
    internal bool HasTopic(string nameOrArn) => _topics.ContainsKey(TopicName(nameOrArn));

    /// <summary>Whether an existing queue deduplicates FIFO messages by content (<c>null</c> when it does not exist).</summary>
    internal bool? QueueDeduplicatesByContent(string name) => _queues.TryGetValue(name, out InMemoryQueue? queue) ? queue.Options.ContentBasedDeduplication : null;

    /// <summary>Whether an existing topic (by name or ARN) deduplicates FIFO messages by content (<c>null</c> when it does not exist).</summary>
    internal bool? TopicDeduplicatesByContent(string nameOrArn) => _topics.TryGetValue(TopicName(nameOrArn), out Topic? topic) ? topic.ContentBasedDeduplication : null;

    /// <summary>Whether an event bus of that name exists.</summary>
    internal bool HasEventBus(string name) => _buses.ContainsKey(name);

    /// <summary>Creates a topic; names ending in <c>.fifo</c> make FIFO topics.</summary>
    /// <param name="name">The name.</param>
    /// <param name="maxMessageSize">The largest message: 256 KiB by default, up to 1 MiB.</param>
    /// <param name="contentBasedDeduplication">Whether a FIFO topic deduplicates by content.</param>
    /// <returns>The topic ARN.</returns>
    public string CreateTopic(string name, int maxMessageSize = SqsRules.DefaultSnsMaxMessageSize, bool contentBasedDeduplication = false)
    {
        ArgumentException.ThrowIfNullOrEmpty(name);
        if (maxMessageSize is < 1024 or > SqsRules.MaxMessageSize)
        {
            throw new MessageTransportException("A topic's maximum message size is 1,024 to 1,048,576 bytes.");
        }

        Topic topic = _topics.GetOrAdd(name, n => new Topic($"arn:aws:sns:{Region}:{AccountId}:{n}", FifoRule.IsFifo(n), maxMessageSize, contentBasedDeduplication));
        return topic.Arn;
    }

    /// <summary>Subscribes a queue to a topic.</summary>
    /// <param name="topicName">The topic.</param>
    /// <param name="queueName">The queue (created with defaults if missing).</param>
    /// <param name="rawMessageDelivery">Deliver the message as is (with attributes as SQS attributes) instead of an SNS notification.</param>
    /// <returns>The subscription's ARN (<c>&lt;topic ARN&gt;:&lt;subscription id&gt;</c>), as the notifications' <c>UnsubscribeURL</c> names it.</returns>
    public string Subscribe(string topicName, string queueName, bool rawMessageDelivery = false)
    {
        Topic topic = GetTopic(topicName);
        InMemoryQueue queue = CreateQueue(queueName);
        var subscription = new Subscription($"{topic.Arn}:{Guid.NewGuid()}", queue, rawMessageDelivery);
        lock (topic.Subscriptions)
        {
            topic.Subscriptions.Add(subscription);
        }

        return subscription.Arn;
    }

    /// <summary>Creates an event bus.</summary>
    /// <param name="name">The name.</param>
    public void CreateEventBus(string name)
    {
        ArgumentException.ThrowIfNullOrEmpty(name);
        _buses.TryAdd(name, []);
    }

    /// <summary>Adds a rule that delivers matching events of a bus to a queue.</summary>
    /// <param name="busName">The bus.</param>
    /// <param name="queueName">The target queue (created with defaults if missing).</param>
    /// <param name="detailTypes">The detail types that match; none means every event.</param>
    public void AddRule(string busName, string queueName, params string[] detailTypes)
    {
        if (!_buses.TryGetValue(busName, out List<Rule>? rules))
        {
            throw new MessageTransportException($"The event bus '{busName}' does not exist.");
        }

        InMemoryQueue queue = CreateQueue(queueName);
        lock (rules)
        {
            rules.Add(new Rule(queue, detailTypes));
        }
    }

    /// <inheritdoc />
    public Task<string> SendAsync(SqsSendRequest request, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(request);
        cancellationToken.ThrowIfCancellationRequested();
        InMemoryQueue queue = GetQueue(request.QueueName);
        return Task.FromResult(queue.Enqueue(request.Body, request.MessageAttributes, request.MessageGroupId, request.MessageDeduplicationId, request.Delay));
    }

    /// <inheritdoc />
    public Task<string> PublishAsync(SnsPublishRequest request, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(request);
        cancellationToken.ThrowIfCancellationRequested();
        Topic topic = GetTopic(request.TopicArn);
        SqsRules.Validate(request.Message, request.MessageAttributes, topic.MaxMessageSize, "topic", maxAttributes: int.MaxValue); // SNS takes more than 10; raw deliveries of them are dropped below
        if (topic.Fifo && string.IsNullOrEmpty(request.MessageGroupId))
        {
            throw new MessageTransportException($"The FIFO topic '{request.TopicArn}' needs a MessageGroupId.") { ErrorCode = "InvalidParameter" };
        }

        if (topic.Fifo && request.MessageDeduplicationId is null && !topic.ContentBasedDeduplication)
        {
            throw new MessageTransportException($"The FIFO topic '{request.TopicArn}' needs a MessageDeduplicationId (content-based deduplication is off): give one in PublishOptions or AddFifoIds, or create the topic with content-based deduplication.") { ErrorCode = "InvalidParameter" };
        }

        string messageId = Guid.NewGuid().ToString();
        long sequence = Interlocked.Increment(ref topic.Sequence);
        DateTimeOffset now = TimeProvider.GetUtcNow();
        Subscription[] subscriptions;
        lock (topic.Subscriptions)
        {
            subscriptions = topic.Subscriptions.ToArray();
        }

        string deduplication = request.MessageDeduplicationId ?? messageId;
        foreach (Subscription subscription in subscriptions)
        {
            try
            {
                if (subscription.Raw)
                {
                    if (request.MessageAttributes.Count > SqsRules.MaxMessageAttributes)
                    {
                        Interlocked.Increment(ref _dropped); // SNS drops it: SQS takes at most 10 attributes
                        continue;
                    }

                    subscription.Queue.Enqueue(request.Message, request.MessageAttributes, request.MessageGroupId, subscription.Queue.Options.Fifo ? deduplication : null, TimeSpan.Zero);
                }
                else
                {
                    string notification = SnsNotificationFormat.Write(messageId, topic.Arn, subscription.Arn, request.Subject, request.Message, now, request.MessageAttributes, Region, topic.Fifo, sequence);
                    subscription.Queue.Enqueue(notification, EmptyAttributes, request.MessageGroupId, subscription.Queue.Options.Fifo ? deduplication : null, TimeSpan.Zero);
                }
            }
            catch (MessageTransportException)
            {
                Interlocked.Increment(ref _dropped); // the queue refused it; SNS would retry and then drop
            }
        }

        return Task.FromResult(messageId);
    }

    /// <inheritdoc />
    public Task<string> PutEventAsync(EventBridgeEntry entry, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(entry);
        cancellationToken.ThrowIfCancellationRequested();
        if (!_buses.TryGetValue(entry.EventBusName, out List<Rule>? rules))
        {
            throw new MessageTransportException($"The event bus '{entry.EventBusName}' does not exist.") { ErrorCode = "ResourceNotFoundException", FailureKind = TransportFailureKind.Persistent };
        }

        if (!EventBridgeEventFormat.IsJsonObject(entry.Detail))
        {
            throw new MessageTransportException("An EventBridge detail must be a JSON object.");
        }

        long size = Encoding.UTF8.GetByteCount(entry.Detail) + Encoding.UTF8.GetByteCount(entry.DetailType) + Encoding.UTF8.GetByteCount(entry.Source);
        if (size > SqsRules.MaxMessageSize)
        {
            throw new MessageTransportException($"The event is {size} bytes, over EventBridge's limit of {SqsRules.MaxMessageSize} bytes.");
        }

        string id = Guid.NewGuid().ToString();
        string body = EventBridgeEventFormat.Write(id, entry, AccountId, Region, entry.Time ?? TimeProvider.GetUtcNow());
        Rule[] matching;
        lock (rules)
        {
            matching = rules.ToArray();
        }

        foreach (Rule rule in matching)
        {
            if (rule.DetailTypes.Length != 0 && Array.IndexOf(rule.DetailTypes, entry.DetailType) < 0)
            {
                continue;
            }

            try
            {
                rule.Queue.Enqueue(body, EmptyAttributes, rule.Queue.Options.Fifo ? id : null, rule.Queue.Options.Fifo ? id : null, TimeSpan.Zero);
            }
            catch (MessageTransportException)
            {
                Interlocked.Increment(ref _dropped);
            }
        }

        return Task.FromResult(id);
    }

    /// <summary>Gets <c>true</c>: a cancelled receive takes nothing from the queue.</summary>
    public bool IsReceiveCancellationSafe => true;

    /// <inheritdoc />
    /// <remarks><c>true</c>: a queue keeps the body as text, decoded when it is sent.</remarks>
    public bool IsDoneWithBodiesWhenCallsComplete => true;

    /// <inheritdoc />
    public Task<IReadOnlyList<SqsMessage>> ReceiveAsync(string queueName, int maxMessages, TimeSpan waitTime, TimeSpan? visibilityTimeout = null, CancellationToken cancellationToken = default)
        => GetQueue(queueName).ReceiveAsync(maxMessages, waitTime, visibilityTimeout, cancellationToken);

    /// <inheritdoc />
    public Task<bool> DeleteAsync(string queueName, string receiptHandle, CancellationToken cancellationToken = default)
        => Task.FromResult(GetQueue(queueName).Delete(receiptHandle));

    /// <inheritdoc />
    public Task<bool> ChangeVisibilityAsync(string queueName, string receiptHandle, TimeSpan visibilityTimeout, CancellationToken cancellationToken = default)
        => Task.FromResult(GetQueue(queueName).ChangeVisibility(receiptHandle, visibilityTimeout));

    private static readonly Dictionary<string, MessageAttributeValue> EmptyAttributes = [];

    private Topic GetTopic(string nameOrArn)
        => _topics.TryGetValue(TopicName(nameOrArn), out Topic? topic) ? topic : throw new MessageTransportException($"The topic '{nameOrArn}' does not exist.") { ErrorCode = "NotFound", FailureKind = TransportFailureKind.Persistent };

    private static string TopicName(string nameOrArn)
        => nameOrArn.StartsWith("arn:", StringComparison.Ordinal) ? nameOrArn[(nameOrArn.LastIndexOf(':') + 1)..] : nameOrArn;

    private sealed class Topic(string arn, bool fifo, int maxMessageSize, bool contentBasedDeduplication)
    {
        public long Sequence;

        public string Arn { get; } = arn;

        public bool Fifo { get; } = fifo;

        public int MaxMessageSize { get; } = maxMessageSize;

        public bool ContentBasedDeduplication { get; } = contentBasedDeduplication;

        public List<Subscription> Subscriptions { get; } = [];
    }

    private sealed record Subscription(string Arn, InMemoryQueue Queue, bool Raw);

    private sealed record Rule(InMemoryQueue Queue, string[] DetailTypes);
}
