using System;
using Missive.Serialization;

namespace Missive.Bus;

/// <summary>Per-message publish settings.</summary>
public sealed class PublishOptions
{
    /// <summary>Gets or sets the FIFO message group id (required for FIFO queues and topics).</summary>
    public string? MessageGroupId { get; set; }

    /// <summary>Gets or sets the FIFO deduplication id; <c>null</c> relies on content-based deduplication.</summary>
    public string? MessageDeduplicationId { get; set; }

    /// <summary>Gets or sets the SNS subject, or <c>null</c>.</summary>
    public string? Subject { get; set; }

    /// <summary>
    /// Gets or sets the envelope <c>type</c> for this message: one of the identifiers its .NET type is registered under
    /// (<c>AddMessageType</c> may be called several times for one type), or <c>null</c> for the first registered.
    /// </summary>
    public string? TypeIdentifier { get; set; }

    /// <summary>Gets or sets the envelope format for this message, or <c>null</c> for the publisher's (protobuf needs <c>EnableExperimentalFeatures()</c>).</summary>
    public EnvelopeFormat? Format { get; set; }

    /// <summary>Gets or sets a callback that adjusts the envelope before it is written (for example to add extension attributes).</summary>
    public Action<MessageEnvelope>? ConfigureEnvelope { get; set; }
}
