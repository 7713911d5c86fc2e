using System;
using System.Threading;
using Missive.Transport;

namespace Missive.Bus;

/// <summary>One received message on its way through the handling middleware to its handler.</summary>
public sealed class HandleContext
{
    private MessageEnvelope _envelope;

    internal HandleContext(MessageEnvelope envelope, SqsMessage message, string queue, IServiceProvider services, CancellationToken cancellationToken)
    {
        _envelope = envelope;
        Message = message;
        Queue = queue;
        Services = services;
        CancellationToken = cancellationToken;
    }

    /// <summary>Gets or sets the envelope the handler receives. A middleware may replace it with another envelope of the same message type.</summary>
    /// <exception cref="ArgumentException">The new envelope's message type differs.</exception>
    public MessageEnvelope Envelope
    {
        get => _envelope;
        set
        {
            ArgumentNullException.ThrowIfNull(value);
            if (value.MessageType != _envelope.MessageType)
            {
                throw new ArgumentException($"The envelope must stay of message type {_envelope.MessageType.FullName}; its handler is chosen by it.", nameof(value));
            }

            _envelope = value;
        }
    }

    /// <summary>Gets the message as it was received (id, receipt handle, attributes, body).</summary>
    public SqsMessage Message { get; }

    /// <summary>Gets the queue it was received from (the Lambda event source ARN for the Lambda processor).</summary>
    public string Queue { get; }

    /// <summary>Gets the message's DI scope, from which the middleware and the handler are resolved.</summary>
    public IServiceProvider Services { get; }

    /// <summary>Gets or sets the token the rest of the pipeline and the handler receive; a middleware may replace it with a linked one (a timeout).</summary>
    public CancellationToken CancellationToken { get; set; }

    /// <summary>
    /// Gets or sets what becomes of the message when the pipeline returns without an exception: <see cref="HandleOutcome.Handled"/>
    /// unless a middleware or the fallback handler decides otherwise. An exception always leaves the message to be retried.
    /// </summary>
    public HandleOutcome Outcome { get; set; }

    /// <summary>Gets or sets whether the handler was called for this delivery (a middleware that calls its next step twice would call it again).</summary>
    internal bool HandlerCalled { get; set; }
}
