using System;
using System.Collections.Generic;
using System.Diagnostics.CodeAnalysis;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Missive.Bus;
using Missive.InMemory;
using Missive.Offload;
using Missive.Serialization;
using Missive.Transport;

namespace Missive;

/// <summary>
/// Configures the message bus inside <c>services.AddMessageBus(bus => …)</c>: message types,
/// serialization options, the envelope source and the experimental serializers.
/// </summary>
public sealed partial class MessageBusBuilder
{
    private readonly List<Action<MessageTypeMap>> _registrations = [];
    private readonly HashSet<string> _identifiers = new(StringComparer.Ordinal);
    private readonly HashSet<Type> _types = [];

    internal MessageBusBuilder(IServiceCollection services) => Services = services;

    /// <summary>Gets the service collection being configured.</summary>
    public IServiceCollection Services { get; }

    internal string Source { get; private set; } = EnvelopeFactory.DefaultSource;

    internal bool ExperimentalFeaturesEnabled { get; private set; }

    internal ExperimentalFeaturesOptions ExperimentalFeatures { get; } = new();

    internal IReadOnlyList<Action<MessageTypeMap>> Registrations => _registrations;

    internal BusConfiguration Bus { get; } = new();

    internal Lambda.SqsEventProcessorOptions LambdaProcessor { get; } = new();

    internal bool HasMessageType(Type type) => _types.Contains(type);

    /// <summary>
    /// Registers a message type and an envelope <c>type</c> that identifies it. Call it again with another identifier to
    /// give the type several: the first is the default when publishing, <see cref="Bus.PublishOptions.TypeIdentifier"/> picks
    /// another, and envelopes of every one are read as the type and go to its handler.
    /// </summary>
    /// <typeparam name="T">The message type.</typeparam>
    /// <param name="typeIdentifier">The identifier. Must not be null or empty, and unique.</param>
    /// <param name="dataContentType">The <c>datacontenttype</c> to write, or <c>null</c> for the default of the type's kind (see <see cref="MessageTypeMap"/>).</param>
    /// <returns>This builder.</returns>
    /// <remarks>An identifier registered twice is reported when the host starts (<see cref="MessageBusConfigurationException"/>).</remarks>
    public MessageBusBuilder AddMessageType<T>(string typeIdentifier, string? dataContentType = null)
    {
        AddIdentifier<T>(typeIdentifier);
        _registrations.Add(map => map.Add<T>(typeIdentifier, dataContentType));
        return this;
    }

    /// <summary>
    /// Registers a message type whose data <paramref name="messageSerializer"/> writes and reads, in place of System.Text.Json
    /// or <see cref="SerializationOptions.MessageSerializer"/>: JSON-typed text is embedded, other text is a JSON string.
    /// </summary>
    /// <typeparam name="T">The message type.</typeparam>
    /// <param name="typeIdentifier">The identifier. Must not be null or empty, and unique.</param>
    /// <param name="messageSerializer">The serializer of this type's data. Must not be null.</param>
    /// <param name="dataContentType">The <c>datacontenttype</c> to write, or <c>null</c> for the serializer's content type.</param>
    /// <returns>This builder.</returns>
    /// <remarks>An identifier registered twice, or the type with another serializer, is reported when the host starts (<see cref="MessageBusConfigurationException"/>).</remarks>
    public MessageBusBuilder AddMessageType<T>(string typeIdentifier, IStringMessageSerializer messageSerializer, string? dataContentType = null)
    {
        ArgumentNullException.ThrowIfNull(messageSerializer);
        AddIdentifier<T>(typeIdentifier);
        _registrations.Add(map => map.Add<T>(typeIdentifier, messageSerializer, dataContentType));
        return this;
    }

    private void AddIdentifier<T>(string typeIdentifier)
    {
        _types.Add(typeof(T));
        if (string.IsNullOrEmpty(typeIdentifier))
        {
            Problem($"{typeof(T).FullName} is registered with an empty type identifier: write AddMessageType<{typeof(T).Name}>(\"its.type.identifier\").");
        }
        else if (!_identifiers.Add(typeIdentifier))
        {
            Problem($"The type identifier '{typeIdentifier}' is registered twice; identifiers must be unique: give one of the AddMessageType calls another.");
        }
    }

