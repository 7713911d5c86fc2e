using System;
using System.Buffers;

namespace Missive.Serialization;

/// <summary>The default <see cref="IEnvelopeSerializerProvider"/>: a JSON serializer and, when enabled, a protobuf one.</summary>
public sealed class EnvelopeSerializerProvider : IEnvelopeSerializerProvider
{
    private readonly IEnvelopeSerializer _json;
    private readonly IEnvelopeSerializer? _protobuf;

    /// <summary>Creates the provider.</summary>
    /// <param name="json">The JSON serializer. Must not be null.</param>
    /// <param name="protobuf">The protobuf serializer, or <c>null</c> when that format is not available.</param>
    /// <param name="publishFormat">The format publishers use by default.</param>
    /// <exception cref="MessageBusConfigurationException"><paramref name="publishFormat"/> is protobuf but no protobuf serializer is given.</exception>
    public EnvelopeSerializerProvider(IEnvelopeSerializer json, IEnvelopeSerializer? protobuf, EnvelopeFormat publishFormat = EnvelopeFormat.Json)
    {
        ArgumentNullException.ThrowIfNull(json);
        _json = json;
        _protobuf = protobuf;
        PublishSerializer = GetSerializer(publishFormat);
    }

    /// <inheritdoc />
    public IEnvelopeSerializer PublishSerializer { get; }

    /// <inheritdoc />
    public IEnvelopeSerializer GetSerializer(EnvelopeFormat format) => format switch
    {
        EnvelopeFormat.Json => _json,
        EnvelopeFormat.Protobuf => _protobuf ?? throw new MessageBusConfigurationException("The protobuf envelope format is available after EnableExperimentalFeatures()."),
        _ => throw new ArgumentOutOfRangeException(nameof(format), format, "Unknown envelope format."),
    };

    /// <inheritdoc />
    public MessageEnvelope Deserialize(in ReadOnlySequence<byte> source, EnvelopeFormat? format = null)
    {
        EnvelopeFormat actual = format ?? EnvelopeFormatDetector.Detect(source);
        if (actual == EnvelopeFormat.Protobuf && _protobuf is null)
        {
            InvalidEnvelopeException e = ThrowHelper.Create(InvalidEnvelopeReason.UnsupportedFormat, "The envelope is protobuf, which this application reads only after EnableExperimentalFeatures()");
            e.RawBody = source.ToArray();
            throw e;
        }

        return GetSerializer(actual).Deserialize(source);
    }
}
