using Microsoft.Extensions.Logging;

namespace Missive.Serialization;

/// <summary>The serializers' log messages (event ids 1000-1099). None of them carries message content unless content logging is on.</summary>
internal static partial class SerializerLog
{
    [LoggerMessage(EventId = 1000, Level = LogLevel.Information, Message = "Envelope serializer {Serializer} ({ContentType}) is in use.")]
    public static partial void SerializerCreated(ILogger logger, string serializer, string contentType);

    [LoggerMessage(EventId = 1001, Level = LogLevel.Debug, Message = "Rejected a {Size}-byte {ContentType} input: {Reason} at byte {Position}.")]
    public static partial void EnvelopeRejected(ILogger logger, string contentType, long size, InvalidEnvelopeReason reason, long position);

    [LoggerMessage(EventId = 1002, Level = LogLevel.Trace, Message = "Rejected input content: {Content}")]
    public static partial void RejectedContent(ILogger logger, string content);
}