    /// <summary>Notes a configuration problem; they are all reported together when the host starts.</summary>
    private void Problem(string problem) => Bus.Problems.Add(problem);

    /// <summary>Configures serialization options (applied in order with any other configuration of <see cref="SerializationOptions"/>).</summary>
    /// <param name="configure">The configuration. Must not be null.</param>
    /// <returns>This builder.</returns>
    public MessageBusBuilder ConfigureSerialization(Action<SerializationOptions> configure)
    {
        ArgumentNullException.ThrowIfNull(configure);
        Services.Configure(configure);
        return this;
    }

    /// <summary>Sets the <c>source</c> of the envelopes this application publishes.</summary>
    /// <param name="source">A URI reference, for example <c>/orders-service</c>. Must not be null.</param>
    /// <returns>This builder.</returns>
    /// <remarks>A source that is not a URI reference is reported when the host starts (<see cref="MessageBusConfigurationException"/>).</remarks>
    public MessageBusBuilder UseMessageSource(string source)
    {
        ArgumentNullException.ThrowIfNull(source);
        if (!CloudEventRules.IsUriReference(source))
        {
            Problem("The message source given to UseMessageSource is not a URI reference: write one without spaces or control characters, for example \"/orders-service\".");
            return this;
        }

        Source = source;
        return this;
    }

    /// <summary>
    /// Switches envelope serialization to the high-performance path: <see cref="IEnvelopeSerializer"/>
    /// becomes <see cref="Json.Utf8JsonEnvelopeSerializer"/> instead of
    /// <see cref="Json.StandardJsonEnvelopeSerializer"/>. Both write the same JSON, so applications
    /// with and without the switch read each other's messages.
    /// </summary>
    /// <param name="configure">Optional settings of the experimental features.</param>
    /// <returns>This builder.</returns>
    public MessageBusBuilder EnableExperimentalFeatures(Action<ExperimentalFeaturesOptions>? configure = null)
    {
        ExperimentalFeaturesEnabled = true;
        configure?.Invoke(ExperimentalFeatures);
        return this;
    }

    /// <summary>Publishes messages of type <typeparamref name="T"/> to an SQS queue.</summary>
    /// <typeparam name="T">The message type; it must also be registered with <see cref="AddMessageType{T}(string, string?)"/>.</typeparam>
    /// <param name="queueName">The queue: its name (on AWS resolved once with <c>GetQueueUrl</c>, or from <c>AwsTransportOptions.QueueUrls</c>), or on AWS its URL.</param>
    /// <param name="format">The envelope format, or <c>null</c> for the publish format.</param>
    /// <returns>This builder.</returns>
    public MessageBusBuilder AddSqsPublisher<T>(string queueName, EnvelopeFormat? format = null) => AddRoute<T>(RouteKind.Sqs, queueName, format);

    /// <summary>Publishes messages of type <typeparamref name="T"/> to an SNS topic.</summary>
    /// <typeparam name="T">The message type; it must also be registered with <see cref="AddMessageType{T}(string, string?)"/>.</typeparam>
    /// <param name="topic">The topic: its name (on AWS, a name needs its ARN in <c>AwsTransportOptions.TopicArns</c>), or its ARN.</param>
    /// <param name="format">The envelope format, or <c>null</c> for the publish format.</param>
    /// <returns>This builder.</returns>
    public MessageBusBuilder AddSnsPublisher<T>(string topic, EnvelopeFormat? format = null) => AddRoute<T>(RouteKind.Sns, topic, format);

    /// <summary>Publishes messages of type <typeparamref name="T"/> to an EventBridge event bus.</summary>
    /// <typeparam name="T">The message type; it must also be registered with <see cref="AddMessageType{T}(string, string?)"/>.</typeparam>
    /// <param name="eventBus">The event bus.</param>
    /// <param name="format">The envelope format, or <c>null</c> for the publish format.</param>
    /// <returns>This builder.</returns>
    public MessageBusBuilder AddEventBridgePublisher<T>(string eventBus, EnvelopeFormat? format = null) => AddRoute<T>(RouteKind.EventBridge, eventBus, format);

