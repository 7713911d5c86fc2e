namespace Missive;

/// <summary>Why an envelope could not be read or written.</summary>
public enum InvalidEnvelopeReason
{
    /// <summary>The input is not well-formed in its format (bad JSON syntax, bad protobuf wire data, truncated input).</summary>
    Malformed = 1,

    /// <summary>The input is larger, longer or deeper than the configured limits allow.</summary>
    LimitExceeded = 2,

    /// <summary>A required attribute is missing.</summary>
    MissingAttribute = 3,

    /// <summary>An attribute has a value of the wrong type or one the CloudEvents rules reject.</summary>
    InvalidAttribute = 4,

    /// <summary>The <c>type</c> attribute names no registered message type.</summary>
    UnknownMessageType = 5,

    /// <summary>The data could not be turned into the registered message type.</summary>
    InvalidData = 6,

    /// <summary>The envelope is in a format, or a shape, this reader does not handle.</summary>
    UnsupportedFormat = 7,

    /// <summary>
    /// The body is a pointer to a stored payload (see <c>UsePayloadOffload</c>) that could not be fetched: a bucket not
    /// configured as readable, a missing object, access denied, a payload over the size limit.
    /// </summary>
    PayloadUnavailable = 8,

    /// <summary>
    /// The body is not a CloudEvents envelope and none of the queue's native message rules matched it
    /// (<c>Transport.NativeMessageRules</c>), and no fallback handler is registered.
    /// </summary>
    NoNativeRuleMatched = 9,
}
