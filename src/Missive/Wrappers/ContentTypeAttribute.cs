using System.Collections.Generic;
using Missive.Serialization;

namespace Missive.Transport;

/// <summary>
/// Missive's convention for telling a body's format, both halves: an SQS or SNS message whose body is
/// a base64 protobuf envelope carries a String message attribute <c>contentType</c> naming
/// <c>application/cloudevents+protobuf</c>; a JSON envelope needs none (its first byte tells it).
/// </summary>
internal static class ContentTypeAttribute
{
    /// <summary>The attribute name.</summary>
    public const string Name = "contentType";

    /// <summary>The attributes of a protobuf body.</summary>
    public static readonly IReadOnlyDictionary<string, MessageAttributeValue> Protobuf = new Dictionary<string, MessageAttributeValue>
    {
        [Name] = MessageAttributeValue.FromString(ContentTypes.CloudEventsProtobuf),
    };

    /// <summary>The attributes of a JSON body: none.</summary>
    public static readonly IReadOnlyDictionary<string, MessageAttributeValue> None = new Dictionary<string, MessageAttributeValue>();

    /// <summary>Gets the format the attributes name, or <c>null</c> when they name none.</summary>
    public static EnvelopeFormat? FormatOf(IReadOnlyDictionary<string, MessageAttributeValue>? attributes)
        => attributes is not null && attributes.TryGetValue(Name, out MessageAttributeValue? value) && value.StringValue is { } contentType
            ? EnvelopeFormatDetector.FromContentType(contentType)
            : null;
}
