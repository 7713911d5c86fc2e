using System;
using System.Collections.Generic;
using System.Diagnostics.CodeAnalysis;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Missive.Bus;
using Missive.InMemory;
using Missive.Serialization;
using Missive.Transport;

namespace Missive;

/// <summary>
/// Configures the message bus inside <c>services.AddMessageBus(bus => …)</c>: message types,
/// serialization options, the envelope source and the experimental serializers.
/// </summary>
public sealed class MessageBusBuilder
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
    /// <exception cref="MessageBusConfigurationException">The identifier is already registered.</exception>
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
    /// <exception cref="MessageBusConfigurationException">The identifier is already registered, or the type with another serializer.</exception>
    public MessageBusBuilder AddMessageType<T>(string typeIdentifier, IStringMessageSerializer messageSerializer, string? dataContentType = null)
    {
        ArgumentNullException.ThrowIfNull(messageSerializer);
        AddIdentifier<T>(typeIdentifier);
        _registrations.Add(map => map.Add<T>(typeIdentifier, messageSerializer, dataContentType));
        return this;
    }

    private void AddIdentifier<T>(string typeIdentifier)
    {
        ArgumentException.ThrowIfNullOrEmpty(typeIdentifier);
        if (!_identifiers.Add(typeIdentifier))
        {
            throw new MessageBusConfigurationException($"The type identifier '{typeIdentifier}' is registered twice; identifiers must be unique.");
        }

        _types.Add(typeof(T));
    }

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
    /// <exception cref="ArgumentException"><paramref name="source"/> is not a URI reference.</exception>
    public MessageBusBuilder UseMessageSource(string source)
    {
        ArgumentNullException.ThrowIfNull(source);
        if (!CloudEventRules.IsUriReference(source))
        {
            throw new ArgumentException("The message source must be a URI reference without spaces or control characters.", nameof(source));
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
    /// <param name="queueName">The queue (name on the in-memory broker, URL on AWS).</param>
    /// <param name="format">The envelope format, or <c>null</c> for the publish format.</param>
    /// <returns>This builder.</returns>
    public MessageBusBuilder AddSqsPublisher<T>(string queueName, EnvelopeFormat? format = null) => AddRoute<T>(RouteKind.Sqs, queueName, format);

    /// <summary>Publishes messages of type <typeparamref name="T"/> to an SNS topic.</summary>
    /// <typeparam name="T">The message type; it must also be registered with <see cref="AddMessageType{T}(string, string?)"/>.</typeparam>
    /// <param name="topic">The topic (name on the in-memory broker, ARN on AWS).</param>
    /// <param name="format">The envelope format, or <c>null</c> for the publish format.</param>
    /// <returns>This builder.</returns>
    public MessageBusBuilder AddSnsPublisher<T>(string topic, EnvelopeFormat? format = null) => AddRoute<T>(RouteKind.Sns, topic, format);

    /// <summary>Publishes messages of type <typeparamref name="T"/> to an EventBridge event bus.</summary>
    /// <typeparam name="T">The message type; it must also be registered with <see cref="AddMessageType{T}(string, string?)"/>.</typeparam>
    /// <param name="eventBus">The event bus.</param>
    /// <param name="format">The envelope format, or <c>null</c> for the publish format.</param>
    /// <returns>This builder.</returns>
    public MessageBusBuilder AddEventBridgePublisher<T>(string eventBus, EnvelopeFormat? format = null) => AddRoute<T>(RouteKind.EventBridge, eventBus, format);

    /// <summary>Handles received messages of type <typeparamref name="TMessage"/> with <typeparamref name="THandler"/>, resolved from each message's DI scope.</summary>
    /// <typeparam name="TMessage">The message type; it must also be registered with <see cref="AddMessageType{T}(string, string?)"/>.</typeparam>
    /// <typeparam name="THandler">The handler.</typeparam>
    /// <returns>This builder.</returns>
    /// <exception cref="MessageBusConfigurationException">A handler is already registered for <typeparamref name="TMessage"/>.</exception>
    public MessageBusBuilder AddHandler<TMessage, [DynamicallyAccessedMembers(DynamicallyAccessedMemberTypes.PublicConstructors)] THandler>()
        where THandler : class, IMessageHandler<TMessage>
    {
        if (!Bus.Handlers.TryAdd(typeof(TMessage), MessageHandlerStep<TMessage>.Instance))
        {
            throw new MessageBusConfigurationException($"A handler is already registered for {typeof(TMessage).FullName}.");
        }

        Services.TryAddScoped<IMessageHandler<TMessage>, THandler>();
        return this;
    }

    /// <summary>
    /// Receives the messages whose envelope <c>type</c> no <see cref="AddMessageType{T}(string, string?)"/> registers, with their
    /// data as it arrived (<see cref="UnregisteredMessage"/>), and lets <typeparamref name="THandler"/> decide: handled,
    /// retry later, or dead-letter now. Without it, such messages stay in the queue until their redrive policy moves them.
    /// </summary>
    /// <typeparam name="THandler">The fallback handler, resolved from each message's DI scope.</typeparam>
    /// <returns>This builder.</returns>
    /// <exception cref="MessageBusConfigurationException">A fallback handler is already registered.</exception>
    public MessageBusBuilder AddFallbackHandler<[DynamicallyAccessedMembers(DynamicallyAccessedMemberTypes.PublicConstructors)] THandler>()
        where THandler : class, IFallbackMessageHandler
    {
        if (Bus.HasFallbackHandler)
        {
            throw new MessageBusConfigurationException("A fallback handler is already registered; there is one for all unregistered types.");
        }

        Bus.HasFallbackHandler = true;
        _registrations.Add(static map => map.ReadUnregisteredTypes());
        Services.TryAddScoped<IFallbackMessageHandler, THandler>();
        return this;
    }

    /// <summary>
    /// Adds a step around the handling of every received message (<see cref="IHandleMiddleware"/>). Steps run in the order they
    /// are added, the first outermost, and are resolved from each message's DI scope (registered scoped unless already registered).
    /// </summary>
    /// <typeparam name="TMiddleware">The middleware.</typeparam>
    /// <returns>This builder.</returns>
    /// <exception cref="MessageBusConfigurationException">The middleware is already in the pipeline.</exception>
    public MessageBusBuilder UseHandleMiddleware<[DynamicallyAccessedMembers(DynamicallyAccessedMemberTypes.PublicConstructors)] TMiddleware>()
        where TMiddleware : class, IHandleMiddleware
    {
        AddOnce(Bus.HandleMiddleware, typeof(TMiddleware));
        Services.TryAddScoped<TMiddleware>();
        return this;
    }

    /// <summary>
    /// Adds a step around every publish (<see cref="IPublishMiddleware"/>). Steps run in the order they are added, the first
    /// outermost; each is resolved once from the application's service provider (registered as a singleton unless already registered).
    /// </summary>
    /// <typeparam name="TMiddleware">The middleware.</typeparam>
    /// <returns>This builder.</returns>
    /// <exception cref="MessageBusConfigurationException">The middleware is already in the pipeline.</exception>
    public MessageBusBuilder UsePublishMiddleware<[DynamicallyAccessedMembers(DynamicallyAccessedMemberTypes.PublicConstructors)] TMiddleware>()
        where TMiddleware : class, IPublishMiddleware
    {
        AddOnce(Bus.PublishMiddleware, typeof(TMiddleware));
        Services.TryAddSingleton<TMiddleware>();
        return this;
    }

    /// <summary>Opens a logging scope with the message id, type and queue around the handling of each message (<see cref="MessageLoggingScopeMiddleware"/>).</summary>
    /// <returns>This builder.</returns>
    public MessageBusBuilder UseMessageLoggingScope() => UseHandleMiddleware<MessageLoggingScopeMiddleware>();

    /// <summary>Cancels handlers that run longer than their message type's timeout and retries their messages (<see cref="HandlingTimeoutMiddleware"/>).</summary>
    /// <param name="configure">Sets the default timeout and those per type (all of them, in this one call). Must not be null.</param>
    /// <returns>This builder.</returns>
    /// <exception cref="MessageBusConfigurationException">It was called before.</exception>
    public MessageBusBuilder UseHandlingTimeout(Action<HandlingTimeoutOptions> configure)
    {
        ArgumentNullException.ThrowIfNull(configure);
        var options = new HandlingTimeoutOptions();
        configure(options);
        Services.TryAddSingleton(options);
        return UseHandleMiddleware<HandlingTimeoutMiddleware>();
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
    /// <exception cref="MessageBusConfigurationException">The type already has FIFO ids.</exception>
    public MessageBusBuilder AddFifoIds<T>(Func<T, string> messageGroupId, Func<T, string>? messageDeduplicationId = null)
    {
        ArgumentNullException.ThrowIfNull(messageGroupId);
        if (!Bus.FifoIds.TryAdd(typeof(T), new FifoIdSelector<T>(messageGroupId, messageDeduplicationId)))
        {
            throw new MessageBusConfigurationException($"FIFO ids are already configured for {typeof(T).FullName}.");
        }

        return this;
    }

    /// <summary>Sets how the Lambda SQS event processor (<see cref="Lambda.SqsEventProcessor"/>) runs.</summary>
    /// <param name="configure">The settings. Must not be null.</param>
    /// <returns>This builder.</returns>
    public MessageBusBuilder ConfigureLambdaProcessor(Action<Lambda.SqsEventProcessorOptions> configure)
    {
        ArgumentNullException.ThrowIfNull(configure);
        configure(LambdaProcessor);
        return this;
    }

    /// <summary>Polls a queue and dispatches its messages to the registered handlers (a hosted service runs the pollers).</summary>
    /// <param name="queueName">The queue.</param>
    /// <param name="configure">Poller settings.</param>
    /// <returns>This builder.</returns>
    public MessageBusBuilder AddQueuePoller(string queueName, Action<PollerOptions>? configure = null)
    {
        ArgumentException.ThrowIfNullOrEmpty(queueName);
        var options = new PollerOptions();
        configure?.Invoke(options);
        if (options.MaxConcurrency < 1 || options.MaxMessagesPerReceive is < 1 or > 10 || options.WaitTime < TimeSpan.Zero || options.WaitTime > TimeSpan.FromSeconds(20))
        {
            throw new MessageBusConfigurationException($"The poller of '{queueName}' needs MaxConcurrency of at least 1, MaxMessagesPerReceive of 1 to 10 and a WaitTime of 0 to 20 seconds (SQS's long-polling limit).");
        }

        if (options.VisibilityTimeout < TimeSpan.FromSeconds(2) || options.VisibilityTimeout > TimeSpan.FromHours(12))
        {
            throw new MessageBusConfigurationException($"The poller of '{queueName}' needs a VisibilityTimeout of 2 seconds to 12 hours (SQS's limits; the pump extends it every half timeout while a handler runs).");
        }

        if (options.ReceiveErrorDelay <= TimeSpan.Zero || options.MaxReceiveErrorDelay < options.ReceiveErrorDelay)
        {
            throw new MessageBusConfigurationException($"The poller of '{queueName}' needs a positive ReceiveErrorDelay and a MaxReceiveErrorDelay at least as long.");
        }

        Bus.Pollers.Add((queueName, options));
        return this;
    }

    /// <summary>Uses the in-memory broker as the transport, with the topology <paramref name="configure"/> sets up.</summary>
    /// <param name="configure">Creates queues, topics, subscriptions, buses and rules.</param>
    /// <returns>This builder.</returns>
    /// <exception cref="MessageBusConfigurationException">Another transport is already configured.</exception>
    public MessageBusBuilder UseInMemoryBroker(Action<InMemoryBroker>? configure = null)
    {
        foreach (ServiceDescriptor descriptor in Services)
        {
            if (descriptor.ServiceType == typeof(IMessageTransport) && !HasInMemoryBroker())
            {
                throw new MessageBusConfigurationException("A transport is already configured for the bus; call UseInMemoryBroker or another transport's Use method once, not both.");
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

    private static void AddOnce(List<Type> pipeline, Type middleware)
    {
        if (pipeline.Contains(middleware))
        {
            throw new MessageBusConfigurationException($"The middleware {middleware.Name} is added twice; each step runs once per message, where it was first added.");
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
        ArgumentException.ThrowIfNullOrEmpty(target);
        if (!Bus.Routes.TryAdd(typeof(T), new MessageRoute(typeof(T), kind, target, format)))
        {
            throw new MessageBusConfigurationException($"A publisher is already configured for {typeof(T).FullName}.");
        }

        return this;
    }
}