    /// <summary>
    /// Publishes messages of type <typeparamref name="T"/> without a CloudEvents envelope, for consumers that do not
    /// speak CloudEvents: the body is the message's JSON as its registration writes it (the <c>data</c> an envelope would
    /// carry), with the type identifier in the <c>MessageType</c> message attribute on SQS and SNS
    /// (<see cref="OutboundMessageWriter.MessageTypeAttribute"/>), or as the <c>detail-type</c> on EventBridge (the
    /// <c>detail</c> is the message's JSON, the <c>source</c> the bus's source). The envelope's id, time and extensions
    /// (trace context among them) are not sent. A Missive consumer reads such messages with a native message rule
    /// (<see cref="NativeMessageRules.WhenMessageAttribute{T}"/> with <c>MessageType</c>, or
    /// <see cref="NativeMessageRules.WhenEventBridgeEvent{T}"/>). The type needs a publisher (<see cref="AddSqsPublisher{T}"/>, …).
    /// </summary>
    /// <typeparam name="T">The message type.</typeparam>
    /// <returns>This builder.</returns>
    public MessageBusBuilder PublishWithoutEnvelope<T>()
    {
        Bus.PublishedWithoutEnvelope.Add(typeof(T));
        return this;
    }

    /// <summary>
    /// Publishes messages of type <typeparamref name="T"/> in MassTransit's JSON envelope, for MassTransit consumers on
    /// the same queues and topics (SQS and SNS publishers; MassTransit does not read EventBridge): <c>messageType</c> the
    /// URN, <c>message</c> the message's JSON as its registration writes it, <c>messageId</c> the envelope's id (a new
    /// GUID when the id is not one), <c>sentTime</c> its time, <c>sourceAddress</c> its source when that is an absolute
    /// URI; the message attributes <c>Content-Type</c> (<c>application/vnd.masstransit+json</c>) and, when the publish
    /// carries trace context, <c>MT-Activity-Id</c>. A Missive consumer reads it with
    /// <see cref="NativeMessageRules.WhenMassTransit{T}"/>.
    /// </summary>
    /// <typeparam name="T">The message type.</typeparam>
    /// <param name="messageUrn">The URN, or <c>null</c> for the one MassTransit's convention gives <typeparamref name="T"/>.</param>
    /// <returns>This builder.</returns>
    public MessageBusBuilder PublishAsMassTransit<T>(string? messageUrn = null)
    {
        Bus.PublishedAsMassTransit[typeof(T)] = MassTransitEnvelope.CheckedUrn<T>(messageUrn);
        return this;
    }

    /// <summary>
    /// Publishes messages of type <typeparamref name="T"/> as NServiceBus's SQS transport sends them unwrapped, for
    /// NServiceBus endpoints on the same queues and topics (SQS and SNS publishers): the body is the message's JSON as its
    /// registration writes it; the <c>NServiceBus.MessageId</c> attribute is the envelope's id; the
    /// <c>NServiceBus.AmazonSQS.Headers</c> attribute holds <c>NServiceBus.EnclosedMessageTypes</c> (the full name),
    /// <c>NServiceBus.ContentType</c>, <c>NServiceBus.TimeSent</c> (its format), <c>NServiceBus.MessageIntent</c>
    /// (<c>Send</c> to a queue, <c>Publish</c> to a topic) and the publish's <c>traceparent</c>. A Missive consumer reads
    /// it with <see cref="NativeMessageRules.WhenNServiceBus{T}"/>.
    /// </summary>
    /// <typeparam name="T">The message type.</typeparam>
    /// <param name="messageTypeFullName">The full name the NServiceBus side gives the type, or <c>null</c> for <typeparamref name="T"/>'s own.</param>
    /// <returns>This builder.</returns>
    public MessageBusBuilder PublishAsNServiceBus<T>(string? messageTypeFullName = null)
    {
        Bus.PublishedAsNServiceBus[typeof(T)] = NServiceBusMessage.CheckedName<T>(messageTypeFullName);
        return this;
    }

