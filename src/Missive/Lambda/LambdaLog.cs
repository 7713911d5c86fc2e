using Microsoft.Extensions.Logging;

namespace Missive.Lambda;

/// <summary>The Lambda processor's log messages (event ids 2100-2199). None of them carries message content.</summary>
internal static partial class LambdaLog
{
    [LoggerMessage(EventId = 2100, Level = LogLevel.Warning, Message = "Record {MessageId} of the SQS event from {Queue} is not a readable SQS record ({Problem}); it is reported failed.")]
    public static partial void RecordUnreadable(ILogger logger, string messageId, string queue, string problem);
}
