using System;
using Microsoft.Extensions.Logging;

namespace Missive.Bus;

/// <summary>The message pump's log messages (event ids 2000-2099). None of them carries message content.</summary>
internal static partial class BusLog
{
    [LoggerMessage(EventId = 2000, Level = LogLevel.Information, Message = "Polling queue {Queue}, handling at most {MaxConcurrency} at a time.")]
    public static partial void PollerStarted(ILogger logger, string queue, int maxConcurrency);

    /// <summary>Logs an unreadable message, naming the byte where the problem is only when it is known.</summary>
    /// <summary>
    /// A message that cannot be read, with what is wrong with it (the exception's own text, which holds no content unless
    /// content logging is on). The exception goes with it only when it has a cause to show (content logging gives it
    /// one): a stack trace of the reader says nothing about a message's content, and would repeat at every receive.
    /// </summary>
    public static void EnvelopeUnreadable(ILogger logger, string messageId, string queue, int receiveCount, InvalidEnvelopeException exception)
    {
        Exception? shown = exception.InnerException is null ? null : exception;
        if (exception.Position >= 0)
        {
            EnvelopeUnreadableAt(logger, messageId, queue, receiveCount, exception.Reason, exception.Position, exception.Message, shown);
        }
        else
        {
            EnvelopeUnreadableSomewhere(logger, messageId, queue, receiveCount, exception.Reason, exception.Message, shown);
        }
    }

#pragma warning disable SYSLIB1006 // one event, two wordings: with the position where it is known, without it where it is not
    [LoggerMessage(EventId = 2001, Level = LogLevel.Warning, Message = "Message {MessageId} from queue {Queue} (receive {ReceiveCount}) could not be read: {Reason} at byte {Position}: {Detail} It stays in the queue, to be retried and finally dead-lettered.")]
    private static partial void EnvelopeUnreadableAt(ILogger logger, string messageId, string queue, int receiveCount, InvalidEnvelopeReason reason, long position, string detail, Exception? exception);

    [LoggerMessage(EventId = 2001, Level = LogLevel.Warning, Message = "Message {MessageId} from queue {Queue} (receive {ReceiveCount}) could not be read: {Reason}: {Detail} It stays in the queue, to be retried and finally dead-lettered.")]
    private static partial void EnvelopeUnreadableSomewhere(ILogger logger, string messageId, string queue, int receiveCount, InvalidEnvelopeReason reason, string detail, Exception? exception);
#pragma warning restore SYSLIB1006

    [LoggerMessage(EventId = 2002, Level = LogLevel.Warning, Message = "The handler of message {MessageId} ({MessageType}) from queue {Queue} failed on receive {ReceiveCount}. The message stays in the queue, to be retried and finally dead-lettered.")]
    public static partial void HandlerFailed(ILogger logger, string messageId, string messageType, string queue, int receiveCount, Exception exception);

    [LoggerMessage(EventId = 2003, Level = LogLevel.Error, Message = "No handler is registered for {MessageType} (message {MessageId} from queue {Queue}); the message stays in the queue.")]
    public static partial void NoHandler(ILogger logger, string messageType, string messageId, string queue);

    [LoggerMessage(EventId = 2004, Level = LogLevel.Information, Message = "Message {MessageId} from queue {Queue} is {Control}, not a message to handle; it is deleted.")]
    public static partial void ControlMessageSkipped(ILogger logger, string messageId, string queue, string control);

    [LoggerMessage(EventId = 2005, Level = LogLevel.Information, Message = "Handling of message {MessageId} from queue {Queue} was cancelled by shutdown; the message is released for redelivery.")]
    public static partial void ReleasedOnShutdown(ILogger logger, string messageId, string queue);

    [LoggerMessage(EventId = 2006, Level = LogLevel.Warning, Message = "Message {MessageId} from queue {Queue} was handled, but deleting it failed ({ErrorCode}: {Reason}); it may be handled again.")]
    public static partial void DeleteFailed(ILogger logger, string messageId, string queue, string errorCode, string? reason);

