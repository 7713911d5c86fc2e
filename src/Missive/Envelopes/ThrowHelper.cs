using System;
using System.Collections.Generic;
using System.Diagnostics.CodeAnalysis;

namespace Missive;

/// <summary>
/// Builds and throws the exceptions for bad input, one method per reason, so that the JSON, DOM and
/// protobuf readers reject the same input with the same words, and hot methods stay small enough to
/// inline. Every message is one sentence that names the attribute and, where known, ends with the
/// byte position; none holds a value unless content logging is on.
/// </summary>
internal static class ThrowHelper
{
    /// <summary>Creates the exception; the position, when known, ends the sentence as " (at byte N)".</summary>
    public static InvalidEnvelopeException Create(InvalidEnvelopeReason reason, string message, long position = -1, string? attribute = null, Exception? inner = null)
    {
        ReadOnlySpan<char> sentence = message.AsSpan().TrimEnd('.');
        string text = position >= 0 ? $"{sentence} (at byte {position})." : $"{sentence}.";
        return new InvalidEnvelopeException(reason, text, position, attribute, inner);
    }

    [DoesNotReturn]
    public static void ThrowInvalidEnvelope(InvalidEnvelopeReason reason, string message, long position = -1, string? attribute = null, Exception? inner = null)
        => throw Create(reason, message, position, attribute, inner);

    /// <summary>A change to options already frozen by what was built on them.</summary>
    [DoesNotReturn]
    public static void ThrowFrozenOptions()
        => throw new InvalidOperationException("The SerializationOptions cannot be changed: a serializer, type map or reader was already built on them, and would ignore the change. Configure them before the bus is built (MessageBusBuilder.ConfigureSerialization).");

    /// <summary>Throws naming every required attribute that is missing or empty.</summary>
    [DoesNotReturn]
    public static void ThrowMissingAttributes(string? id, string? source, bool hasSpecVersion, bool hasType, long position)
    {
        var names = new List<string>(4);
        if (string.IsNullOrEmpty(id))
        {
            names.Add(CloudEventAttributeNames.Id);
        }

        if (string.IsNullOrEmpty(source))
        {
            names.Add(CloudEventAttributeNames.Source);
        }

        if (!hasSpecVersion)
        {
            names.Add(CloudEventAttributeNames.SpecVersion);
        }

        if (!hasType)
        {
            names.Add(CloudEventAttributeNames.Type);
        }

        ThrowMissingAttributes(string.Join(", ", names), position);
    }

    [DoesNotReturn]
    public static void ThrowMissingAttributes(string names, long position)
        => ThrowInvalidEnvelope(InvalidEnvelopeReason.MissingAttribute, $"The envelope is missing, or has empty, required attribute(s): {names}", position, names);

    [DoesNotReturn]
    public static void ThrowWrongTokenType(string attribute, string expected, long position)
        => ThrowInvalidEnvelope(InvalidEnvelopeReason.InvalidAttribute, $"The '{attribute}' attribute must be {expected}", position, attribute);

    [DoesNotReturn]
    public static void ThrowInvalidAttribute(string attribute, string rule, long position)
        => ThrowInvalidEnvelope(InvalidEnvelopeReason.InvalidAttribute, $"The '{attribute}' attribute {rule}", position, attribute);

    [DoesNotReturn]
    public static void ThrowDuplicateAttribute(string attribute, long position)
        => ThrowInvalidAttribute(attribute, "appears more than once", position);

    [DoesNotReturn]
    public static void ThrowInvalidBase64(string attribute, long position)
        => ThrowInvalidAttribute(attribute, "is not valid base64", position);

    [DoesNotReturn]
    public static void ThrowInvalidTimestamp(string attribute, long position)
        => ThrowInvalidAttribute(attribute, "is not an RFC 3339 timestamp", position);

    [DoesNotReturn]
    public static void ThrowTimestampOutOfRange(string attribute, long position)
        => ThrowInvalidAttribute(attribute, "is a well-formed timestamp outside the years 1 to 9999 (UTC and local), which DateTimeOffset cannot hold", position);

    [DoesNotReturn]
    public static void ThrowNotAbsoluteUri(string attribute, long position)
        => ThrowInvalidAttribute(attribute, "is not an absolute URI", position);

    [DoesNotReturn]
    public static void ThrowNotUriReference(string attribute, long position)
        => ThrowInvalidAttribute(attribute, "is not a URI reference", position);

