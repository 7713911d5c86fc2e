using System;
using System.Collections.Generic;
using System.Diagnostics.CodeAnalysis;
using System.Text.Json;
using System.Text.Json.Serialization.Metadata;
using Missive.Serialization.Payloads;

namespace Missive.Serialization;

/// <summary>
/// The registered message types: which .NET type each envelope <c>type</c> identifier stands for,
/// and how its data is written. Serializers read the message type from this map.
/// </summary>
/// <remarks>
/// <para>How data travels, by message type:</para>
/// <list type="bullet">
/// <item><c>byte[]</c> and <see cref="ReadOnlyMemory{T}"/> of bytes: <c>data_base64</c>
/// (protobuf <c>binary_data</c>); content type <c>application/octet-stream</c> unless given.</item>
/// <item><see cref="string"/>: a JSON string (protobuf <c>text_data</c>); content type <c>text/plain</c> unless given.</item>
/// <item>A type registered with its own <see cref="IStringMessageSerializer"/>, or any other type with
/// <see cref="SerializationOptions.MessageSerializer"/> set: that serializer's text, embedded as JSON when its
/// content type is JSON, else as a JSON string.</item>
/// <item>Any other type: System.Text.Json, embedded as a JSON value (protobuf <c>text_data</c>),
/// content type <c>application/json</c>; metadata from <see cref="SerializationOptions.JsonSerializerContext"/>
/// first, then <see cref="SerializationOptions.JsonSerializerOptions"/>.</item>
/// </list>
/// <para>Registration is closed once a serializer has been created from the map.</para>
/// </remarks>
public sealed class MessageTypeMap
{
    private readonly SerializationOptions _options;
    private readonly Dictionary<string, MessageTypeInfo> _byIdentifier = new(StringComparer.Ordinal);
    private readonly Dictionary<Type, MessageTypeInfo> _byType = [];
    private readonly Dictionary<string, MessageTypeInfo>.AlternateLookup<ReadOnlySpan<char>> _byIdentifierSpan;
    private JsonSerializerOptions? _jsonOptions;
    private SerializerSettings? _settings;

    /// <summary>Creates an empty map.</summary>
    /// <param name="options">The options whose JSON settings and message serializer the codecs use. Must not be null.</param>
    public MessageTypeMap(SerializationOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        _options = options;
        _byIdentifierSpan = _byIdentifier.GetAlternateLookup<ReadOnlySpan<char>>();
    }

    /// <summary>Gets the options the map was created with (serializers copy them when built: see <see cref="Freeze"/>).</summary>
    internal SerializationOptions Options => _options;

    /// <summary>Gets the number of registered types.</summary>
    public int Count => _byType.Count;

    /// <summary>
    /// Registers a message type under an envelope <c>type</c> identifier. A .NET type may be registered under several
    /// identifiers: the first is the one envelopes get by default, the others are chosen per envelope
    /// (<see cref="IEnvelopeFactory.CreateEnvelope{T}(T, string)"/>), and envelopes of each are read as that type.
    /// </summary>
    /// <typeparam name="T">The message type.</typeparam>
    /// <param name="typeIdentifier">The envelope <c>type</c> for this message type. Must not be null or empty.</param>
    /// <param name="dataContentType">The <c>datacontenttype</c> to write, or <c>null</c> for the default of the type's kind.</param>
    /// <returns>This map.</returns>
    /// <exception cref="MessageBusConfigurationException">The identifier is already registered, the map is closed, or System.Text.Json has no metadata for the type.</exception>
    public MessageTypeMap Add<T>(string typeIdentifier, string? dataContentType = null) => Register<T>(typeIdentifier, null, dataContentType);

