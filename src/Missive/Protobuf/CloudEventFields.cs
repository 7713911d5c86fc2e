namespace Missive.Protobuf;

/// <summary>
/// Tags of the <c>io.cloudevents.v1</c> messages, pre-computed as <c>(field &lt;&lt; 3) | wireType</c>;
/// every field number is below 16, so each tag is one byte.
/// </summary>
internal static class CloudEventFields
{
    // CloudEvent
    public const byte Id = (1 << 3) | 2;
    public const byte Source = (2 << 3) | 2;
    public const byte SpecVersion = (3 << 3) | 2;
    public const byte Type = (4 << 3) | 2;
    public const byte Attribute = (5 << 3) | 2;   // map entry message
    public const byte BinaryData = (6 << 3) | 2;
    public const byte TextData = (7 << 3) | 2;
    public const byte ProtoData = (8 << 3) | 2;

    // map<string, CloudEventAttributeValue> entry
    public const byte EntryKey = (1 << 3) | 2;
    public const byte EntryValue = (2 << 3) | 2;

    // CloudEventAttributeValue (oneof attr)
    public const byte CeBoolean = (1 << 3) | 0;
    public const byte CeInteger = (2 << 3) | 0;
    public const byte CeString = (3 << 3) | 2;
    public const byte CeBytes = (4 << 3) | 2;
    public const byte CeUri = (5 << 3) | 2;
    public const byte CeUriRef = (6 << 3) | 2;
    public const byte CeTimestamp = (7 << 3) | 2;

    // google.protobuf.Timestamp
    public const byte Seconds = (1 << 3) | 0;
    public const byte Nanos = (2 << 3) | 0;

    // CloudEventBatch
    public const byte Events = (1 << 3) | 2;

    /// <summary>The field numbers, for the reader.</summary>
    public const int IdField = 1, SourceField = 2, SpecVersionField = 3, TypeField = 4, AttributeField = 5, BinaryDataField = 6, TextDataField = 7, ProtoDataField = 8;
}
