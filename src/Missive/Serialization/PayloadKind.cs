namespace Missive.Serialization;

/// <summary>How a message type's data travels.</summary>
internal enum PayloadKind
{
    /// <summary>Embedded JSON (<c>data</c>); protobuf <c>text_data</c> holding the JSON text.</summary>
    Json,

    /// <summary>Text: a JSON string (<c>data</c>); protobuf <c>text_data</c>.</summary>
    Text,

    /// <summary>Bytes: <c>data_base64</c>; protobuf <c>binary_data</c>.</summary>
    Binary,
}
