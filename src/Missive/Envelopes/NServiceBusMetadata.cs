using System;
using System.Collections.Generic;

namespace Missive;

/// <summary>
/// What an NServiceBus endpoint sent beside a message, when a message was read as one (a rule of
/// <c>NativeMessageRules.WhenNServiceBus</c>): its headers, and the ones that matter by name. Its message id, time
/// sent and originating endpoint are also the envelope's <see cref="MessageEnvelope.Id"/>,
/// <see cref="MessageEnvelope.Time"/> and <see cref="MessageEnvelope.Source"/>.
/// </summary>
public sealed class NServiceBusMetadata
{
    /// <summary>Gets the message id (<c>NServiceBus.MessageId</c>, from the attribute of that name, else the header), or <c>null</c>.</summary>
    public string? MessageId { get; init; }

    /// <summary>Gets the message types (<c>NServiceBus.EnclosedMessageTypes</c>, or the <c>MessageTypeFullName</c> attribute), as sent: most specific first, assembly-qualified or not.</summary>
    public required IReadOnlyList<string> EnclosedMessageTypes { get; init; }

    /// <summary>Gets <c>NServiceBus.ConversationId</c>, or <c>null</c>.</summary>
    public string? ConversationId { get; init; }

    /// <summary>Gets <c>NServiceBus.CorrelationId</c>, or <c>null</c>.</summary>
    public string? CorrelationId { get; init; }

    /// <summary>Gets <c>NServiceBus.MessageIntent</c> (<c>Send</c>, <c>Publish</c>, <c>Reply</c>, …), or <c>null</c>.</summary>
    public string? MessageIntent { get; init; }

    /// <summary>Gets <c>NServiceBus.TimeSent</c>, or <c>null</c> when absent.</summary>
    public DateTimeOffset? TimeSent { get; init; }

    /// <summary>Gets <c>NServiceBus.ReplyToAddress</c>, or <c>null</c>.</summary>
    public string? ReplyToAddress { get; init; }

    /// <summary>Gets <c>NServiceBus.OriginatingEndpoint</c>, or <c>null</c>.</summary>
    public string? OriginatingEndpoint { get; init; }

    /// <summary>Gets every header the message carried (empty for a native message with only <c>MessageTypeFullName</c>).</summary>
    public required IReadOnlyDictionary<string, string> Headers { get; init; }
}
