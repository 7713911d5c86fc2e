namespace Missive;

#pragma warning disable CA1720 // The member names are the CloudEvents type names.

/// <summary>The CloudEvents 1.0 type system for context attributes.</summary>
public enum CloudEventAttributeType
{
    /// <summary>No value: the default of <see cref="CloudEventAttributeValue"/>.</summary>
    None = 0,

    /// <summary>A boolean: <c>true</c> or <c>false</c>.</summary>
    Boolean = 1,

    /// <summary>A whole number in the signed 32-bit range.</summary>
    Integer = 2,

    /// <summary>A sequence of Unicode characters.</summary>
    String = 3,

    /// <summary>A sequence of bytes (base64 in JSON).</summary>
    Binary = 4,

    /// <summary>An absolute URI (RFC 3986).</summary>
    Uri = 5,

    /// <summary>A URI reference: an absolute URI or a relative reference (RFC 3986).</summary>
    UriReference = 6,

    /// <summary>A point in time (RFC 3339 in text formats).</summary>
    Timestamp = 7,
}