    [LoggerMessage(EventId = 2007, Level = LogLevel.Warning, Message = "Receiving from queue {Queue} failed; retrying in {Delay}.")]
    public static partial void ReceiveFailed(ILogger logger, string queue, TimeSpan delay, Exception exception);

    [LoggerMessage(EventId = 2007, Level = LogLevel.Warning, Message = "Receiving from queue {Queue} failed again ({Failures} in a row, {ErrorCode}); retrying in {Delay}.")]
    public static partial void ReceiveFailedAgain(ILogger logger, string queue, int failures, string errorCode, TimeSpan delay);

    [LoggerMessage(EventId = 2028, Level = LogLevel.Error, Message = "Receiving from queue {Queue} has failed {Failures} times in a row ({ErrorCode}): {Failure} The poller goes on retrying, every {Delay} at most.")]
    public static partial void ReceiveFailingRepeatedly(ILogger logger, string queue, int failures, string errorCode, string failure, TimeSpan delay);

    [LoggerMessage(EventId = 2008, Level = LogLevel.Error, Message = "Processing message {MessageId} from queue {Queue} failed outside its handler; the message stays in the queue and will be received again.")]
    public static partial void ProcessingFailed(ILogger logger, string messageId, string queue, Exception exception);

    [LoggerMessage(EventId = 2010, Level = LogLevel.Warning, Message = "The visibility of message {MessageId} in queue {Queue} could not be extended: its receipt is no longer current, and the message may be handled again while this handler still runs.")]
    public static partial void HeartbeatLost(ILogger logger, string messageId, string queue);

    [LoggerMessage(EventId = 2011, Level = LogLevel.Warning, Message = "Extending the visibility of messages {MessageIds} (count: {Count}) in queue {Queue} failed; it is tried again at the next tick, and a message may be handled again if its visibility ends first.")]
    public static partial void HeartbeatFailed(ILogger logger, int count, string messageIds, string queue, Exception exception);

    [LoggerMessage(EventId = 2027, Level = LogLevel.Warning, Message = "The visibility of message {MessageId} in queue {Queue} was not extended: the service failed its entry ({ErrorCode}). It stays due and is tried again at the next tick.")]
    public static partial void HeartbeatEntryFailed(ILogger logger, string messageId, string queue, string errorCode);

    /// <summary>The ids of <paramref name="messages"/>, comma-separated, for a log line about a batch call.</summary>
    public static string IdsOf(System.Collections.Generic.IReadOnlyList<Transport.SqsMessage> messages)
    {
        var ids = new string[messages.Count];
        for (int i = 0; i < ids.Length; i++)
        {
            ids[i] = messages[i].MessageId;
        }

        return string.Join(",", ids);
    }

    [LoggerMessage(EventId = 2012, Level = LogLevel.Warning, Message = "The host stopped waiting for {Count} handlers of queue {Queue}; their messages were made visible again and may be handled twice.")]
    public static partial void AbandonedOnStop(ILogger logger, int count, string queue);

    [LoggerMessage(EventId = 2013, Level = LogLevel.Information, Message = "Shutdown began while messages of queue {Queue} were received but not yet handled (count: {Count}); they were made visible again.")]
    public static partial void ReleasedUnstarted(ILogger logger, int count, string queue);

    [LoggerMessage(EventId = 2014, Level = LogLevel.Warning, Message = "Handlers are registered for {MessageTypes}, but no queue poller is: nothing will deliver messages to them. Add AddQueuePoller(\"queue\") for each queue they read.")]
    public static partial void HandlersWithoutPoller(ILogger logger, string messageTypes);

    [LoggerMessage(EventId = 2015, Level = LogLevel.Warning, Message = "Queue pollers are configured for {Queues}, but no generic host is running in this service provider: the pump runs as a hosted service, so the handlers will never run. Build the services with Host.CreateApplicationBuilder() (or another IHost) and start the host.")]
    public static partial void PollersWithoutHost(ILogger logger, string queues);

