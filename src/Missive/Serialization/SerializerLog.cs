using Microsoft.Extensions.Logging;

namespace Missive.Serialization;

/// <summary>The serializers' log messages (event ids 1000-1099). None of them carries message content unless content logging is on.</summary>
internal static partial class SerializerLog
{
    [LoggerMessage(EventId = 1000, Level = LogLevel.Information, Message = "Envelope serializer {Serializer} ({ContentType}) created.")]
    public static partial void SerializerCreated(ILogger logger, string serializer, string contentType);

    /// <summary>Logs a rejected input, naming the byte where the problem is only when it is known.</summary>
    public static void EnvelopeRejected(ILogger logger, string contentType, long size, InvalidEnvelopeReason reason, long position)
    {
        if (position >= 0)
        {
            EnvelopeRejectedAt(logger, contentType, size, reason, position);
        }
        else
        {
            EnvelopeRejectedSomewhere(logger, contentType, size, reason);
        }
    }

#pragma warning disable SYSLIB1006 // one event, two wordings: with the position where it is known, without it where it is not
    [LoggerMessage(EventId = 1001, Level = LogLevel.Debug, Message = "Rejected a {Size}-byte {ContentType} input: {Reason} at byte {Position}.")]
    private static partial void EnvelopeRejectedAt(ILogger logger, string contentType, long size, InvalidEnvelopeReason reason, long position);

    [LoggerMessage(EventId = 1001, Level = LogLevel.Debug, Message = "Rejected a {Size}-byte {ContentType} input: {Reason}.")]
    private static partial void EnvelopeRejectedSomewhere(ILogger logger, string contentType, long size, InvalidEnvelopeReason reason);
#pragma warning restore SYSLIB1006

    [LoggerMessage(EventId = 1002, Level = LogLevel.Trace, Message = "Rejected input content: {Content}")]
    public static partial void RejectedContent(ILogger logger, string content);
}