    /// <summary>
    /// Registers a message type whose data the given serializer writes and reads (instead of
    /// <see cref="SerializationOptions.MessageSerializer"/> or System.Text.Json): its text is embedded as JSON when its content
    /// type is JSON, else as a JSON string (protobuf <c>text_data</c>).
    /// </summary>
    /// <typeparam name="T">The message type.</typeparam>
    /// <param name="typeIdentifier">The envelope <c>type</c> for this message type. Must not be null or empty.</param>
    /// <param name="messageSerializer">The serializer of this type's data. Must not be null.</param>
    /// <param name="dataContentType">The <c>datacontenttype</c> to write, or <c>null</c> for the serializer's content type.</param>
    /// <returns>This map.</returns>
    /// <exception cref="MessageBusConfigurationException">The identifier is already registered, the type is registered with another serializer, or the map is closed.</exception>
    public MessageTypeMap Add<T>(string typeIdentifier, IStringMessageSerializer messageSerializer, string? dataContentType = null)
    {
        ArgumentNullException.ThrowIfNull(messageSerializer);
        return Register<T>(typeIdentifier, messageSerializer, dataContentType);
    }

    private MessageTypeMap Register<T>(string typeIdentifier, IStringMessageSerializer? messageSerializer, string? dataContentType)
    {
        ArgumentException.ThrowIfNullOrEmpty(typeIdentifier);
        if (_settings is not null)
        {
            throw new MessageBusConfigurationException("Message types cannot be added once a serializer uses the map; register every type at startup.");
        }

        if (_byIdentifier.TryGetValue(typeIdentifier, out MessageTypeInfo? existing))
        {
            throw new MessageBusConfigurationException($"The type identifier '{typeIdentifier}' is already registered for {existing.MessageType.FullName}; identifiers must be unique.");
        }

        if (dataContentType is not null && !CloudEventRules.IsMediaType(dataContentType))
        {
            throw new MessageBusConfigurationException($"'{dataContentType}' is not a media type (type/subtype).");
        }

        // Every identifier of a type shares its codec: the data of a type is written one way.
        PayloadCodec<T> codec;
        if (_byType.TryGetValue(typeof(T), out existing))
        {
            codec = ((MessageTypeInfo<T>)existing).Codec;
            if (messageSerializer is not null && (codec is not StringSerializerPayloadCodec<T> custom || !ReferenceEquals(custom.Serializer, messageSerializer)))
            {
                throw new MessageBusConfigurationException($"The message type {typeof(T).FullName} is already registered as '{existing.Identifier}' with another serializer; every identifier of a type shares its serializer.");
            }
        }
        else
        {
            codec = CreateCodec<T>(messageSerializer);
        }

        var info = new MessageTypeInfo<T>(typeIdentifier, dataContentType ?? codec.DefaultContentType, codec);
        _byIdentifier.Add(typeIdentifier, info);
        _byType.TryAdd(typeof(T), info);
        return this;
    }

    /// <summary>Tells whether a .NET type is registered, and with which identifier (the first registered, which envelopes get by default).</summary>
    /// <param name="messageType">The message type. Must not be null.</param>
    /// <param name="typeIdentifier">The identifier when registered.</param>
    /// <returns><c>true</c> when registered.</returns>
    public bool TryGetTypeIdentifier(Type messageType, out string typeIdentifier)
    {
        ArgumentNullException.ThrowIfNull(messageType);
        bool found = _byType.TryGetValue(messageType, out MessageTypeInfo? info);
        typeIdentifier = info?.Identifier ?? string.Empty;
        return found;
    }

    /// <summary>Tells whether a type identifier is registered, and for which .NET type.</summary>
    /// <param name="typeIdentifier">The identifier. Must not be null.</param>
    /// <param name="messageType">The .NET type when registered.</param>
    /// <returns><c>true</c> when registered.</returns>
    public bool TryGetMessageType(string typeIdentifier, out Type? messageType)
    {
        ArgumentNullException.ThrowIfNull(typeIdentifier);
        bool found = _byIdentifier.TryGetValue(typeIdentifier, out MessageTypeInfo? info);
        messageType = info?.MessageType;
        return found;
    }

