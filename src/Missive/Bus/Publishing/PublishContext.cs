using System;
using System.Threading;

namespace Missive.Bus;

/// <summary>One message on its way through the publishing middleware to the transport.</summary>
public sealed class PublishContext
{
    internal PublishContext(MessageEnvelope envelope, string destination, PublishOptions options, IServiceProvider services, CancellationToken cancellationToken)
    {
        Envelope = envelope;
        Destination = destination;
        Options = options;
        Services = services;
        CancellationToken = cancellationToken;
    }

    /// <summary>Gets the envelope that is written; its attributes and extensions may be changed.</summary>
    public MessageEnvelope Envelope { get; }

    /// <summary>Gets the queue, topic or event bus the message goes to.</summary>
    public string Destination { get; }

    /// <summary>
    /// Gets the publish options, never null: the FIFO ids, subject and format are read after the middleware, so it may set them.
    /// (The type identifier and <see cref="PublishOptions.ConfigureEnvelope"/> were applied when the envelope was created.)
    /// </summary>
    public PublishOptions Options { get; }

    /// <summary>Gets the application's service provider (publishing middleware are singletons resolved from it).</summary>
    public IServiceProvider Services { get; }

    /// <summary>Gets or sets the token the rest of the pipeline and the transport receive.</summary>
    public CancellationToken CancellationToken { get; set; }

    /// <summary>Gets or sets the publisher that sends the envelope at the end of the pipeline.</summary>
    internal MessagePublisher? Publisher { get; init; }

    /// <summary>Gets or sets the transport the send at the end of the pipeline goes to (a batch's gatherer, in a batch publish).</summary>
    internal Transport.IMessageTransport? Transport { get; init; }

    /// <summary>Gets or sets the typed send at the end of the pipeline.</summary>
    internal Func<MessagePublisher, PublishContext, System.Threading.Tasks.Task<string>>? Send { get; init; }

    /// <summary>Gets the message id the transport returned, once the message is sent (the SQS or SNS message id, or the EventBridge event id).</summary>
    public string? MessageId { get; internal set; }

    /// <summary>Gets or sets whether the send at the end of the pipeline was called (a middleware that calls its next step twice would send again).</summary>
    internal bool Sent { get; set; }

    /// <summary>Gets or sets what the send at the end of the pipeline threw, so that it reaches the caller as itself when a middleware lets it through.</summary>
    internal System.Exception? SendFailure { get; set; }
}
