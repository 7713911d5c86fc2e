using System;
using System.Collections.Generic;

namespace Missive.Bus;

/// <summary>The routes, handlers, pollers and middleware the builder collected; fixed once the container is built.</summary>
internal sealed class BusConfiguration
{
    public Dictionary<Type, MessageRoute> Routes { get; } = [];

    /// <summary>Gets the message types published without an envelope (<c>PublishWithoutEnvelope</c>).</summary>
    public HashSet<Type> PublishedWithoutEnvelope { get; } = [];

    /// <summary>Gets the message types published in MassTransit's envelope, with the message URN each is published under (<c>PublishAsMassTransit</c>).</summary>
    public Dictionary<Type, string> PublishedAsMassTransit { get; } = [];

    /// <summary>Gets the message types published as NServiceBus messages, with the full type name each is published under (<c>PublishAsNServiceBus</c>).</summary>
    public Dictionary<Type, string> PublishedAsNServiceBus { get; } = [];

    /// <summary>Gets the last step of the handling pipeline (the handler) of each message type that has one.</summary>
    public Dictionary<Type, HandleStep> Handlers { get; } = [];

    /// <summary>Gets or sets whether an <see cref="IFallbackMessageHandler"/> receives the messages of unregistered types.</summary>
    public bool HasFallbackHandler { get; set; }

    public List<(string Queue, PollerOptions Options)> Pollers { get; } = [];

    /// <summary>Gets the handling middleware types, outermost first.</summary>
    public List<Type> HandleMiddleware { get; } = [];

    /// <summary>Gets the publishing middleware types, outermost first.</summary>
    public List<Type> PublishMiddleware { get; } = [];

    /// <summary>Gets the FIFO id selectors by message type.</summary>
    public Dictionary<Type, FifoIdSelector> FifoIds { get; } = [];

    /// <summary>Gets the problems the builder found, reported with every other at startup (<see cref="MessageBusValidator"/>).</summary>
    public List<string> Problems { get; } = [];

    /// <summary>Gets or sets how long concurrent publishes to one destination are gathered into one batch call, or <c>null</c> (each publish is its own call).</summary>
    public TimeSpan? CoalescingWindow { get; set; }

    /// <summary>Gets or sets how large bodies are stored aside (<c>UsePayloadOffload</c>), or <c>null</c> when they are not.</summary>
    public Offload.PayloadOffloadOptions? PayloadOffload { get; set; }
}