    /// <summary>
    /// Closes registration and copies the options into the settings every serializer built on the map
    /// shares: called when a serializer starts using the map.
    /// </summary>
    internal SerializerSettings Freeze() => _settings ??= SerializerSettings.From(_options);

    internal bool TryGet(ReadOnlySpan<char> identifier, out MessageTypeInfo info) => _byIdentifierSpan.TryGetValue(identifier, out info!);

    /// <summary>
    /// Gets what envelopes of a type nobody registered are read as (<see cref="UnregisteredMessage"/>), or <c>null</c>
    /// when they are an error (<see cref="InvalidEnvelopeReason.UnknownMessageType"/>): see <see cref="ReadUnregisteredTypes"/>.
    /// </summary>
    internal MessageTypeInfo? Unregistered { get; private set; }

    /// <summary>
    /// Gets the registration of an envelope's type identifier, or, for an identifier nobody registered, what
    /// <see cref="ReadUnregisteredTypes"/> enabled.
    /// </summary>
    /// <exception cref="InvalidEnvelopeException">The identifier is not registered and unregistered types are rejected (<see cref="InvalidEnvelopeReason.UnknownMessageType"/>).</exception>
    internal MessageTypeInfo Resolve(string typeIdentifier, long position)
    {
        if (_byIdentifier.TryGetValue(typeIdentifier, out MessageTypeInfo? info))
        {
            return info;
        }

        if (Unregistered is { } unregistered)
        {
            return unregistered;
        }

        ThrowHelper.ThrowUnknownMessageType(typeIdentifier, position);
        return null!;
    }

    /// <summary>
    /// Reads envelopes whose type is not registered as <see cref="UnregisteredMessage"/> instead of rejecting them:
    /// the bus does so when a fallback handler is registered. <see cref="UnregisteredMessage"/> itself is not
    /// registered by this, so it cannot be published.
    /// </summary>
    internal void ReadUnregisteredTypes()
    {
        if (_settings is not null)
        {
            throw new MessageBusConfigurationException("Unregistered types cannot be enabled once a serializer uses the map.");
        }

        Unregistered ??= new MessageTypeInfo<UnregisteredMessage>("(unregistered)", ContentTypes.ApplicationJson, new UnregisteredPayloadCodec());
    }

    internal MessageTypeInfo<T> Get<T>()
    {
        if (_byType.TryGetValue(typeof(T), out MessageTypeInfo? info))
        {
            return (MessageTypeInfo<T>)info;
        }

        return ThrowNotRegistered<T>();
    }

    /// <summary>The registration of one identifier of <typeparamref name="T"/>.</summary>
    internal MessageTypeInfo<T> Get<T>(string typeIdentifier)
    {
        if (_byIdentifier.TryGetValue(typeIdentifier, out MessageTypeInfo? info) && info is MessageTypeInfo<T> typed)
        {
            return typed;
        }

        throw new MessageBusConfigurationException(info is null
            ? $"The type identifier '{typeIdentifier}' is not registered. Register it with AddMessageType<{typeof(T).Name}>(\"{typeIdentifier}\")."
            : $"The type identifier '{typeIdentifier}' is registered for {info.MessageType.FullName}, not {typeof(T).FullName}.");
    }

    internal MessageTypeInfo Get(Type messageType)
        => _byType.TryGetValue(messageType, out MessageTypeInfo? info) ? info : throw NotRegistered(messageType);

    private static MessageTypeInfo<T> ThrowNotRegistered<T>() => throw NotRegistered(typeof(T));

    private static MessageBusConfigurationException NotRegistered(Type type)
        => new($"The message type {type.FullName} is not registered. Register it with AddMessageType<{type.Name}>(\"type-identifier\").");

