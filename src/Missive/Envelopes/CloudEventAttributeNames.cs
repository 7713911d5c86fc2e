using System;

namespace Missive;

/// <summary>
/// The one table of CloudEvents 1.0 attribute names (and the JSON format's data members), as text and
/// as UTF-8, used by every reader and writer. Names from the CloudEvents specification, section
/// "Context Attributes" (https://github.com/cloudevents/spec/blob/v1.0.2/cloudevents/spec.md) and the
/// JSON format (https://github.com/cloudevents/spec/blob/v1.0.2/cloudevents/formats/json-format.md).
/// </summary>
internal static class CloudEventAttributeNames
{
    public const string Id = "id";
    public const string Source = "source";
    public const string SpecVersion = "specversion";
    public const string Type = "type";
    public const string Time = "time";
    public const string DataContentType = "datacontenttype";
    public const string DataSchema = "dataschema";
    public const string Subject = "subject";

    /// <summary>The JSON format's member for data that is JSON or text.</summary>
    public const string Data = "data";

    /// <summary>The JSON format's member for binary data, base64-encoded.</summary>
    public const string DataBase64 = "data_base64";

    /// <summary>The name of the Distributed Tracing extension's trace context attribute.</summary>
    public const string TraceParent = "traceparent";

    /// <summary>The name of the Distributed Tracing extension's vendor-specific trace state attribute.</summary>
    public const string TraceState = "tracestate";

    public static ReadOnlySpan<byte> IdUtf8 => "id"u8;
    public static ReadOnlySpan<byte> SourceUtf8 => "source"u8;
    public static ReadOnlySpan<byte> SpecVersionUtf8 => "specversion"u8;
    public static ReadOnlySpan<byte> TypeUtf8 => "type"u8;
    public static ReadOnlySpan<byte> TimeUtf8 => "time"u8;
    public static ReadOnlySpan<byte> DataContentTypeUtf8 => "datacontenttype"u8;
    public static ReadOnlySpan<byte> DataSchemaUtf8 => "dataschema"u8;
    public static ReadOnlySpan<byte> SubjectUtf8 => "subject"u8;
    public static ReadOnlySpan<byte> DataUtf8 => "data"u8;
    public static ReadOnlySpan<byte> DataBase64Utf8 => "data_base64"u8;

    /// <summary>Tells which attribute a UTF-8 name is; anything that is not a core name is an extension.</summary>
    public static CloudEventAttribute Classify(ReadOnlySpan<byte> name)
    {
        if (name.IsEmpty)
        {
            return CloudEventAttribute.Extension;
        }

        // The first byte narrows the candidates to at most four; SequenceEqual compares lengths first.
        return name[0] switch
        {
            (byte)'i' when name.SequenceEqual(IdUtf8) => CloudEventAttribute.Id,
            (byte)'s' when name.SequenceEqual(SourceUtf8) => CloudEventAttribute.Source,
            (byte)'s' when name.SequenceEqual(SpecVersionUtf8) => CloudEventAttribute.SpecVersion,
            (byte)'s' when name.SequenceEqual(SubjectUtf8) => CloudEventAttribute.Subject,
            (byte)'t' when name.SequenceEqual(TypeUtf8) => CloudEventAttribute.Type,
            (byte)'t' when name.SequenceEqual(TimeUtf8) => CloudEventAttribute.Time,
            (byte)'d' when name.SequenceEqual(DataUtf8) => CloudEventAttribute.Data,
            (byte)'d' when name.SequenceEqual(DataContentTypeUtf8) => CloudEventAttribute.DataContentType,
            (byte)'d' when name.SequenceEqual(DataSchemaUtf8) => CloudEventAttribute.DataSchema,
            (byte)'d' when name.SequenceEqual(DataBase64Utf8) => CloudEventAttribute.DataBase64,
            _ => CloudEventAttribute.Extension,
        };
    }

    /// <summary>Tells which attribute a name is; anything that is not a core name is an extension.</summary>
    public static CloudEventAttribute Classify(ReadOnlySpan<char> name) => name switch
    {
        Id => CloudEventAttribute.Id,
        Source => CloudEventAttribute.Source,
        SpecVersion => CloudEventAttribute.SpecVersion,
        Type => CloudEventAttribute.Type,
        Time => CloudEventAttribute.Time,
        DataContentType => CloudEventAttribute.DataContentType,
        DataSchema => CloudEventAttribute.DataSchema,
        Subject => CloudEventAttribute.Subject,
        Data => CloudEventAttribute.Data,
        DataBase64 => CloudEventAttribute.DataBase64,
        _ => CloudEventAttribute.Extension,
    };

    /// <summary>Gets the name of a core attribute (the constant string, so readers share it instead of decoding one).</summary>
    public static string NameOf(CloudEventAttribute attribute) => attribute switch
    {
        CloudEventAttribute.Id => Id,
        CloudEventAttribute.Source => Source,
        CloudEventAttribute.SpecVersion => SpecVersion,
        CloudEventAttribute.Type => Type,
        CloudEventAttribute.Time => Time,
        CloudEventAttribute.DataContentType => DataContentType,
        CloudEventAttribute.DataSchema => DataSchema,
        CloudEventAttribute.Subject => Subject,
        CloudEventAttribute.Data => Data,
        CloudEventAttribute.DataBase64 => DataBase64,
        _ => "extension",
    };

    /// <summary>Tells whether a name is a core attribute or a JSON data member, which no extension may be named.</summary>
    public static bool IsReserved(ReadOnlySpan<char> name) => Classify(name) != CloudEventAttribute.Extension;
}
