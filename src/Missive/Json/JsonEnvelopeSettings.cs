using System.Text.Encodings.Web;
using System.Text.Json;
using Missive.Serialization;

namespace Missive.Json;

/// <summary>The writer and reader settings both JSON serializers derive from the options, so they write the same bytes.</summary>
internal static class JsonEnvelopeSettings
{
    /// <summary>The encoder for envelope strings: the one message data is written with.</summary>
    public static JavaScriptEncoder? GetEncoder(SerializationOptions options)
        => options.JsonSerializerOptions?.Encoder ?? options.JsonSerializerContext?.Options.Encoder;

    public static JsonWriterOptions GetWriterOptions(SerializationOptions options) => new()
    {
        Encoder = GetEncoder(options),
        Indented = false,
        MaxDepth = options.MaxJsonDepth,
    };

    public static JsonReaderOptions GetReaderOptions(SerializationOptions options) => new()
    {
        MaxDepth = options.MaxJsonDepth,
        CommentHandling = JsonCommentHandling.Disallow,
        AllowTrailingCommas = false,
    };
}