    private PayloadCodec<T> CreateCodec<T>(IStringMessageSerializer? messageSerializer)
    {
        if (messageSerializer is not null)
        {
            return new StringSerializerPayloadCodec<T>(messageSerializer);
        }

        if (typeof(T) == typeof(byte[]))
        {
            return (PayloadCodec<T>)(object)new ByteArrayPayloadCodec();
        }

        if (typeof(T) == typeof(ReadOnlyMemory<byte>))
        {
            return (PayloadCodec<T>)(object)new MemoryPayloadCodec();
        }

        if (_options.MessageSerializer is { } custom)
        {
            return new StringSerializerPayloadCodec<T>(custom);
        }

        if (typeof(T) == typeof(string))
        {
            return (PayloadCodec<T>)(object)new StringPayloadCodec();
        }

        return new JsonPayloadCodec<T>(ResolveTypeInfo<T>());
    }

    /// <summary>
    /// The user's JSON options (or System.Text.Json's defaults) with reflection metadata added when
    /// they name no resolver and the application allows reflection: the feature switch is off in
    /// trimmed and native AOT applications, which must give a context. The user's instance is not changed.
    /// </summary>
    [UnconditionalSuppressMessage("Trimming", "IL2026", Justification = "Only reached when the application enables System.Text.Json reflection (JsonSerializer.IsReflectionEnabledByDefault); trimmed and AOT applications turn it off and must supply a JsonSerializerContext.")]
    [UnconditionalSuppressMessage("AOT", "IL3050", Justification = "As above: guarded by JsonSerializer.IsReflectionEnabledByDefault.")]
    private static JsonSerializerOptions WithReflectionFallback(JsonSerializerOptions? options)
    {
        if (options?.TypeInfoResolver is not null || !JsonSerializer.IsReflectionEnabledByDefault)
        {
            return options ?? new JsonSerializerOptions();
        }

        return new JsonSerializerOptions(options ?? new JsonSerializerOptions()) { TypeInfoResolver = new DefaultJsonTypeInfoResolver() };
    }

    /// <summary>
    /// Metadata for a JSON message type: the configured context's, then Missive's own for the JSON DOM types,
    /// then the options' resolver. A type the configured context does not know is a startup error, in every
    /// runtime, unless <see cref="SerializationOptions.AllowReflectionFallback"/> is on: under JIT reflection
    /// would hide the gap until a trimmed or native AOT build fails.
    /// </summary>
    private JsonTypeInfo<T> ResolveTypeInfo<T>()
    {
        if (_options.JsonSerializerContext?.GetTypeInfo(typeof(T)) is JsonTypeInfo<T> fromContext)
        {
            return fromContext;
        }

        if (MissiveJsonContext.Default.GetTypeInfo(typeof(T)) is JsonTypeInfo<T> dom && typeof(T) != typeof(string) && typeof(T) != typeof(byte[]) && typeof(T) != typeof(DateTimeOffset))
        {
            return dom;
        }

        if (_options.JsonSerializerContext is { } context && !_options.AllowReflectionFallback && _options.JsonSerializerOptions?.TypeInfoResolver is null)
        {
            throw new MessageBusConfigurationException(
                $"The JsonSerializerContext {context.GetType().Name} has no metadata for {typeof(T).FullName}. Add [JsonSerializable(typeof({typeof(T).Name}))] to it, or set SerializationOptions.AllowReflectionFallback to use reflection for types it lacks (not in trimmed or native AOT applications).");
        }

        JsonSerializerOptions jsonOptions = _jsonOptions ??= WithReflectionFallback(_options.JsonSerializerOptions);
        try
        {
            return (JsonTypeInfo<T>)jsonOptions.GetTypeInfo(typeof(T));
        }
        catch (Exception e) when (e is InvalidOperationException or NotSupportedException)
        {
            throw new MessageBusConfigurationException(
                $"System.Text.Json has no metadata for {typeof(T).FullName}. Add [JsonSerializable(typeof({typeof(T).Name}))] to your JsonSerializerContext and pass it to ConfigureSerialization, or give JsonSerializerOptions with a resolver for it.",
                e);
        }
    }
}