    [DoesNotReturn]
    public static void ThrowIntegerOutOfRange(string attribute, long position)
        => ThrowInvalidAttribute(attribute, "must be an integer in the signed 32-bit range (the only CloudEvents number type)", position);

    [DoesNotReturn]
    public static void ThrowDataAndDataBase64(long position)
        => ThrowInvalidAttribute(CloudEventAttributeNames.Data, "and 'data_base64' cannot both be present", position);

    [DoesNotReturn]
    public static void ThrowUnsupportedSpecVersion(long position)
        => ThrowInvalidEnvelope(InvalidEnvelopeReason.UnsupportedFormat, "The 'specversion' attribute must be \"1.0\": only CloudEvents 1.0 is supported", position, CloudEventAttributeNames.SpecVersion);

    [DoesNotReturn]
    public static void ThrowInvalidAttributeName(long position)
        => ThrowInvalidEnvelope(InvalidEnvelopeReason.InvalidAttribute, "An attribute name is not valid: CloudEvents attribute names are lower-case ASCII letters and digits", position);

    [DoesNotReturn]
    public static void ThrowAttributeNameTooLong(int limit, long position)
        => ThrowInvalidEnvelope(InvalidEnvelopeReason.LimitExceeded, $"An attribute name is longer than {limit} bytes (SerializationOptions.MaxAttributeNameLength)", position);

    [DoesNotReturn]
    public static void ThrowTooManyExtensions(int limit, long position)
        => ThrowInvalidEnvelope(InvalidEnvelopeReason.LimitExceeded, $"The envelope has more than {limit} extension attributes (SerializationOptions.MaxExtensionAttributes)", position);

    [DoesNotReturn]
    public static void ThrowBatchTooLarge(int limit, long position)
        => ThrowInvalidEnvelope(InvalidEnvelopeReason.LimitExceeded, $"The batch holds more than {limit} envelopes (SerializationOptions.MaxBatchSize)", position);

    public static InvalidEnvelopeException InputTooLarge(long length, int limit)
        => Create(InvalidEnvelopeReason.LimitExceeded, $"The input is {length} bytes, over the limit of {limit} bytes (SerializationOptions.MaxEnvelopeSize)");

    [DoesNotReturn]
    public static void ThrowNotAJsonObject(long position)
        => ThrowInvalidEnvelope(InvalidEnvelopeReason.Malformed, "A CloudEvents JSON envelope must be a JSON object", position);

    [DoesNotReturn]
    public static void ThrowNotAJsonArray(long position)
        => ThrowInvalidEnvelope(InvalidEnvelopeReason.Malformed, "A CloudEvents JSON batch must be a JSON array", position);

    [DoesNotReturn]
    public static void ThrowBatchItemNotAJsonObject(int index, long position)
        => ThrowInvalidEnvelope(InvalidEnvelopeReason.Malformed, $"Batch item {index} is not a JSON object", position);

    [DoesNotReturn]
    public static void ThrowUnknownMessageType(string? type, long position)
    {
        InvalidEnvelopeException error = Create(
            InvalidEnvelopeReason.UnknownMessageType,
            type is not null
                ? $"The envelope's 'type' attribute ('{type}') names no registered message type" // metadata, not content: always named
                : "The envelope's 'type' attribute names no registered message type",
            position,
            CloudEventAttributeNames.Type);
        error.UnknownType = type;
        throw error;
    }

    /// <summary>Rejects an attribute value longer than the configured limit (UTF-8 bytes).</summary>
    public static void CheckAttributeLength(long byteLength, int limit, string attribute, long position)
    {
        if (byteLength > limit)
        {
            ThrowInvalidEnvelope(InvalidEnvelopeReason.LimitExceeded, $"The '{attribute}' attribute is {byteLength} bytes, over the limit of {limit} bytes (SerializationOptions.MaxAttributeValueLength)", position, attribute);
        }
    }

    /// <summary>Invalid UTF-8 in a string, or an escaped unpaired surrogate.</summary>
    public static InvalidEnvelopeException InvalidText(long position, Exception? inner)
        => Create(InvalidEnvelopeReason.Malformed, "A string in the input is not valid UTF-8, or escapes an unpaired surrogate", position, inner: inner);

    [DoesNotReturn]
    public static void ThrowArgumentOutOfRange(string paramName, string message)
        => throw new ArgumentOutOfRangeException(paramName, message);
}
