using System.Buffers;
using System.Text.Json;
using Microsoft.Extensions.Logging;
using Missive.Serialization;

namespace Missive.Json;

/// <summary>
/// The high-performance CloudEvents JSON serializer: <see cref="Utf8JsonWriter"/> straight into the
/// caller's <see cref="IBufferWriter{T}"/> and <see cref="Utf8JsonReader"/> straight over the
/// caller's <see cref="ReadOnlySequence{T}"/>, with no DOM and no intermediate string. An envelope of the shape
/// producers write (plain strings, a registered type, data after it) is gone through by hand, with only its data
/// read by a reader; anything else is read by the reader from the start.
/// </summary>
/// <remarks>
/// <para>Encode rules (the same bytes as <see cref="StandardJsonEnvelopeSerializer"/>):</para>
/// <list type="bullet">
/// <item>Members in the order <c>id, source, specversion, type, time, datacontenttype, data</c> (or
/// <c>data_base64</c>), <c>dataschema</c>, <c>subject</c>, then extensions in insertion order;
/// absent optional attributes and a null message are left out.</item>
/// <item><c>time</c> in System.Text.Json's ISO 8601 form, with the envelope's offset (AWS.Messaging compatible).</item>
/// <item>Data by message type: see <see cref="MessageTypeMap"/>. The payload is written by
/// System.Text.Json into the same writer.</item>
/// <item>Extensions: Boolean and Integer as JSON literals, Binary as base64, Timestamp as ISO 8601, others as strings.</item>
/// </list>
/// <para>Decode rules:</para>
/// <list type="bullet">
/// <item>Members in any order; unknown lower-case members are extensions (booleans, 32-bit integers and
/// strings; strings of names declared in <see cref="SerializationOptions.ExtensionAttributeTypes"/> take that type).</item>
/// <item><c>null</c> optional attributes and extensions count as absent; <c>data</c> and
/// <c>data_base64</c> together, duplicate members, and invalid names are rejected.</item>
/// <item>Data that comes before <c>type</c> is skipped and read once the type is known.</item>
/// </list>
/// <para>On failure while writing, the destination may already hold part of the envelope.</para>
/// </remarks>
public sealed partial class Utf8JsonEnvelopeSerializer : EnvelopeSerializer, ILeadingEnvelopeReader
{
    /// <summary>Creates the serializer.</summary>
    /// <param name="messageTypes">The registered message types. Must not be null.</param>
    /// <param name="logger">A logger, or <c>null</c>.</param>
    public Utf8JsonEnvelopeSerializer(MessageTypeMap messageTypes, ILogger<Utf8JsonEnvelopeSerializer>? logger = null)
        : base(messageTypes, logger)
    {
        _dataReaderOptions = Settings.JsonReaderOptions with { MaxDepth = Settings.MaxJsonDepth - 1 };
        LogCreated();
    }

    /// <inheritdoc />
    public override string ContentType => ContentTypes.CloudEventsJson;

    /// <inheritdoc />
    public override EnvelopeFormat Format => EnvelopeFormat.Json;

    /// <inheritdoc />
    public override string BatchContentType => ContentTypes.CloudEventsBatchJson;
}
