using System.Text.Json;

namespace Missive.Json;

/// <summary>The CloudEvents JSON member names and constant values, encoded once.</summary>
internal static class JsonNames
{
    public static readonly JsonEncodedText Id = JsonEncodedText.Encode("id");
    public static readonly JsonEncodedText Source = JsonEncodedText.Encode("source");
    public static readonly JsonEncodedText SpecVersion = JsonEncodedText.Encode("specversion");
    public static readonly JsonEncodedText Type = JsonEncodedText.Encode("type");
    public static readonly JsonEncodedText Time = JsonEncodedText.Encode("time");
    public static readonly JsonEncodedText DataContentType = JsonEncodedText.Encode("datacontenttype");
    public static readonly JsonEncodedText DataSchema = JsonEncodedText.Encode("dataschema");
    public static readonly JsonEncodedText Subject = JsonEncodedText.Encode("subject");
    public static readonly JsonEncodedText Data = JsonEncodedText.Encode("data");
    public static readonly JsonEncodedText DataBase64 = JsonEncodedText.Encode("data_base64");

    /// <summary>The only <c>specversion</c> value written.</summary>
    public static readonly JsonEncodedText SpecVersion10 = JsonEncodedText.Encode(CloudEventRules.SpecVersion10);

    /// <summary>The most common <c>datacontenttype</c> value.</summary>
    public static readonly JsonEncodedText ApplicationJson = JsonEncodedText.Encode(ContentTypes.ApplicationJson);
}
