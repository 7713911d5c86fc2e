using System;

namespace Missive.InMemory;

/// <summary>Settings of an in-memory queue, as SQS queue attributes.</summary>
public sealed class InMemoryQueueOptions
{
    /// <summary>Gets or sets how long a received message stays invisible. Default 30 seconds (the SQS default).</summary>
    public TimeSpan VisibilityTimeout { get; set; } = TimeSpan.FromSeconds(30);

    /// <summary>Gets or sets the queue a message moves to after <see cref="MaxReceiveCount"/> receives, or <c>null</c>.</summary>
    public string? DeadLetterQueue { get; set; }

    /// <summary>Gets or sets how many receives a message gets before it moves to the dead-letter queue. Default 5.</summary>
    public int MaxReceiveCount { get; set; } = 5;

    /// <summary>Gets or sets the largest message, body and attributes together (1,024 to 1,048,576 bytes). Default 1 MiB.</summary>
    public int MaxMessageSize { get; set; } = Transport.SqsRules.MaxMessageSize;

    /// <summary>Gets or sets whether the queue is FIFO; a FIFO queue's name must end in <c>.fifo</c>.</summary>
    public bool Fifo { get; set; }

    /// <summary>Gets or sets whether a FIFO queue deduplicates by a SHA-256 of the body when no deduplication id is given.</summary>
    public bool ContentBasedDeduplication { get; set; }
}
