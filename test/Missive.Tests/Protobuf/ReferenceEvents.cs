using System;
using System.Collections.Generic;
using System.Text;
using System.Text.Json;
using Google.Protobuf;
using Google.Protobuf.WellKnownTypes;
using Missive.Tests.Infrastructure;
using Missive.Tests.Protobuf.Reference;
using AttributeValue = Missive.Tests.Protobuf.Reference.CloudEvent.Types.CloudEventAttributeValue;

namespace Missive.Tests.Protobuf;

/// <summary>Builds, with Google.Protobuf's generated types, the CloudEvent that stands for a Missive envelope (same attribute order).</summary>
public static class ReferenceEvents
{
    public static CloudEvent From(MessageEnvelope envelope)
    {
        var ce = new CloudEvent { Id = envelope.Id, Source = envelope.Source, SpecVersion = "1.0", Type = envelope.Type };
        if (envelope.Time is { } time)
        {
            ce.Attributes.Add("time", new AttributeValue { CeTimestamp = Timestamp.FromDateTimeOffset(time) });
        }

        if (envelope.DataContentType is { } contentType)
        {
            ce.Attributes.Add("datacontenttype", new AttributeValue { CeString = contentType });
        }

        if (envelope.DataSchema is { } schema)
        {
            ce.Attributes.Add("dataschema", new AttributeValue { CeUri = schema });
        }

        if (envelope.Subject is { } subject)
        {
            ce.Attributes.Add("subject", new AttributeValue { CeString = subject });
        }

        foreach (KeyValuePair<string, CloudEventAttributeValue> item in envelope.Extensions)
        {
            ce.Attributes.Add(item.Key, From(item.Value));
        }

        switch (envelope.GetMessage())
        {
            case null:
                break;
            case byte[] bytes:
                ce.BinaryData = ByteString.CopyFrom(bytes);
                break;
            case ReadOnlyMemory<byte> memory:
                ce.BinaryData = ByteString.CopyFrom(memory.Span);
                break;
            case string text:
                ce.TextData = CloudEventRules.IsJsonContentType(envelope.DataContentType) ? JsonSerializer.Serialize(text) : text;
                break;
            case Order order:
                ce.TextData = Encoding.UTF8.GetString(JsonSerializer.SerializeToUtf8Bytes(order, TestJsonContext.Default.Order));
                break;
            default:
                throw new NotSupportedException(envelope.MessageType.Name);
        }

        return ce;
    }

    public static AttributeValue From(CloudEventAttributeValue value) => value.Type switch
    {
        CloudEventAttributeType.Boolean => new AttributeValue { CeBoolean = value.AsBoolean() },
        CloudEventAttributeType.Integer => new AttributeValue { CeInteger = value.AsInteger() },
        CloudEventAttributeType.String => new AttributeValue { CeString = value.AsString() },
        CloudEventAttributeType.Binary => new AttributeValue { CeBytes = ByteString.CopyFrom(value.AsBinary().Span) },
        CloudEventAttributeType.Uri => new AttributeValue { CeUri = value.AsString() },
        CloudEventAttributeType.UriReference => new AttributeValue { CeUriRef = value.AsString() },
        CloudEventAttributeType.Timestamp => new AttributeValue { CeTimestamp = Timestamp.FromDateTimeOffset(value.AsTimestamp()) },
        _ => throw new ArgumentOutOfRangeException(nameof(value)),
    };
}