    [LoggerMessage(EventId = 2016, Level = LogLevel.Warning, Message = "Message {MessageId} from queue {Queue} (receive {ReceiveCount}) has the envelope type {MessageType}, which no AddMessageType registers. It stays in the queue, to be retried and finally dead-lettered; register the type, or add AddFallbackHandler to decide what becomes of such messages.")]
    public static partial void UnknownMessageType(ILogger logger, string messageId, string queue, int receiveCount, string? messageType, Exception exception);

    [LoggerMessage(EventId = 2017, Level = LogLevel.Information, Message = "Message {MessageId} ({MessageType}) from queue {Queue} (receive {ReceiveCount}) is left to be received again, as its handling decided.")]
    public static partial void RetryChosen(ILogger logger, string messageId, string messageType, string queue, int receiveCount);

    [LoggerMessage(EventId = 2018, Level = LogLevel.Warning, Message = "Message {MessageId} ({MessageType}) from queue {Queue} was moved to the dead-letter queue {DeadLetterQueue}, as its handling decided.")]
    public static partial void DeadLettered(ILogger logger, string messageId, string? messageType, string queue, string deadLetterQueue);

    [LoggerMessage(EventId = 2019, Level = LogLevel.Error, Message = "The handling of message {MessageId} from queue {Queue} chose to dead-letter it, but no dead-letter queue is configured (PollerOptions.DeadLetterQueue); it stays in the queue for its redrive policy.")]
    public static partial void DeadLetterWithoutQueue(ILogger logger, string messageId, string queue);

    [LoggerMessage(EventId = 2020, Level = LogLevel.Error, Message = "Moving message {MessageId} from queue {Queue} to the dead-letter queue {DeadLetterQueue} failed; it stays in the queue and will be received again.")]
    public static partial void DeadLetterFailed(ILogger logger, string messageId, string queue, string deadLetterQueue, Exception exception);

    [LoggerMessage(EventId = 2021, Level = LogLevel.Information, Message = "Message {MessageId} from FIFO queue {Queue} was not handled, so the {Count} later messages of its group from the same receive were not handled either: they were made visible again, to come back after it in order.")]
    public static partial void GroupReleased(ILogger logger, string messageId, string queue, int count);

    [LoggerMessage(EventId = 2023, Level = LogLevel.Error, Message = "Receiving from queue {Queue} fails with an error no retry clears ({ErrorCode}); the poller tries again every {Delay} until it is fixed, logging again only when this changes. What to check is in the error.")]
    public static partial void ReceiveFailingPersistently(ILogger logger, string queue, string errorCode, TimeSpan delay, Exception exception);

    [LoggerMessage(EventId = 2024, Level = LogLevel.Information, Message = "Receiving from queue {Queue} works again after {Failures} failed receives.")]
    public static partial void ReceiveRecovered(ILogger logger, string queue, int failures);

    [LoggerMessage(EventId = 2026, Level = LogLevel.Information, Message = "The message bus runs on {Transport}.")]
    public static partial void TransportInUse(ILogger logger, string transport);

    [LoggerMessage(EventId = 2025, Level = LogLevel.Debug, Message = "Message {MessageId} ({MessageType}) from queue {Queue} was handled in {DurationMs:0.0} ms; it is deleted.")]
    public static partial void MessageHandled(ILogger logger, string messageId, string messageType, string queue, double durationMs);

    [LoggerMessage(EventId = 2022, Level = LogLevel.Warning, Message = "Setting the visibility of messages {MessageIds} (count: {Count}) in queue {Queue} to {Visibility} (a release or a retry delay) failed; they come back when their current visibility ends.")]
    public static partial void VisibilityChangeFailed(ILogger logger, int count, string messageIds, string queue, TimeSpan visibility, Exception exception);
}
