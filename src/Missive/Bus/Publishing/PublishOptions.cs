using System;
using System.Collections.Generic;
using Missive.Serialization;

namespace Missive.Bus;

/// <summary>Per-message publish settings.</summary>
public sealed class PublishOptions
{
    /// <summary>Gets or sets the FIFO message group id (required for FIFO queues and topics).</summary>
    public string? MessageGroupId { get; set; }

    /// <summary>Gets or sets the FIFO deduplication id; <c>null</c> relies on content-based deduplication.</summary>
    public string? MessageDeduplicationId { get; set; }

    /// <summary>
    /// Gets or sets the SNS message's <c>Subject</c> (what an email subscription shows as its subject line), or <c>null</c>.
    /// Only SNS publishers send it; a queue or event bus has no such field, and a publish to one with it set is refused
    /// (<see cref="System.ArgumentException"/>, nothing sent). Not the envelope's CloudEvents <c>subject</c>:
    /// set that with <see cref="ConfigureEnvelope"/>.
    /// </summary>
    public string? SnsSubject { get; set; }

    /// <summary>Gets or sets the SNS subject: the former name of <see cref="SnsSubject"/>.</summary>
    [Obsolete("Use SnsSubject: this is the SNS message's Subject, not the envelope's CloudEvents subject. Subject will be removed in a later release.")]
    public string? Subject
    {
        get => SnsSubject;
        set => SnsSubject = value;
    }

    /// <summary>
    /// Gets or sets the envelope <c>type</c> for this message: one of the identifiers its .NET type is registered under
    /// (<c>AddMessageType</c> may be called several times for one type), or <c>null</c> for the first registered.
    /// </summary>
    public string? TypeIdentifier { get; set; }

    /// <summary>Gets or sets the envelope format for this message, or <c>null</c> for the publisher's (protobuf needs <c>EnableExperimentalFeatures()</c>).</summary>
    public EnvelopeFormat? Format { get; set; }

    /// <summary>Gets or sets a callback that adjusts the envelope before it is written (for example to add extension attributes).</summary>
    public Action<MessageEnvelope>? ConfigureEnvelope { get; set; }

    /// <summary>
    /// Gets or sets how long SQS keeps the message invisible after it is sent (SQS's <c>DelaySeconds</c>: up to 15
    /// minutes, rounded up to whole seconds; a FIFO queue takes none per message), or <c>null</c> for the queue's own
    /// delay. SQS queues only: a delay for a topic or an event bus is refused with <see cref="ArgumentException"/>.
    /// </summary>
    public TimeSpan? Delay { get; set; }

    /// <summary>
    /// Gets or sets message attributes sent with the message (SQS and SNS; at most 10 on a queue, with
    /// <c>contentType</c> counted when Missive adds it for a protobuf body), or <c>null</c> for none. Names follow the
    /// SQS rules and must not be <c>contentType</c>, which is Missive's; an event bus carries none. A name or count
    /// out of those rules is refused with <see cref="ArgumentException"/> before anything is sent. Handlers read them
    /// from <c>MessageEnvelope.SqsMetadata.MessageAttributes</c> (raw SQS messages; SNS puts them in its notification).
    /// </summary>
    public IReadOnlyDictionary<string, MessageAttributeValue>? MessageAttributes { get; set; }
}
