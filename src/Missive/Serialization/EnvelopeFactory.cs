using System;

namespace Missive.Serialization;

/// <summary>
/// The default <see cref="IEnvelopeFactory"/>: id = a new lower-case dashed GUID, source = the
/// configured message source, type and datacontenttype from the registration, time = now in UTC
/// from the <see cref="TimeProvider"/> (so tests can fix it).
/// </summary>
public sealed class EnvelopeFactory : IEnvelopeFactory
{
    /// <summary>The source used when none is configured.</summary>
    public const string DefaultSource = "/missive";

    private readonly MessageTypeMap _messageTypes;
    private readonly string _source;
    private readonly TimeProvider _timeProvider;

    /// <summary>Creates the factory.</summary>
    /// <param name="messageTypes">The registered message types. Must not be null.</param>
    /// <param name="source">The envelope source, a URI reference. May be null for <see cref="DefaultSource"/>.</param>
    /// <param name="timeProvider">The clock. May be null for <see cref="TimeProvider.System"/>.</param>
    /// <exception cref="ArgumentException"><paramref name="source"/> is not a URI reference.</exception>
    public EnvelopeFactory(MessageTypeMap messageTypes, string? source = null, TimeProvider? timeProvider = null)
    {
        ArgumentNullException.ThrowIfNull(messageTypes);
        source ??= DefaultSource;
        if (!CloudEventRules.IsUriReference(source))
        {
            throw new ArgumentException("The message source must be a URI reference without spaces or control characters.", nameof(source));
        }

        _messageTypes = messageTypes;
        _source = source;
        _timeProvider = timeProvider ?? TimeProvider.System;
    }

    /// <inheritdoc />
    public MessageEnvelope<T> CreateEnvelope<T>(T message) => Create(message, _messageTypes.Get<T>());

    /// <inheritdoc />
    public MessageEnvelope<T> CreateEnvelope<T>(T message, string typeIdentifier)
    {
        ArgumentNullException.ThrowIfNull(typeIdentifier);
        return Create(message, _messageTypes.Get<T>(typeIdentifier));
    }

    private MessageEnvelope<T> Create<T>(T message, MessageTypeInfo<T> info) => new()
    {
        Id = Guid.NewGuid().ToString(),
        Source = _source,
        Type = info.Identifier,
        Time = _timeProvider.GetUtcNow(),
        DataContentType = info.ContentType,
        Message = message,
    };
}
