using System;
using System.Buffers;
using System.Text.Json;
using Missive.Lexing;

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
        if (ReadAll(ref reader, firstValueOnly: false, out InvalidEnvelopeException? utf8) is not { } e)
        {
            return utf8;
        }

        return Failure(e, JsonDepthLimit.WasExceeded(ref reader, options.MaxDepth, source), reader.BytesConsumed, options, includeContent);
    }

    /// <summary>
    /// As <see cref="Diagnose(in ReadOnlySequence{byte}, JsonReaderOptions, bool)"/>, over a span; with
    /// <paramref name="firstValueOnly"/>, only the value the input starts with (an envelope with more after it).
    /// </summary>
    public static InvalidEnvelopeException? Diagnose(ReadOnlySpan<byte> source, JsonReaderOptions options, bool includeContent, bool firstValueOnly)
    {
        var reader = new Utf8JsonReader(source, options);
        if (ReadAll(ref reader, firstValueOnly, out InvalidEnvelopeException? utf8) is not { } e)
        {
            return utf8;
        }

        return Failure(e, JsonDepthLimit.WasExceeded(ref reader, options.MaxDepth, source), reader.BytesConsumed, options, includeContent);
    }

    /// <summary>Reads to the end (or of the first value), checking strings: returns the reader's failure, or gives the first string of invalid UTF-8.</summary>
    private static JsonException? ReadAll(ref Utf8JsonReader reader, bool firstValueOnly, out InvalidEnvelopeException? utf8)
    {
        utf8 = null;
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
                        utf8 = ThrowHelper.Create(InvalidEnvelopeReason.Malformed, "A JSON string holds invalid UTF-8", reader.TokenStartIndex);
                        return null;
                    }
                }

                if (firstValueOnly && reader.CurrentDepth == 0 && reader.TokenType is not (JsonTokenType.StartObject or JsonTokenType.StartArray or JsonTokenType.PropertyName))
                {
                    return null;
                }
            }

            return null;
        }
        catch (JsonException e)
        {
            return e;
        }
    }

    private static InvalidEnvelopeException Failure(JsonException e, bool depthExceeded, long position, JsonReaderOptions options, bool includeContent)
        => depthExceeded
            ? ThrowHelper.Create(InvalidEnvelopeReason.LimitExceeded, $"The JSON is nested deeper than {options.MaxDepth} levels (SerializationOptions.MaxJsonDepth)", position, inner: includeContent ? e : null)
            : FromJsonException(e, includeContent);

    public static InvalidEnvelopeException FromJsonException(JsonException e, bool includeContent)
    {
        long position = e.BytePositionInLine ?? -1;
        string where = e.LineNumber is > 0 ? $" on line {e.LineNumber + 1}" : string.Empty;
        string detail = includeContent ? ": " + e.Message : string.Empty;
        return ThrowHelper.Create(InvalidEnvelopeReason.Malformed, "The input is not well-formed JSON" + where + detail, position, inner: includeContent ? e : null);
    }
}
