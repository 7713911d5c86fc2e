using System;
using System.Diagnostics.CodeAnalysis;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Missive.Bus;

namespace Missive;

/// <content>Consuming: handlers, the fallback handler, handling middleware, queue pollers and the Lambda processor.</content>
public sealed partial class MessageBusBuilder
{
    /// <summary>The bus is built: the native message rules of its pollers and Lambda processor are read as they are now.</summary>
    internal void Freeze()
    {
        foreach ((_, PollerOptions options) in Bus.Pollers)
        {
            options.NativeMessages.Freeze();
        }

        LambdaProcessor.NativeMessages.Freeze();
    }

    /// <summary>Handles received messages of type <typeparamref name="TMessage"/> with <typeparamref name="THandler"/>, resolved from each message's DI scope.</summary>
    /// <typeparam name="TMessage">The message type; it must also be registered with <see cref="AddMessageType{T}(string, string?)"/>.</typeparam>
    /// <typeparam name="THandler">
    /// The handler: a new one for each message, resolved from that message's DI scope (registered transient unless already
    /// registered), so its scoped dependencies are the message's own.
    /// </typeparam>
    /// <returns>This builder.</returns>
    /// <remarks>A second handler for <typeparamref name="TMessage"/> is reported when the host starts (<see cref="MessageBusConfigurationException"/>).</remarks>
    public MessageBusBuilder AddHandler<TMessage, [DynamicallyAccessedMembers(DynamicallyAccessedMemberTypes.PublicConstructors)] THandler>()
        where THandler : class, IMessageHandler<TMessage>
    {
        if (!Bus.Handlers.TryAdd(typeof(TMessage), MessageHandlerStep<TMessage>.Instance))
        {
            Problem($"A handler is registered twice for {typeof(TMessage).FullName}: keep one AddHandler<{typeof(TMessage).Name}, …> (one handler per message type; a handler may call others).");
        }

        Services.TryAddTransient<IMessageHandler<TMessage>, THandler>(); // resolved once per message scope: transient spares that scope a cache of it
        return this;
    }

    /// <summary>
    /// Receives the messages whose envelope <c>type</c> no <see cref="AddMessageType{T}(string, string?)"/> registers, with their
    /// data as it arrived (<see cref="UnregisteredMessage"/>), and lets <typeparamref name="THandler"/> decide: handled,
    /// retry later, or dead-letter now. Without it, such messages stay in the queue until their redrive policy moves them.
    /// </summary>
    /// <typeparam name="THandler">The fallback handler: a new one for each message, resolved from that message's DI scope (registered transient unless already registered).</typeparam>
    /// <returns>This builder.</returns>
    /// <remarks>A second fallback handler is reported when the host starts (<see cref="MessageBusConfigurationException"/>).</remarks>
    public MessageBusBuilder AddFallbackHandler<[DynamicallyAccessedMembers(DynamicallyAccessedMemberTypes.PublicConstructors)] THandler>()
        where THandler : class, IFallbackMessageHandler
    {
        if (Bus.HasFallbackHandler)
        {
            Problem("A fallback handler is registered twice: keep one AddFallbackHandler (it receives every unregistered type).");
            return this;
        }

        Bus.HasFallbackHandler = true;
        _registrations.Add(static map => map.ReadUnregisteredTypes());
        Services.TryAddTransient<IFallbackMessageHandler, THandler>();
        return this;
    }

    /// <summary>
    /// Adds a step around the handling of every received message (<see cref="IHandleMiddleware"/>). Steps run in the order they
    /// are added, the first outermost, and are resolved from each message's DI scope (registered scoped unless already registered).
    /// </summary>
    /// <typeparam name="TMiddleware">The middleware.</typeparam>
    /// <returns>This builder.</returns>
    /// <remarks>A middleware added twice is reported when the host starts (<see cref="MessageBusConfigurationException"/>).</remarks>
    public MessageBusBuilder UseHandleMiddleware<[DynamicallyAccessedMembers(DynamicallyAccessedMemberTypes.PublicConstructors)] TMiddleware>()
        where TMiddleware : class, IHandleMiddleware
    {
        AddOnce(Bus.HandleMiddleware, typeof(TMiddleware));
        Services.TryAddScoped<TMiddleware>();
        return this;
    }

    /// <summary>Opens a logging scope with the message id, type and queue around the handling of each message (<see cref="MessageLoggingScopeMiddleware"/>).</summary>
    /// <returns>This builder.</returns>
    public MessageBusBuilder UseMessageLoggingScope() => UseHandleMiddleware<MessageLoggingScopeMiddleware>();

