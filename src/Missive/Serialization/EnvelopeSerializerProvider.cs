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
    public MessageEnvelope Deserialize(in ReadOnlySequence<byte> source, string? contentType = null)
    {
        EnvelopeFormat format = contentType is null ? Detect(source) : FromContentType(contentType);
        if (format == EnvelopeFormat.Protobuf && _protobuf is null)
        {
            throw new InvalidEnvelopeException(InvalidEnvelopeReason.UnsupportedFormat, "The envelope is protobuf, which this application reads only after EnableExperimentalFeatures().")
            {
                RawBody = source.ToArray(),
            };
        }

        return GetSerializer(format).Deserialize(source);
    }

    /// <summary>Tells the format from a content type; unknown content types are treated as JSON.</summary>
    /// <param name="contentType">The content type. Must not be null.</param>
    /// <returns>The format.</returns>
    public static EnvelopeFormat FromContentType(string contentType)
    {
        ArgumentNullException.ThrowIfNull(contentType);
        ReadOnlySpan<char> essence = contentType.AsSpan();
        int semicolon = essence.IndexOf(';');
        essence = (semicolon >= 0 ? essence[..semicolon] : essence).Trim();
        return essence.Equals(ContentTypes.CloudEventsProtobuf, StringComparison.OrdinalIgnoreCase)
            || essence.Equals("application/protobuf", StringComparison.OrdinalIgnoreCase)
            || essence.Equals("application/x-protobuf", StringComparison.OrdinalIgnoreCase)
            ? EnvelopeFormat.Protobuf
            : EnvelopeFormat.Json;
    }

    /// <summary>
    /// Tells the format from the first significant byte: a JSON envelope starts with <c>{</c> (after
    /// whitespace or a UTF-8 byte order mark); a protobuf CloudEvent never does, since <c>{</c> (0x7B)
    /// would be field 15 with wire type 3, which the CloudEvent message does not have.
    /// </summary>
    /// <param name="source">The input.</param>
    /// <returns>The format.</returns>
    public static EnvelopeFormat Detect(in ReadOnlySequence<byte> source)
    {
        if (source.IsSingleSegment)
        {
            return Detect(source.FirstSpan);
        }

        var reader = new SequenceReader<byte>(source);
        reader.AdvancePastAny((byte)' ', (byte)'\t', (byte)'\r', (byte)'\n');
        if (reader.IsNext([0xEF, 0xBB, 0xBF], advancePast: true))
        {
            reader.AdvancePastAny((byte)' ', (byte)'\t', (byte)'\r', (byte)'\n');
        }

        return reader.TryPeek(out byte first) && first == (byte)'{' ? EnvelopeFormat.Json : EnvelopeFormat.Protobuf;
    }

    /// <summary>Tells the format of contiguous input from its first significant byte (see the sequence overload).</summary>
    /// <param name="source">The input.</param>
    /// <returns>The format.</returns>
    public static EnvelopeFormat Detect(ReadOnlySpan<byte> source)
    {
        if (source.StartsWith((ReadOnlySpan<byte>)[0xEF, 0xBB, 0xBF]))
        {
            source = source[3..];
        }

        int first = source.IndexOfAnyExcept(" \t\r\n"u8);
        return first >= 0 && source[first] == (byte)'{' ? EnvelopeFormat.Json : EnvelopeFormat.Protobuf;
    }
}
