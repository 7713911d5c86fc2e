using System;

namespace Missive;

/// <summary>
/// A CloudEvents 1.0 envelope around an application message: the context attributes, the
/// extension attributes and the message itself.
/// </summary>
/// <remarks>
/// Envelopes are plain data holders. Serializers validate them when writing and build them only
/// from valid input when reading; <see cref="Validate"/> runs the same checks on demand.
/// </remarks>
public abstract class MessageEnvelope
{
    private ExtensionAttributeCollection? _extensions;

    private protected MessageEnvelope()
    {
    }

    /// <summary>Gets or sets the event id (<c>id</c>, required, non-empty).</summary>
    public string Id { get; set; } = string.Empty;

    /// <summary>Gets or sets the event source (<c>source</c>, required, a URI reference).</summary>
    public string Source { get; set; } = string.Empty;

    /// <summary>Gets or sets the specification version (<c>specversion</c>); always <c>1.0</c> for valid envelopes.</summary>
    public string SpecVersion { get; set; } = CloudEventRules.SpecVersion10;

    /// <summary>Gets or sets the event type (<c>type</c>, required): the registered message type identifier.</summary>
    public string Type { get; set; } = string.Empty;

    /// <summary>Gets or sets the time the event happened (<c>time</c>, optional).</summary>
    public DateTimeOffset? Time { get; set; }

    /// <summary>Gets or sets the content type of the data (<c>datacontenttype</c>, optional, RFC 2046).</summary>
    public string? DataContentType { get; set; }

    /// <summary>Gets or sets the schema the data adheres to (<c>dataschema</c>, optional, an absolute URI).</summary>
    public string? DataSchema { get; set; }

    /// <summary>Gets or sets the subject of the event in the context of the source (<c>subject</c>, optional, non-empty).</summary>
    public string? Subject { get; set; }

    /// <summary>Gets the extension attributes. Created on first use.</summary>
    public ExtensionAttributeCollection Extensions => _extensions ??= new ExtensionAttributeCollection();

    /// <summary>Gets or sets what SQS said of the message, when it was received from a queue.</summary>
    public SqsMetadata? SqsMetadata { get; set; }

    /// <summary>Gets or sets what the SNS notification around the message said, when it came through a topic without raw delivery.</summary>
    public SnsMetadata? SnsMetadata { get; set; }

    /// <summary>Gets or sets what the EventBridge event around the message said, when it came through an event bus.</summary>
    public EventBridgeMetadata? EventBridgeMetadata { get; set; }

    /// <summary>Gets or sets what the MassTransit envelope around the message carried, when it was read from one.</summary>
    public MassTransitMetadata? MassTransitMetadata { get; set; }

    /// <summary>Gets or sets what the NServiceBus endpoint sent beside the message, when it was read as one.</summary>
    public NServiceBusMetadata? NServiceBusMetadata { get; set; }

    /// <summary>
    /// Gets whether the message arrived as a native message (a body that was not a CloudEvents envelope, read by a
    /// <c>NativeMessageRules</c> rule): its attributes were then taken from what the message carried (the EventBridge
    /// event's <c>id</c>, <c>source</c> and <c>time</c>, else the SNS notification's, else SQS's message id and
    /// <c>SentTimestamp</c>), and <see cref="Type"/> is the identifier its type is registered under.
    /// </summary>
    public bool IsNative { get; internal set; }

    /// <summary>Gets the .NET type of the message.</summary>
    public abstract Type MessageType { get; }

    /// <summary>Gets the extensions if any were added, without creating the collection.</summary>
    internal ExtensionAttributeCollection? ExtensionsOrNull => _extensions;

    /// <summary>Sets every attribute at once: what the readers do once an envelope is complete.</summary>
    internal void SetAttributes(string id, string source, string type, DateTimeOffset? time, string? dataContentType, string? dataSchema, string? subject, ExtensionAttributeCollection? extensions)
    {
        Id = id;
        Source = source;
        Type = type;
        Time = time;
        DataContentType = dataContentType;
        DataSchema = dataSchema;
        Subject = subject;
        _extensions = extensions;
    }

    /// <summary>Checks the envelope against the CloudEvents rules.</summary>
    /// <exception cref="InvalidEnvelopeException">A required attribute is missing or an attribute value is invalid.</exception>
    public void Validate() => EnvelopeValidator.Validate(this, position: -1);

    /// <summary>
    /// Gets the message (the <c>data</c> of the event) as an object, or <c>null</c> when the event has
    /// none. <see cref="MessageEnvelope{T}.Message"/> gives it typed, without boxing.
    /// </summary>
    /// <returns>The message, or <c>null</c>.</returns>
    public abstract object? GetMessage();
}