    /// <summary>
    /// Adds a step around every publish (<see cref="IPublishMiddleware"/>). Steps run in the order they are added, the first
    /// outermost; each is resolved once from the application's service provider (registered as a singleton unless already registered).
    /// </summary>
    /// <typeparam name="TMiddleware">The middleware.</typeparam>
    /// <returns>This builder.</returns>
    /// <remarks>A middleware added twice is reported when the host starts (<see cref="MessageBusConfigurationException"/>).</remarks>
    public MessageBusBuilder UsePublishMiddleware<[DynamicallyAccessedMembers(DynamicallyAccessedMemberTypes.PublicConstructors)] TMiddleware>()
        where TMiddleware : class, IPublishMiddleware
    {
        AddOnce(Bus.PublishMiddleware, typeof(TMiddleware));
        Services.TryAddSingleton<TMiddleware>();
        return this;
    }

    /// <summary>
    /// Gathers concurrent <c>PublishAsync</c> calls to one destination into batch calls (<c>SendMessageBatch</c>,
    /// <c>PublishBatch</c>, <c>PutEvents</c>), as a group commit does: a publish to a destination with no call under way
    /// goes at once; those that come while a call is under way go together when it ends, when 10 have come, or when
    /// <paramref name="window"/> has passed since the first of them. Each publish awaits its own message's outcome and
    /// gets its own exception; one cancelled before its call begins sends nothing. Off by default: turn it on for many
    /// concurrent publishes to few destinations (it cuts the requests, and what they are billed, towards a tenth).
    /// </summary>
    /// <param name="window">How long a publish may wait for others: more than zero, at most one second (a few milliseconds is typical).</param>
    /// <returns>This builder.</returns>
    public MessageBusBuilder CoalescePublishes(TimeSpan window)
    {
        if (window <= TimeSpan.Zero || window > TimeSpan.FromSeconds(1))
        {
            Problem($"CoalescePublishes({window}) needs a window of more than zero and at most one second (a few milliseconds is typical).");
        }

        Bus.CoalescingWindow = window;
        return this;
    }

    /// <summary>
    /// Stores the bodies of messages larger than their service takes (or every message's) in a payload store and sends
    /// a pointer in their place, in the format of AWS's extended clients; pointers received are resolved before handlers
    /// see the message. The store is the <see cref="IPayloadStore"/> registered in the services, or an
    /// <see cref="InMemoryPayloadStore"/> when none is (Missive.Aws adds the S3 store).
    /// </summary>
    /// <param name="configure">Sets the threshold, the pointer's names, the readable buckets and the lifecycle, or <c>null</c> for the defaults.</param>
    /// <returns>This builder.</returns>
    /// <remarks>
    /// <list type="bullet">
    /// <item>SQS sends and SNS publishes are offloaded; EventBridge takes no pointer (its <c>detail</c> must be an object).</item>
    /// <item>The whole body (the envelope as written) is stored, as the extended clients store it, so that they read
    /// what Missive writes and Missive reads what they write.</item>
    /// <item>On a FIFO queue with content-based deduplication, the pointer (a new key each time) is what is hashed:
    /// give offloaded FIFO messages a deduplication id.</item>
    /// </list>
    /// </remarks>
    public MessageBusBuilder UsePayloadOffload(Action<PayloadOffloadOptions>? configure = null)
    {
        var options = Bus.PayloadOffload ?? new PayloadOffloadOptions();
        configure?.Invoke(options);
        foreach (string problem in options.Problems())
        {
            Problem(problem);
        }

        Bus.PayloadOffload = options;
        Services.TryAddSingleton<IPayloadStore>(_ => new InMemoryPayloadStore());
        Services.TryAddSingleton(sp => new PayloadResolver(sp.GetRequiredService<IPayloadStore>(), options));
        return this;
    }

