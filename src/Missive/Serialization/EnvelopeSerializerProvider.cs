using System;
using System.Buffers;

namespace Missive.Serialization;

/// <summary>
/// The default <see cref="IEnvelopeSerializerProvider"/>: a JSON serializer and a protobuf one, and which of them
/// may be written. It is the one place that refuses to write a format the application has not enabled.
/// </summary>
public sealed class EnvelopeSerializerProvider : IEnvelopeSerializerProvider
{
    /// <summary>The one message for a format that may be read but not written.</summary>
    internal const string ProtobufNotWritable = "Publishing in the protobuf format needs EnableExperimentalFeatures(); without it, the bus reads protobuf but writes JSON.";

    private readonly IEnvelopeSerializer _json;
    private readonly IEnvelopeSerializer? _protobuf;
    private readonly bool _protobufWritable;

    /// <summary>Creates the provider.</summary>
    /// <param name="json">The JSON serializer. Must not be null.</param>
    /// <param name="protobuf">The protobuf serializer, or <c>null</c> when that format is not available.</param>
    /// <param name="publishFormat">The format publishers use by default.</param>
    /// <param name="protobufWritable">Whether envelopes may be written as protobuf (they are read whenever
    /// <paramref name="protobuf"/> is given). The bus sets it with <c>EnableExperimentalFeatures()</c>.</param>
    /// <exception cref="MessageBusConfigurationException"><paramref name="publishFormat"/> is protobuf but protobuf may not be written.</exception>
    public EnvelopeSerializerProvider(IEnvelopeSerializer json, IEnvelopeSerializer? protobuf, EnvelopeFormat publishFormat = EnvelopeFormat.Json, bool protobufWritable = true)
    {
        ArgumentNullException.ThrowIfNull(json);
        _json = json;
        _protobuf = protobuf;
        _protobufWritable = protobufWritable && protobuf is not null;
        PublishSerializer = GetSerializer(publishFormat);
    }

    /// <inheritdoc />
    public IEnvelopeSerializer PublishSerializer { get; }

    /// <inheritdoc />
    public IEnvelopeSerializer GetSerializer(EnvelopeFormat format) => format switch
    {
        EnvelopeFormat.Json => _json,
        EnvelopeFormat.Protobuf => WriteRefusal(format, _protobufWritable) is { } refusal ? throw new MessageBusConfigurationException(refusal) : _protobuf!,
        _ => throw new ArgumentOutOfRangeException(nameof(format), format, "Unknown envelope format."),
    };

    /// <summary>
    /// The rule, and its one message, for writing a format: protobuf only where it was enabled. The startup check
    /// asks it too, before any serializer is built, so that the refusal is listed with every other mistake.
    /// </summary>
    internal static string? WriteRefusal(EnvelopeFormat format, bool protobufWritable)
        => format == EnvelopeFormat.Protobuf && !protobufWritable ? ProtobufNotWritable : null;

    /// <inheritdoc />
    public MessageEnvelope Deserialize(in ReadOnlySequence<byte> source, EnvelopeFormat? format = null)
    {
        EnvelopeFormat actual = format ?? EnvelopeFormatDetector.Detect(source);
        IEnvelopeSerializer? serializer = actual switch
        {
            EnvelopeFormat.Json => _json,
            EnvelopeFormat.Protobuf => _protobuf,
            _ => throw new ArgumentOutOfRangeException(nameof(format), format, "Unknown envelope format."),
        };
        if (serializer is null)
        {
            InvalidEnvelopeException e = ThrowHelper.Create(InvalidEnvelopeReason.UnsupportedFormat, "The envelope is protobuf, and this application has no protobuf serializer to read it");
            e.RawBody = source.ToArray();
            throw e;
        }

        return serializer.Deserialize(source);
    }
}
