using System.Text.Json;

namespace Missive.Json;

/// <summary>The CloudEvents JSON member names (from <see cref="CloudEventAttributeNames"/>) and constant values, encoded once.</summary>
internal static class JsonNames
{
    public static readonly JsonEncodedText Id = JsonEncodedText.Encode(CloudEventAttributeNames.Id);
    public static readonly JsonEncodedText Source = JsonEncodedText.Encode(CloudEventAttributeNames.Source);
    public static readonly JsonEncodedText SpecVersion = JsonEncodedText.Encode(CloudEventAttributeNames.SpecVersion);
    public static readonly JsonEncodedText Type = JsonEncodedText.Encode(CloudEventAttributeNames.Type);
    public static readonly JsonEncodedText Time = JsonEncodedText.Encode(CloudEventAttributeNames.Time);
    public static readonly JsonEncodedText DataContentType = JsonEncodedText.Encode(CloudEventAttributeNames.DataContentType);
    public static readonly JsonEncodedText DataSchema = JsonEncodedText.Encode(CloudEventAttributeNames.DataSchema);
    public static readonly JsonEncodedText Subject = JsonEncodedText.Encode(CloudEventAttributeNames.Subject);
    public static readonly JsonEncodedText Data = JsonEncodedText.Encode(CloudEventAttributeNames.Data);
    public static readonly JsonEncodedText DataBase64 = JsonEncodedText.Encode(CloudEventAttributeNames.DataBase64);

    /// <summary>The only <c>specversion</c> value written.</summary>
    public static readonly JsonEncodedText SpecVersion10 = JsonEncodedText.Encode(CloudEventRules.SpecVersion10);

    /// <summary>The most common <c>datacontenttype</c> value.</summary>
    public static readonly JsonEncodedText ApplicationJson = JsonEncodedText.Encode(ContentTypes.ApplicationJson);
}
