using System;
using System.Text;
using System.Text.Json;

namespace Missive.Json;

/// <summary>Turns System.Text.Json failures into <see cref="InvalidEnvelopeException"/> without leaking content.</summary>
internal static class JsonEnvelopeErrors
{
    /// <summary>The start of System.Text.Json's own message when the depth limit is hit; the message holds no content.</summary>
    private const string DepthMessageMarker = "maximum allowed depth";

    public static InvalidEnvelopeException FromJsonException(JsonException e, bool includeContent)
    {
        long position = e.BytePositionInLine ?? -1;
        string where = e.LineNumber is > 0 ? $" on line {e.LineNumber + 1}" : string.Empty;
        if (e.Message.Contains(DepthMessageMarker, StringComparison.Ordinal))
        {
            return ThrowHelper.Create(InvalidEnvelopeReason.LimitExceeded, "The JSON is nested deeper than SerializationOptions.MaxJsonDepth allows" + where, position, inner: includeContent ? e : null);
        }

        string detail = includeContent ? ": " + e.Message : string.Empty;
        return ThrowHelper.Create(InvalidEnvelopeReason.Malformed, "The input is not well-formed JSON" + where + detail, position, inner: includeContent ? e : null);
    }

    /// <summary>Tells whether an exception from a payload codec was caused by the input.</summary>
    public static bool IsDataError(Exception e)
        => e is JsonException or FormatException or OverflowException or DecoderFallbackException or InvalidOperationException or ArgumentException;

    public static InvalidEnvelopeException InvalidData(Exception e, long position, bool includeContent)
    {
        if (e is JsonException json && json.Message.Contains(DepthMessageMarker, StringComparison.Ordinal))
        {
            return ThrowHelper.Create(InvalidEnvelopeReason.LimitExceeded, "The data is nested deeper than SerializationOptions.MaxJsonDepth allows", position, "data", includeContent ? e : null);
        }

        string path = e is JsonException { Path: { } p } ? $" (path {p})" : string.Empty;
        string detail = includeContent ? ": " + e.Message : string.Empty;
        return ThrowHelper.Create(InvalidEnvelopeReason.InvalidData, "The data does not fit the registered message type" + path + detail, position, "data", includeContent ? e : null);
    }
}