    /// <summary>
    /// Gives every message of type <typeparamref name="T"/> published to a FIFO queue or topic its message group id (and,
    /// optionally, its deduplication id) from the message itself. <see cref="Bus.PublishOptions.MessageGroupId"/> and
    /// <see cref="Bus.PublishOptions.MessageDeduplicationId"/> still win when set. A type published to a FIFO destination
    /// must have this (startup error otherwise), so that no publish lacks a group id.
    /// </summary>
    /// <typeparam name="T">The message type.</typeparam>
    /// <param name="messageGroupId">Gets the group id of a message: messages of one group are delivered in order. Must not be null.</param>
    /// <param name="messageDeduplicationId">Gets the deduplication id, or <c>null</c> to rely on content-based deduplication.</param>
    /// <returns>This builder.</returns>
    /// <remarks>
    /// A second call for the same type is reported when the host starts (<see cref="MessageBusConfigurationException"/>).
    /// A selector that throws, answers <c>null</c>, or answers an id SQS refuses (empty, over 128 characters, or with a
    /// character other than ASCII letters, digits and punctuation) makes the publish throw <see cref="UserCodeException"/> before
    /// anything is sent; the application's exception is attached only with <c>SerializationOptions.LogMessageContent</c> on.
    /// </remarks>
    public MessageBusBuilder AddFifoIds<T>(Func<T, string> messageGroupId, Func<T, string>? messageDeduplicationId = null)
    {
        ArgumentNullException.ThrowIfNull(messageGroupId);
        if (!Bus.FifoIds.TryAdd(typeof(T), new FifoIdSelector<T>(messageGroupId, messageDeduplicationId)))
        {
            Problem($"FIFO ids are configured twice for {typeof(T).FullName}: keep one AddFifoIds<{typeof(T).Name}>.");
        }

        return this;
    }

    /// <summary>Uses the in-memory broker as the transport, with the topology <paramref name="configure"/> sets up.</summary>
    /// <param name="configure">Creates queues, topics, subscriptions, buses and rules.</param>
    /// <returns>This builder.</returns>
    /// <remarks>Another transport configured too, or a queue, topic or bus the bus uses that the topology lacks, is reported when the host starts (<see cref="MessageBusConfigurationException"/>).</remarks>
    public MessageBusBuilder UseInMemoryBroker(Action<InMemoryBroker>? configure = null)
    {
        foreach (ServiceDescriptor descriptor in Services)
        {
            if (descriptor.ServiceType == typeof(IMessageTransport) && !HasInMemoryBroker())
            {
                Problem("Two transports are configured for the bus: call UseInMemoryBroker or another transport's Use method (UseAws) once, not both.");
                return this;
            }
        }

        Services.TryAddSingleton(sp =>
        {
            var broker = new InMemoryBroker(sp.GetService<TimeProvider>());
            configure?.Invoke(broker);
            return broker;
        });
        Services.TryAddSingleton<IMessageTransport>(sp => sp.GetRequiredService<InMemoryBroker>());
        return this;
    }

    private void AddOnce(List<Type> pipeline, Type middleware)
    {
        if (pipeline.Contains(middleware))
        {
            Problem($"The middleware {middleware.Name} is added twice: keep one Use…Middleware<{middleware.Name}> (each step runs once per message, where it is added).");
            return;
        }

        pipeline.Add(middleware);
    }

    private bool HasInMemoryBroker()
    {
        foreach (ServiceDescriptor descriptor in Services)
        {
            if (descriptor.ServiceType == typeof(InMemoryBroker))
            {
                return true;
            }
        }

        return false;
    }

    private MessageBusBuilder AddRoute<T>(RouteKind kind, string target, EnvelopeFormat? format)
    {
        string method = kind switch { RouteKind.Sqs => "AddSqsPublisher", RouteKind.Sns => "AddSnsPublisher", _ => "AddEventBridgePublisher" };
        if (string.IsNullOrEmpty(target))
        {
            Problem($"The publisher of {typeof(T).FullName} has no destination: write {method}<{typeof(T).Name}>(\"name\").");
        }
        else if (!Bus.Routes.TryAdd(typeof(T), new MessageRoute(typeof(T), kind, target, format)))
        {
            Problem($"A publisher is configured twice for {typeof(T).FullName}: keep one (a message type is published to one destination; SNS fans out to many).");
        }

        return this;
    }
}
