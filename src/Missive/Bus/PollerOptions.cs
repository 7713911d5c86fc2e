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

    /// <summary>Gets or sets the visibility timeout of received messages, or <c>null</c> for the queue's.</summary>
    public TimeSpan? VisibilityTimeout { get; set; }

    /// <summary>
    /// Gets or sets how long a message that failed stays invisible before it is received again, or
    /// <c>null</c> to leave it until its visibility timeout ends (the SQS default behaviour).
    /// </summary>
    public TimeSpan? RetryDelay { get; set; }
}
