using System;
using System.Text.Json;

namespace Missive.Serialization;

/// <summary>
/// Turns a failure of a payload codec (data that does not fit the registered message type, or a message serializer or
/// converter of the application that failed on it, whatever it threw) into <see cref="InvalidEnvelopeException"/>, the
/// same way for every format.
/// </summary>
internal static class PayloadErrors
{
    /// <summary>
    /// Tells whether an exception from a payload codec is the data's failure: anything but Missive's own typed error and
    /// the process-fatal exceptions, since the codec may run the application's serializer or converters, which may throw
    /// exceptions of their own types.
    /// </summary>
    public static bool IsDataError(Exception e) => e is not MissiveException && !ContentSafety.IsFatal(e);

    /// <summary>The error: it names the type of what was thrown, and its message only when content may be shown.</summary>
    public static InvalidEnvelopeException InvalidData(Exception e, long position, bool includeContent)
    {
        string path = e is JsonException { Path: { } p } ? $" (path {p})" : string.Empty;
        string detail = includeContent ? $": {e.GetType().Name}: {e.Message}" : $" ({e.GetType().Name})";
        return ThrowHelper.Create(InvalidEnvelopeReason.InvalidData, "The data does not fit the registered message type" + path + detail, position, CloudEventAttributeNames.Data, ContentSafety.Inner(e, includeContent));
    }

    /// <summary>
    /// The error for data that failed as a JSON reader read it (with something else than Missive's own error): a syntax
    /// or depth error found in the envelope (<paramref name="diagnosed"/>, which the data's failure may be), as it is,
    /// any reader's to report; else the data's own, marked as a failure of the data, which no reader reads again (the
    /// application's serializer or converter may have run).
    /// </summary>
    public static InvalidEnvelopeException JsonDataFailure(Exception e, InvalidEnvelopeException? diagnosed, long position, bool includeContent)
    {
        if (diagnosed is not null)
        {
            return diagnosed;
        }

        InvalidEnvelopeException failure = InvalidData(e, position, includeContent);
        failure.DataReadFailed = true;
        return failure;
    }
}
