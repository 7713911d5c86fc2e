namespace Missive.Bus;

/// <summary>What the receiver of a message does once <see cref="MessageDispatcher"/> is done with it.</summary>
internal enum DispatchOutcome
{
    /// <summary>Handled, or not an envelope (an SNS control message): delete it.</summary>
    Done,

    /// <summary>Unreadable, without a handler, failed, or retried by choice: leave it to be received again.</summary>
    RetryLater,

    /// <summary>Move it to the dead-letter queue now.</summary>
    DeadLetter,

    /// <summary>Interrupted by shutdown: make it visible again at once.</summary>
    Release,
}
