namespace Missive.Lambda;

/// <summary>Settings of <see cref="SqsEventProcessor"/>.</summary>
public sealed class SqsEventProcessorOptions
{
    /// <summary>
    /// Gets or sets how many records of a batch are handled at once. Default 10. Records of one FIFO message group are
    /// always handled one after another, in order; different groups run side by side within this limit.
    /// </summary>
    public int MaxConcurrency { get; set; } = 10;

    /// <summary>
    /// Gets or sets the dead-letter queue (URL, or name on the in-memory broker) where a record whose handling ends with
    /// <see cref="Bus.HandleOutcome.DeadLetter"/> is sent (then reported handled, so Lambda deletes it). <c>null</c>
    /// (the default), or no transport registered: the record is reported failed and left to the queue's redrive policy.
    /// </summary>
    public string? DeadLetterQueue { get; set; }

    /// <summary>
    /// Gets how bodies that are not CloudEvents envelopes are read (S3 notifications, EventBridge events of AWS services,
    /// plain JSON): empty by default, every body must then be an envelope. See <see cref="Transport.NativeMessageRules"/>.
    /// </summary>
    public Transport.NativeMessageRules NativeMessages { get; } = new();
}
