using System.Buffers;
using Microsoft.Extensions.Logging;
using Missive.Serialization;

namespace Missive.Protobuf;

/// <summary>
/// The CloudEvents protobuf format (<c>io.cloudevents.v1.CloudEvent</c>), written by hand into the
/// caller's <see cref="IBufferWriter{T}"/> and read from a <see cref="ReadOnlySequence{T}"/> (a multi-segment one
/// copied into one rented buffer first), with no intermediate message objects.
/// </summary>
/// <remarks>
/// <para>Encode rules (canonical: the bytes Google.Protobuf writes for the same event and attribute order):</para>
/// <list type="bullet">
/// <item>Fields in number order: <c>id</c> (1), <c>source</c> (2), <c>spec_version</c> (3), <c>type</c> (4),
/// then one <c>attributes</c> (5) map entry per attribute, then the data.</item>
/// <item>Map entries in this order: <c>time</c> (<c>ce_timestamp</c>), <c>datacontenttype</c> (<c>ce_string</c>),
/// <c>dataschema</c> (<c>ce_uri</c>), <c>subject</c> (<c>ce_string</c>), then extensions in insertion order,
/// each with the case of its type.</item>
/// <item>JSON and text messages as <c>text_data</c> (7): the UTF-8 JSON the message serializer writes,
/// or the text; binary messages as <c>binary_data</c> (6). A null message writes no data field.</item>
/// <item>Length prefixes are minimal varints; sizes are computed up front, and only a payload whose size is
/// unknown until written (JSON) is staged in a pooled buffer, cleared as <c>CleanRentedBuffers</c> says.</item>
/// </list>
/// <para>Decode rules:</para>
/// <list type="bullet">
/// <item>Fields in any order; for repeated scalar fields and map keys the last one wins, as in protobuf.
/// Unknown fields of every wire type are skipped; over-long varints are accepted.</item>
/// <item>Rejected: lengths past the end, wire types 6 and 7, truncated input, missing <c>id</c>, <c>source</c>,
/// <c>spec_version</c> or <c>type</c>, a <c>spec_version</c> other than <c>1.0</c>, invalid UTF-8, integers out of
/// the int32 range, attribute values with no case set, core attributes with the wrong case, reserved or invalid
/// extension names.</item>
/// <item><c>proto_data</c> (8) is not supported: an event carrying it is rejected with
/// <see cref="InvalidEnvelopeReason.UnsupportedFormat"/> (publish protobuf payloads as <c>binary_data</c>).</item>
/// </list>
/// <para>Protobuf envelopes travel in SQS and SNS bodies as base64 text; the text conveniences
/// (<c>SerializeToString</c>, <c>Deserialize(string)</c>) use base64 for this format.</para>
/// </remarks>
public sealed partial class ProtobufEnvelopeSerializer : EnvelopeSerializer
{
    /// <summary>Creates the serializer.</summary>
    /// <param name="messageTypes">The registered message types. Must not be null.</param>
    /// <param name="logger">A logger, or <c>null</c>.</param>
    public ProtobufEnvelopeSerializer(MessageTypeMap messageTypes, ILogger<ProtobufEnvelopeSerializer>? logger = null)
        : base(messageTypes, logger)
    {
        LogCreated();
    }

    /// <inheritdoc />
    public override string ContentType => ContentTypes.CloudEventsProtobuf;

    /// <inheritdoc />
    public override string BatchContentType => ContentTypes.CloudEventsBatchProtobuf;

    /// <inheritdoc />
    public override EnvelopeFormat Format => EnvelopeFormat.Protobuf;
}
