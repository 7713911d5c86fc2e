using System;
using Microsoft.Extensions.Logging;

namespace Missive.Aws.Protocol;

/// <summary>Missive.Aws's log messages (event ids 3000-3099). None of them carries message content or a credential.</summary>
internal static partial class AwsLog
{
    [LoggerMessage(EventId = 3000, Level = LogLevel.Warning, Message = "{Service} at {Endpoint} refused a request as signed at the wrong time ({ErrorCode}): this host's clock is {Offset} off the service's. Requests are now signed with the service's time; set the host's clock right (NTP).")]
    public static partial void ClockCorrected(ILogger logger, string service, Uri endpoint, TimeSpan offset, string errorCode);

    [LoggerMessage(EventId = 3001, Level = LogLevel.Warning, Message = "Message {MessageId} received from queue {Queue} was left in the queue unread: {Problem}. It comes back after its visibility timeout, and the queue's redrive policy dead-letters it if it never reads right; the other messages of the receive are handled.")]
    public static partial void ReceivedMessageSkipped(ILogger logger, string messageId, string queue, string problem);
}
