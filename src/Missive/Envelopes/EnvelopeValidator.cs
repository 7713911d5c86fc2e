using System;

namespace Missive;

/// <summary>The CloudEvents checks every envelope passes before it is written and after it is read.</summary>
internal static class EnvelopeValidator
{
    public static void Validate(MessageEnvelope envelope, long position)
    {
        if (string.IsNullOrEmpty(envelope.Id) || string.IsNullOrEmpty(envelope.Source)
            || string.IsNullOrEmpty(envelope.SpecVersion) || string.IsNullOrEmpty(envelope.Type))
        {
            ThrowHelper.ThrowMissingAttributes(envelope.Id, envelope.Source, !string.IsNullOrEmpty(envelope.SpecVersion), !string.IsNullOrEmpty(envelope.Type), position);
        }

        if (!string.Equals(envelope.SpecVersion, CloudEventRules.SpecVersion10, StringComparison.Ordinal))
        {
            ThrowHelper.ThrowInvalidAttribute(CloudEventAttributeNames.SpecVersion, "must be \"1.0\"", position);
        }

        if (!CloudEventRules.IsUriReference(envelope.Source))
        {
            ThrowHelper.ThrowInvalidAttribute(CloudEventAttributeNames.Source, "must be a URI reference", position);
        }

        if (envelope.DataContentType is { } contentType && !ReferenceEquals(contentType, ContentTypes.ApplicationJson) && !CloudEventRules.IsMediaType(contentType))
        {
            ThrowHelper.ThrowInvalidAttribute(CloudEventAttributeNames.DataContentType, "must be an RFC 2046 media type (type/subtype)", position);
        }

        if (envelope.DataSchema is { } schema && !CloudEventRules.IsAbsoluteUri(schema))
        {
            ThrowHelper.ThrowInvalidAttribute(CloudEventAttributeNames.DataSchema, "must be an absolute URI", position);
        }

        if (envelope.Subject is { Length: 0 })
        {
            ThrowHelper.ThrowInvalidAttribute(CloudEventAttributeNames.Subject, "must not be empty", position);
        }
    }
}
