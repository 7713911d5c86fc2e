using Microsoft.Extensions.Logging;

namespace Missive.Offload;

/// <summary>The payload offload's log messages (event ids 2200-2299). None of them carries message content.</summary>
internal static partial class OffloadLog
{
    [LoggerMessage(EventId = 2200, Level = LogLevel.Warning, Message = "The payload at {Location} of a deleted message could not be deleted ({ErrorCode}); it stays in the bucket for its lifecycle rule.")]
    public static partial void PayloadNotDeleted(ILogger logger, string location, string? errorCode);
}
