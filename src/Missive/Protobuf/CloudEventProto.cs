namespace Missive.Protobuf;

/// <summary>
/// The field numbers of the CloudEvents protobuf schema (<c>io.cloudevents.v1</c>, in the CloudEvents
/// specification's <c>cloudevents/formats/cloudevents.proto</c>) and of <c>google.protobuf.Timestamp</c>,
/// one nested class per message, with each field's tag pre-computed as
/// <c>(field number &lt;&lt; 3) | wire type</c>. Every field number is below 16, so every tag is one byte.
/// </summary>
internal static class CloudEventProto
{
    private const int LengthDelimited = (int)WireType.LengthDelimited;
    private const int Varint = (int)WireType.Varint;

    /// <summary><c>message CloudEvent</c>.</summary>
    public static class CloudEvent
    {
        public const int IdField = 1;
        public const int SourceField = 2;
        public const int SpecVersionField = 3;
        public const int TypeField = 4;
        public const int AttributesField = 5;
        public const int BinaryDataField = 6;
        public const int TextDataField = 7;
        public const int ProtoDataField = 8;

        public const byte IdTag = (IdField << 3) | LengthDelimited;
        public const byte SourceTag = (SourceField << 3) | LengthDelimited;
        public const byte SpecVersionTag = (SpecVersionField << 3) | LengthDelimited;
        public const byte TypeTag = (TypeField << 3) | LengthDelimited;
        public const byte AttributesTag = (AttributesField << 3) | LengthDelimited;
        public const byte BinaryDataTag = (BinaryDataField << 3) | LengthDelimited;
        public const byte TextDataTag = (TextDataField << 3) | LengthDelimited;
    }

    /// <summary>An entry of <c>map&lt;string, CloudEventAttributeValue&gt; attributes</c>: key and value.</summary>
    public static class AttributeEntry
    {
        public const int KeyField = 1;
        public const int ValueField = 2;

        public const byte KeyTag = (KeyField << 3) | LengthDelimited;
        public const byte ValueTag = (ValueField << 3) | LengthDelimited;
    }

    /// <summary><c>message CloudEventAttributeValue</c>: a <c>oneof attr</c> with one field per CloudEvents type.</summary>
    public static class AttributeValue
    {
        public const int CeBooleanField = 1;
        public const int CeIntegerField = 2;
        public const int CeStringField = 3;
        public const int CeBytesField = 4;
        public const int CeUriField = 5;
        public const int CeUriRefField = 6;
        public const int CeTimestampField = 7;

        public const byte CeBooleanTag = (CeBooleanField << 3) | Varint;
        public const byte CeIntegerTag = (CeIntegerField << 3) | Varint;
        public const byte CeStringTag = (CeStringField << 3) | LengthDelimited;
        public const byte CeBytesTag = (CeBytesField << 3) | LengthDelimited;
        public const byte CeUriTag = (CeUriField << 3) | LengthDelimited;
        public const byte CeUriRefTag = (CeUriRefField << 3) | LengthDelimited;
        public const byte CeTimestampTag = (CeTimestampField << 3) | LengthDelimited;
    }

    /// <summary><c>message google.protobuf.Timestamp</c>.</summary>
    public static class Timestamp
    {
        public const int SecondsField = 1;
        public const int NanosField = 2;

        public const byte SecondsTag = (SecondsField << 3) | Varint;
        public const byte NanosTag = (NanosField << 3) | Varint;
    }

    /// <summary><c>message CloudEventBatch</c>.</summary>
    public static class Batch
    {
        public const int EventsField = 1;

        public const byte EventsTag = (EventsField << 3) | LengthDelimited;
    }
}
