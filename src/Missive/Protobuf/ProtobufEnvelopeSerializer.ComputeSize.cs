using System.Collections.Generic;
using System.Text;

namespace Missive.Protobuf;

/// <summary>Sizes computed up front, the way <see cref="ProtobufEnvelopeSerializer"/> writes: the length prefixes of batch items.</summary>
public sealed partial class ProtobufEnvelopeSerializer
{
    /// <summary>The size of an event message body, computed the way it is written.</summary>
    internal static int ComputeEventSize<T>(MessageEnvelope<T> envelope, int payloadSize)
    {
        int size = StringFieldSize(envelope.Id) + StringFieldSize(envelope.Source) + StringFieldSize(CloudEventRules.SpecVersion10) + StringFieldSize(envelope.Type);
        if (envelope.Time is { } time)
        {
            ProtobufPrimitives.ToTimestamp(time, out long seconds, out int nanos);
            size += EntrySize(CloudEventAttributeNames.Time, 1 + ProtobufPrimitives.LengthDelimitedSize(ProtobufPrimitives.TimestampSize(seconds, nanos)));
        }

        size += StringAttributeSize(CloudEventAttributeNames.DataContentType, envelope.DataContentType)
            + StringAttributeSize(CloudEventAttributeNames.DataSchema, envelope.DataSchema)
            + StringAttributeSize(CloudEventAttributeNames.Subject, envelope.Subject);
        if (envelope.ExtensionsOrNull is { Count: > 0 } extensions)
        {
            for (int i = 0; i < extensions.Count; i++)
            {
                ref readonly KeyValuePair<string, CloudEventAttributeValue> item = ref extensions.ItemAt(i);
                size += EntrySize(item.Key, ExtensionValueSize(item.Value));
            }
        }

        if (payloadSize >= 0)
        {
            size += 1 + ProtobufPrimitives.LengthDelimitedSize(payloadSize);
        }

        return size;
    }

    private static int ExtensionValueSize(CloudEventAttributeValue value)
    {
        switch (value.Type)
        {
            case CloudEventAttributeType.Boolean:
                return 2;
            case CloudEventAttributeType.Integer:
                return 1 + ProtobufPrimitives.Int32Size(value.AsInteger());
            case CloudEventAttributeType.Binary:
                return 1 + ProtobufPrimitives.LengthDelimitedSize(value.BinaryArray.Length);
            case CloudEventAttributeType.Timestamp:
                ProtobufPrimitives.ToTimestamp(value.AsTimestamp(), out long seconds, out int nanos);
                return 1 + ProtobufPrimitives.LengthDelimitedSize(ProtobufPrimitives.TimestampSize(seconds, nanos));
            default:
                return 1 + ProtobufPrimitives.LengthDelimitedSize(Encoding.UTF8.GetByteCount(value.AsString()));
        }
    }

    private static int StringFieldSize(string value) => 1 + ProtobufPrimitives.LengthDelimitedSize(Encoding.UTF8.GetByteCount(value));

    private static int StringAttributeSize(string name, string? value)
        => value is null ? 0 : EntrySize(name, 1 + ProtobufPrimitives.LengthDelimitedSize(Encoding.UTF8.GetByteCount(value)));

    /// <summary>The size of a whole map entry field: its tag, its length and its body.</summary>
    private static int EntrySize(string name, int valueSize) => 1 + ProtobufPrimitives.LengthDelimitedSize(EntryBodySize(name, valueSize));

    /// <summary>The size of a map entry's body: the key field and the value field (names are ASCII).</summary>
    private static int EntryBodySize(string name, int valueSize)
        => 1 + ProtobufPrimitives.LengthDelimitedSize(name.Length) + 1 + ProtobufPrimitives.LengthDelimitedSize(valueSize);
}
