using System;
using System.Text;
using System.Text.Json;

namespace Missive.Serialization;

/// <summary>
/// Turns a failure of a payload codec (data that does not fit the registered message type) into
/// <see cref="InvalidEnvelopeException"/>, the same way for every format.
/// </summary>
internal static class PayloadErrors
{
    /// <summary>Tells whether an exception from a payload codec was caused by the input.</summary>
    public static bool IsDataError(Exception e)
        => e is JsonException or FormatException or OverflowException or DecoderFallbackException or InvalidOperationException or ArgumentException;

    public static InvalidEnvelopeException InvalidData(Exception e, long position, bool includeContent)
    {
        string path = e is JsonException { Path: { } p } ? $" (path {p})" : string.Empty;
        string detail = includeContent ? ": " + e.Message : string.Empty;
        return ThrowHelper.Create(InvalidEnvelopeReason.InvalidData, "The data does not fit the registered message type" + path + detail, position, CloudEventAttributeNames.Data, includeContent ? e : null);
    }
}
