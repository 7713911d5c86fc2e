using System;

namespace Missive.Json;

/// <summary>The members of a CloudEvents JSON object, as flags so duplicates are cheap to spot.</summary>
[Flags]
internal enum JsonAttribute
{
    None = 0,
    Id = 1 << 0,
    Source = 1 << 1,
    SpecVersion = 1 << 2,
    Type = 1 << 3,
    Time = 1 << 4,
    DataContentType = 1 << 5,
    DataSchema = 1 << 6,
    Subject = 1 << 7,
    Data = 1 << 8,
    DataBase64 = 1 << 9,
    Extension = 1 << 10,
}

/// <summary>Maps UTF-8 member names to <see cref="JsonAttribute"/>.</summary>
internal static class JsonAttributeNames
{
    public static JsonAttribute Classify(ReadOnlySpan<byte> name) => name.Length switch
    {
        2 when name.SequenceEqual("id"u8) => JsonAttribute.Id,
        4 when name.SequenceEqual("type"u8) => JsonAttribute.Type,
        4 when name.SequenceEqual("time"u8) => JsonAttribute.Time,
        4 when name.SequenceEqual("data"u8) => JsonAttribute.Data,
        6 when name.SequenceEqual("source"u8) => JsonAttribute.Source,
        7 when name.SequenceEqual("subject"u8) => JsonAttribute.Subject,
        10 when name.SequenceEqual("dataschema"u8) => JsonAttribute.DataSchema,
        11 when name.SequenceEqual("specversion"u8) => JsonAttribute.SpecVersion,
        11 when name.SequenceEqual("data_base64"u8) => JsonAttribute.DataBase64,
        15 when name.SequenceEqual("datacontenttype"u8) => JsonAttribute.DataContentType,
        _ => JsonAttribute.Extension,
    };

    public static string NameOf(JsonAttribute attribute) => attribute switch
    {
        JsonAttribute.Id => "id",
        JsonAttribute.Source => "source",
        JsonAttribute.SpecVersion => "specversion",
        JsonAttribute.Type => "type",
        JsonAttribute.Time => "time",
        JsonAttribute.DataContentType => "datacontenttype",
        JsonAttribute.DataSchema => "dataschema",
        JsonAttribute.Subject => "subject",
        JsonAttribute.Data => "data",
        JsonAttribute.DataBase64 => "data_base64",
        _ => "extension",
    };
}
