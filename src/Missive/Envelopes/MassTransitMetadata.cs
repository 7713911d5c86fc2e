using System;
using System.Collections.Generic;

namespace Missive;

/// <summary>
/// What a MassTransit envelope carried beside its message, when a message was read from one (a rule of
/// <c>NativeMessageRules.WhenMassTransit</c>). Its <c>messageId</c>, <c>sentTime</c> and <c>sourceAddress</c> are also the
/// envelope's <see cref="MessageEnvelope.Id"/>, <see cref="MessageEnvelope.Time"/> and <see cref="MessageEnvelope.Source"/>.
/// </summary>
public sealed class MassTransitMetadata
{
    /// <summary>Gets the envelope's <c>messageId</c>, or <c>null</c> when it had none.</summary>
    public Guid? MessageId { get; init; }

    /// <summary>Gets the envelope's <c>requestId</c> (set on requests), or <c>null</c>.</summary>
    public Guid? RequestId { get; init; }

    /// <summary>Gets the envelope's <c>correlationId</c>, or <c>null</c>.</summary>
    public Guid? CorrelationId { get; init; }

    /// <summary>Gets the envelope's <c>conversationId</c>, or <c>null</c>.</summary>
    public Guid? ConversationId { get; init; }

    /// <summary>Gets the envelope's <c>initiatorId</c> (the id of the message that caused this one), or <c>null</c>.</summary>
    public Guid? InitiatorId { get; init; }

    /// <summary>Gets the envelope's <c>sourceAddress</c> (e.g. <c>amazonsqs://eu-west-1/orders</c>), or <c>null</c>.</summary>
    public string? SourceAddress { get; init; }

    /// <summary>Gets the envelope's <c>destinationAddress</c>, or <c>null</c>.</summary>
    public string? DestinationAddress { get; init; }

    /// <summary>Gets the envelope's <c>responseAddress</c>, or <c>null</c>.</summary>
    public string? ResponseAddress { get; init; }

    /// <summary>Gets the envelope's <c>faultAddress</c>, or <c>null</c>.</summary>
    public string? FaultAddress { get; init; }

    /// <summary>Gets the envelope's <c>messageType</c>: the message URNs (<c>urn:message:Namespace:Type</c>), most specific first.</summary>
    public required IReadOnlyList<string> MessageTypes { get; init; }

    /// <summary>Gets the envelope's <c>sentTime</c>, or <c>null</c>.</summary>
    public DateTimeOffset? SentTime { get; init; }

    /// <summary>Gets the envelope's <c>expirationTime</c>, or <c>null</c>.</summary>
    public DateTimeOffset? ExpirationTime { get; init; }

    /// <summary>
    /// Gets the envelope's <c>headers</c>: a string header as its text, any other value (a number, <c>true</c>, an object)
    /// as its JSON; a <c>null</c> header is left out.
    /// </summary>
    public required IReadOnlyDictionary<string, string> Headers { get; init; }
}