    /// <summary>Cancels handlers that run longer than their message type's timeout and retries their messages (<see cref="HandlingTimeoutMiddleware"/>).</summary>
    /// <param name="configure">Sets the default timeout and those per type (all of them, in this one call). Must not be null.</param>
    /// <returns>This builder.</returns>
    /// <remarks>A second call is reported when the host starts (<see cref="MessageBusConfigurationException"/>).</remarks>
    public MessageBusBuilder UseHandlingTimeout(Action<HandlingTimeoutOptions> configure)
    {
        ArgumentNullException.ThrowIfNull(configure);
        var options = new HandlingTimeoutOptions();
        configure(options);
        Services.TryAddSingleton(options);
        return UseHandleMiddleware<HandlingTimeoutMiddleware>();
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

    /// <summary>
    /// Polls a queue with settings from a configuration section (keys named as the <see cref="PollerOptions"/> properties:
    /// <c>MaxConcurrency</c>, <c>WaitTime</c> as <c>hh:mm:ss</c>, …), then <paramref name="configure"/>. Read by hand, so
    /// trimming and native AOT keep working.
    /// </summary>
    /// <param name="queueName">The queue.</param>
    /// <param name="configuration">The section, for example <c>configuration.GetSection("Missive:Poller")</c>. Must not be null.</param>
    /// <param name="configure">Settings in code after the section's, or <c>null</c>.</param>
    /// <returns>This builder.</returns>
    /// <remarks>
    /// A section that is missing or empty (a misspelt name reads as empty), a key that is no setting (with the nearest
    /// one), and a value that does not parse stop the host when it starts, with the other problems
    /// (<see cref="MessageBusConfigurationException"/>).
    /// </remarks>
    public MessageBusBuilder AddQueuePoller(string queueName, Microsoft.Extensions.Configuration.IConfiguration configuration, Action<PollerOptions>? configure = null)
    {
        ArgumentNullException.ThrowIfNull(configuration);
        return AddQueuePoller(queueName, options =>
        {
            PollerOptionsBinder.Bind(options, configuration, Bus.Problems);
            configure?.Invoke(options);
        });
    }

    /// <summary>Polls a queue and dispatches its messages to the registered handlers (a hosted service runs the pollers).</summary>
    /// <param name="queueName">The queue.</param>
    /// <param name="configure">Poller settings.</param>
    /// <returns>This builder.</returns>
    /// <remarks>Options out of range are reported when the host starts (<see cref="MessageBusConfigurationException"/>).</remarks>
    public MessageBusBuilder AddQueuePoller(string queueName, Action<PollerOptions>? configure = null)
    {
        if (string.IsNullOrEmpty(queueName))
        {
            Problem("A queue poller has no queue: write AddQueuePoller(\"queue-name\") (its name, or on AWS its name or URL).");
            return this;
        }

        var options = new PollerOptions();
        configure?.Invoke(options);
        if (options.MaxConcurrency < 1)
        {
            Problem($"The poller of '{queueName}' has MaxConcurrency {options.MaxConcurrency}: set it to 1 or more.");
        }

        if (options.MaxMessagesPerReceive is < 1 or > 10)
        {
            Problem($"The poller of '{queueName}' has MaxMessagesPerReceive {options.MaxMessagesPerReceive}: set it to 1 to 10 (SQS's limit).");
        }

        if (options.WaitTime < TimeSpan.Zero || options.WaitTime > TimeSpan.FromSeconds(20))
        {
            Problem($"The poller of '{queueName}' has a WaitTime of {options.WaitTime}: set it to 0 to 20 seconds (SQS's long-polling limit).");
        }

        if (options.VisibilityTimeout < TimeSpan.FromSeconds(2) || options.VisibilityTimeout > TimeSpan.FromHours(12))
        {
            Problem($"The poller of '{queueName}' has a VisibilityTimeout of {options.VisibilityTimeout}: set it to 2 seconds to 12 hours (SQS's limits; the heartbeat extends it while a handler runs).");
        }

        if (options.ReceiveErrorDelay <= TimeSpan.Zero || options.MaxReceiveErrorDelay < options.ReceiveErrorDelay)
        {
            Problem($"The poller of '{queueName}' has a ReceiveErrorDelay of {options.ReceiveErrorDelay} and a MaxReceiveErrorDelay of {options.MaxReceiveErrorDelay}: make the first positive and the second at least as long.");
        }

        if (options.RetryDelay is { } retry && (retry < TimeSpan.Zero || retry > TimeSpan.FromHours(12)))
        {
            Problem($"The poller of '{queueName}' has a RetryDelay of {retry}: set it to 0 to 12 hours (SQS's visibility limits), or leave it unset.");
        }

        Bus.Pollers.Add((queueName, options));
        return this;
    }
}
