using System;
using System.Collections.Generic;
using Microsoft.Extensions.DependencyInjection;
using Missive.Serialization;

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

    /// <summary>Registers a message type and the envelope <c>type</c> that identifies it.</summary>
    /// <typeparam name="T">The message type.</typeparam>
    /// <param name="typeIdentifier">The identifier. Must not be null or empty, and unique.</param>
    /// <param name="dataContentType">The <c>datacontenttype</c> to write, or <c>null</c> for the default of the type's kind (see <see cref="MessageTypeMap"/>).</param>
    /// <returns>This builder.</returns>
    /// <exception cref="MessageBusConfigurationException">The identifier or the type is already registered.</exception>
    public MessageBusBuilder AddMessageType<T>(string typeIdentifier, string? dataContentType = null)
    {
        ArgumentException.ThrowIfNullOrEmpty(typeIdentifier);
        if (!_identifiers.Add(typeIdentifier))
        {
            throw new MessageBusConfigurationException($"The type identifier '{typeIdentifier}' is registered twice; identifiers must be unique.");
        }

        if (!_types.Add(typeof(T)))
        {
            throw new MessageBusConfigurationException($"The message type {typeof(T).FullName} is registered twice; a type has one identifier.");
        }

        _registrations.Add(map => map.Add<T>(typeIdentifier, dataContentType));
        return this;
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
}
