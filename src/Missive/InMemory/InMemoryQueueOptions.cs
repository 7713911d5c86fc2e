using System;

namespace Missive.InMemory;

/// <summary>
/// Settings of an in-memory queue, as SQS queue attributes. They are set in the <c>configure</c> callback of
/// <see cref="InMemoryBroker.CreateQueue"/> and fixed when the queue is created (the redrive settings are checked
/// then): setting one afterwards throws <see cref="InvalidOperationException"/>.
/// </summary>
public sealed class InMemoryQueueOptions
{
    private TimeSpan _visibilityTimeout = TimeSpan.FromSeconds(30);
    private string? _deadLetterQueue;
    private int _maxReceiveCount = 5;
    private int _maxMessageSize = Transport.SqsRules.MaxMessageSize;
    private bool _fifo;
    private bool _contentBasedDeduplication;
    private bool _frozen;

    /// <summary>Gets or sets how long a received message stays invisible. Default 30 seconds (the SQS default).</summary>
    /// <exception cref="InvalidOperationException">Set after the queue was created.</exception>
    public TimeSpan VisibilityTimeout
    {
        get => _visibilityTimeout;
        set => _visibilityTimeout = Settable(value);
    }

    /// <summary>Gets or sets the queue a message moves to after <see cref="MaxReceiveCount"/> receives, or <c>null</c>.</summary>
    /// <exception cref="InvalidOperationException">Set after the queue was created.</exception>
    public string? DeadLetterQueue
    {
        get => _deadLetterQueue;
        set => _deadLetterQueue = Settable(value);
    }

    /// <summary>Gets or sets how many receives a message gets before it moves to the dead-letter queue. Default 5.</summary>
    /// <exception cref="InvalidOperationException">Set after the queue was created.</exception>
    public int MaxReceiveCount
    {
        get => _maxReceiveCount;
        set => _maxReceiveCount = Settable(value);
    }

    /// <summary>Gets or sets the largest message, body and attributes together (1,024 to 1,048,576 bytes). Default 1 MiB.</summary>
    /// <exception cref="InvalidOperationException">Set after the queue was created.</exception>
    public int MaxMessageSize
    {
        get => _maxMessageSize;
        set => _maxMessageSize = Settable(value);
    }

    /// <summary>Gets or sets whether the queue is FIFO; a FIFO queue's name must end in <c>.fifo</c>.</summary>
    /// <exception cref="InvalidOperationException">Set after the queue was created.</exception>
    public bool Fifo
    {
        get => _fifo;
        set => _fifo = Settable(value);
    }

    /// <summary>Gets or sets whether a FIFO queue deduplicates by a SHA-256 of the body when no deduplication id is given.</summary>
    /// <exception cref="InvalidOperationException">Set after the queue was created.</exception>
    public bool ContentBasedDeduplication
    {
        get => _contentBasedDeduplication;
        set => _contentBasedDeduplication = Settable(value);
    }

    /// <summary>Fixes the settings: the queue is created with them.</summary>
    internal void Freeze() => _frozen = true;

    private T Settable<T>(T value) => _frozen
        ? throw new InvalidOperationException("An in-memory queue's options are fixed when the queue is created (its redrive settings are checked then); set them in the configure callback of InMemoryBroker.CreateQueue.")
        : value;
}
