using System;

namespace Missive.Bus;

/// <summary>Settings of a queue poller.</summary>
public sealed class PollerOptions
{
    /// <summary>Gets or sets how many messages are handled at once. Default 10.</summary>
    public int MaxConcurrency { get; set; } = 10;

    /// <summary>Gets or sets how many messages one receive asks for (1 to 10). Default 10.</summary>
    public int MaxMessagesPerReceive { get; set; } = 10;

    /// <summary>Gets or sets how long a receive waits for messages (long polling). Default 20 seconds.</summary>
    public TimeSpan WaitTime { get; set; } = TimeSpan.FromSeconds(20);

    /// <summary>
    /// Gets or sets the visibility timeout asked for on every receive (at least 2 seconds). While a message is held (its
    /// handler runs or it waits its turn), the pump's heartbeat, ticking every eighth of the timeout, extends it by a
    /// timeout once three quarters of it or less are left, so a handler may take longer than the timeout without its
    /// message being delivered twice. Default 30 seconds (the SQS default).
    /// </summary>
    public TimeSpan VisibilityTimeout { get; set; } = TimeSpan.FromSeconds(30);

    /// <summary>Gets or sets the wait after a failed receive; it doubles with each further failure in a row, up to <see cref="MaxReceiveErrorDelay"/>. Default 1 second.</summary>
    public TimeSpan ReceiveErrorDelay { get; set; } = TimeSpan.FromSeconds(1);

    /// <summary>Gets or sets the longest wait between failed receives. Default 30 seconds.</summary>
    public TimeSpan MaxReceiveErrorDelay { get; set; } = TimeSpan.FromSeconds(30);

    /// <summary>
    /// Gets or sets how long a message whose handler failed stays invisible before it is received again, or
    /// <c>null</c> to leave it until its visibility timeout ends (the SQS default behaviour).
    /// </summary>
    public TimeSpan? RetryDelay { get; set; }

    /// <summary>
    /// Gets or sets the dead-letter queue (its name, or on AWS its name or URL: a name is resolved once with GetQueueUrl, or from AwsTransportOptions.QueueUrls) where the bus moves a message whose
    /// handling ends with <see cref="HandleOutcome.DeadLetter"/>: sent there with its body and attributes, then deleted.
    /// <c>null</c> (the default): such a message is left to the queue's own redrive policy and retried until it moves.
    /// </summary>
    public string? DeadLetterQueue { get; set; }

    /// <summary>
    /// Gets how bodies that are not CloudEvents envelopes are read (S3 notifications, EventBridge events of AWS services,
    /// plain JSON): empty by default, every body must then be an envelope. See <see cref="Transport.NativeMessageRules"/>.
    /// </summary>
    public Transport.NativeMessageRules NativeMessages { get; } = new();
}
