using System;
using System.Diagnostics.CodeAnalysis;

namespace Missive;

/// <summary>
/// Builds and throws exceptions away from hot methods so that they stay small enough to inline.
/// Messages name the attribute and the position, never a value, unless content logging is on.
/// </summary>
internal static class ThrowHelper
{
    [DoesNotReturn]
    public static void ThrowInvalidEnvelope(InvalidEnvelopeReason reason, string message, long position = -1, string? attribute = null, Exception? inner = null)
        => throw Create(reason, message, position, attribute, inner);

    public static InvalidEnvelopeException Create(InvalidEnvelopeReason reason, string message, long position = -1, string? attribute = null, Exception? inner = null)
    {
        string where = position >= 0 ? $" (at byte {position})" : string.Empty;
        return new InvalidEnvelopeException(reason, message + where, position, attribute, inner);
    }

    /// <summary>Throws naming every required attribute that is missing or empty.</summary>
    [DoesNotReturn]
    public static void ThrowMissingAttributes(string? id, string? source, bool hasSpecVersion, bool hasType, long position)
    {
        var names = new System.Collections.Generic.List<string>(4);
        if (string.IsNullOrEmpty(id))
        {
            names.Add("id");
        }

        if (string.IsNullOrEmpty(source))
        {
            names.Add("source");
        }

        if (!hasSpecVersion)
        {
            names.Add("specversion");
        }

        if (!hasType)
        {
            names.Add("type");
        }

        ThrowMissingAttributes(string.Join(", ", names), position);
    }

    [DoesNotReturn]
    public static void ThrowMissingAttributes(string names, long position)
        => throw new InvalidEnvelopeException(
            InvalidEnvelopeReason.MissingAttribute,
            $"The envelope is missing, or has empty, required attribute(s): {names}.",
            position,
            names);

    [DoesNotReturn]
    public static void ThrowWrongTokenType(string attribute, string expected, long position)
        => ThrowInvalidEnvelope(InvalidEnvelopeReason.InvalidAttribute, $"The '{attribute}' attribute must be {expected}.", position, attribute);

    [DoesNotReturn]
    public static void ThrowInvalidAttribute(string attribute, string rule, long position)
        => ThrowInvalidEnvelope(InvalidEnvelopeReason.InvalidAttribute, $"The '{attribute}' attribute {rule}.", position, attribute);

    [DoesNotReturn]
    public static void ThrowDuplicateAttribute(string attribute, long position)
        => ThrowInvalidEnvelope(InvalidEnvelopeReason.InvalidAttribute, $"The '{attribute}' attribute appears more than once.", position, attribute);

    [DoesNotReturn]
    public static void ThrowUnknownMessageType(string? type, bool includeContent, long position)
        => ThrowInvalidEnvelope(
            InvalidEnvelopeReason.UnknownMessageType,
            includeContent && type is not null
                ? $"The envelope's 'type' attribute ('{type}') names no registered message type."
                : "The envelope's 'type' attribute names no registered message type.",
            position,
            "type");

    /// <summary>Rejects an attribute value longer than the configured limit (UTF-8 bytes).</summary>
    public static void CheckAttributeLength(long byteLength, int limit, string attribute, long position)
    {
        if (byteLength > limit)
        {
            ThrowInvalidEnvelope(InvalidEnvelopeReason.LimitExceeded, $"The '{attribute}' attribute is {byteLength} bytes, over the limit of {limit} bytes (SerializationOptions.MaxAttributeValueLength).", position, attribute);
        }
    }

    [DoesNotReturn]
    public static void ThrowArgumentOutOfRange(string paramName, string message)
        => throw new ArgumentOutOfRangeException(paramName, message);
}
