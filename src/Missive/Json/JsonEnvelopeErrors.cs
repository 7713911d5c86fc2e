using System;
using System.Buffers;
using System.Text;
using System.Text.Json;
using Missive.Serialization;

namespace Missive.Json;

/// <summary>Turns System.Text.Json failures into <see cref="InvalidEnvelopeException"/> without leaking content.</summary>
internal static class JsonEnvelopeErrors
{
    /// <summary>
    /// Re-reads the whole input on an error path to say precisely what is wrong with it: nesting
    /// beyond the depth limit, malformed JSON, or invalid UTF-8 in a string. Returns <c>null</c>
    /// when the input is well-formed, so the failure lies in what the data means.
    /// </summary>
    public static InvalidEnvelopeException? Diagnose(in ReadOnlySequence<byte> source, JsonReaderOptions options, bool includeContent)
    {
        var reader = new Utf8JsonReader(source, options);
        try
        {
            while (reader.Read())
            {
                if (reader.TokenType is JsonTokenType.String or JsonTokenType.PropertyName)
                {
                    try
                    {
                        _ = reader.GetString();
                    }
                    catch (InvalidOperationException)
                    {
                        return ThrowHelper.Create(InvalidEnvelopeReason.Malformed, "A JSON string holds invalid UTF-8", reader.TokenStartIndex);
                    }
                }
            }

            return null;
        }
        catch (JsonException e)
        {
            if (JsonDepthLimit.WasExceeded(ref reader, options.MaxDepth, source))
            {
                return ThrowHelper.Create(InvalidEnvelopeReason.LimitExceeded, $"The JSON is nested deeper than {options.MaxDepth} levels (SerializationOptions.MaxJsonDepth)", reader.BytesConsumed, inner: includeContent ? e : null);
            }

            return FromJsonException(e, includeContent);
        }
    }

    public static InvalidEnvelopeException FromJsonException(JsonException e, bool includeContent)
    {
        long position = e.BytePositionInLine ?? -1;
        string where = e.LineNumber is > 0 ? $" on line {e.LineNumber + 1}" : string.Empty;
        string detail = includeContent ? ": " + e.Message : string.Empty;
        return ThrowHelper.Create(InvalidEnvelopeReason.Malformed, "The input is not well-formed JSON" + where + detail, position, inner: includeContent ? e : null);
    }
}
