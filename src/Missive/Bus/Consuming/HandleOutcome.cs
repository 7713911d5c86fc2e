namespace Missive.Bus;

/// <summary>What becomes of a received message once its handling ends without an exception.</summary>
public enum HandleOutcome
{
    /// <summary>It was handled: it is deleted from the queue.</summary>
    Handled = 0,

    /// <summary>It is left in the queue to be received again (after <see cref="PollerOptions.RetryDelay"/>, or its visibility timeout), and finally dead-lettered by the queue's redrive policy.</summary>
    RetryLater = 1,

    /// <summary>It is moved to the dead-letter queue now (<see cref="PollerOptions.DeadLetterQueue"/>): sent there as it was received, then deleted.</summary>
    DeadLetter = 2,
}
