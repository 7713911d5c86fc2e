using System;
using System.Buffers;
using System.Collections.Generic;
using System.Text.Json;
using Missive.Serialization;

namespace Missive.Transport;

/// <summary>
/// Wraps envelopes for each target: an SQS body, an SNS message, an EventBridge entry. JSON
/// envelopes travel as their text; protobuf envelopes as base64 text with a <c>contentType</c>
/// message attribute (SQS and SNS), or inside EventBridge's JSON-object <c>detail</c> as
/// <c>{"contentType":"application/cloudevents+protobuf","body":"&lt;base64&gt;"}</c>.
/// </summary>
/// <remarks><see cref="InboundMessageReader"/> reads every shape this writer produces.</remarks>
public sealed class OutboundMessageWriter
{
    /// <summary>The message attribute that carries the type identifier of a message published without an envelope.</summary>
    public const string MessageTypeAttribute = "MessageType";

    /// <summary>The <c>Content-Type</c> attribute's value, shared: attribute values cannot change.</summary>
    private static readonly MessageAttributeValue MassTransitContentType = MessageAttributeValue.FromString(MassTransitEnvelope.ContentType);

    private readonly IEnvelopeSerializerProvider _serializers;
    private readonly MessageTypeMap? _types;

    /// <summary>Creates the writer.</summary>
    /// <param name="serializers">The envelope serializers. Must not be null.</param>
    public OutboundMessageWriter(IEnvelopeSerializerProvider serializers)
    {
        ArgumentNullException.ThrowIfNull(serializers);
        _serializers = serializers;
        _types = serializers.MessageTypes;
    }

    /// <summary>Builds an SQS send request.</summary>
    /// <typeparam name="T">The message type.</typeparam>
    /// <param name="envelope">The envelope. Must not be null.</param>
    /// <param name="queueName">The queue.</param>
    /// <param name="format">The format, or <c>null</c> for the publish format.</param>
    /// <param name="messageGroupId">The FIFO message group, or <c>null</c>.</param>
    /// <param name="messageDeduplicationId">The FIFO deduplication id, or <c>null</c>.</param>
    /// <returns>The request.</returns>
    public SqsSendRequest ToSqs<T>(MessageEnvelope<T> envelope, string queueName, EnvelopeFormat? format = null, string? messageGroupId = null, string? messageDeduplicationId = null)
    {
        ArgumentNullException.ThrowIfNull(envelope);
        IEnvelopeSerializer serializer = SerializerFor(format);
        return SqsRequest(serializer, serializer.SerializeToUtf8Text(envelope), queueName, messageGroupId, messageDeduplicationId); // the bytes as written: no string
    }

    /// <summary>
    /// As <see cref="ToSqs{T}"/>, with the body in an array rented from the shared pool, for a send whose transport is
    /// done with the body when its call completes (<see cref="IMessageTransport.IsDoneWithBodiesWhenCallsComplete"/>):
    /// the request's <see cref="SqsSendRequest.RentedBody"/> holds it; release it when the send is over (it goes back,
    /// cleared, once every call that holds it has ended too).
    /// </summary>
    internal SqsSendRequest ToSqsOnRentedBody<T>(MessageEnvelope<T> envelope, string queueName, EnvelopeFormat? format, string? messageGroupId, string? messageDeduplicationId)
    {
        ArgumentNullException.ThrowIfNull(envelope);
        IEnvelopeSerializer serializer = SerializerFor(format);
        ReadOnlyMemory<byte> body = serializer.SerializeToRentedUtf8Text(envelope, out byte[] rented);
        SqsSendRequest request = SqsRequest(serializer, body, queueName, messageGroupId, messageDeduplicationId);
        request.RentedBody = new Buffers.RentedBody(rented, body.Length);
        return request;
    }

    /// <summary>A send request for a body <paramref name="serializer"/> wrote (a binary format's with its content type attribute).</summary>
    private static SqsSendRequest SqsRequest(IEnvelopeSerializer serializer, ReadOnlyMemory<byte> body, string queueName, string? messageGroupId, string? messageDeduplicationId) => new()
    {
        QueueName = queueName,
        Utf8Body = body,
        MessageAttributes = serializer.Format == EnvelopeFormat.Protobuf ? ContentTypeAttribute.Protobuf : ContentTypeAttribute.None,
        MessageGroupId = messageGroupId,
        MessageDeduplicationId = messageDeduplicationId,
    };

    /// <summary>Builds an SNS publish request.</summary>
    /// <typeparam name="T">The message type.</typeparam>
    /// <param name="envelope">The envelope. Must not be null.</param>
    /// <param name="topic">The topic name or ARN.</param>
    /// <param name="format">The format, or <c>null</c> for the publish format.</param>
    /// <param name="subject">The SNS subject, or <c>null</c>.</param>
    /// <param name="messageGroupId">The FIFO message group, or <c>null</c>.</param>
    /// <param name="messageDeduplicationId">The FIFO deduplication id, or <c>null</c>.</param>
    /// <returns>The request.</returns>
    public SnsPublishRequest ToSns<T>(MessageEnvelope<T> envelope, string topic, EnvelopeFormat? format = null, string? subject = null, string? messageGroupId = null, string? messageDeduplicationId = null)
    {
        string body = Body(envelope, format, out bool protobuf);
        return new SnsPublishRequest
        {
            TopicArn = topic,
            Message = body,
            Subject = subject,
            MessageAttributes = protobuf ? ContentTypeAttribute.Protobuf : ContentTypeAttribute.None,
            MessageGroupId = messageGroupId,
            MessageDeduplicationId = messageDeduplicationId,
        };
    }

    /// <summary>Builds an EventBridge entry: detail = the envelope, detail-type = its type, source = its source.</summary>
    /// <typeparam name="T">The message type.</typeparam>
    /// <param name="envelope">The envelope. Must not be null.</param>
    /// <param name="eventBus">The event bus.</param>
    /// <param name="format">The format, or <c>null</c> for the publish format.</param>
    /// <returns>The entry.</returns>
    public EventBridgeEntry ToEventBridge<T>(MessageEnvelope<T> envelope, string eventBus, EnvelopeFormat? format = null)
    {
        string body = Body(envelope, format, out bool protobuf);
        return new EventBridgeEntry
        {
            EventBusName = eventBus,
            Source = envelope.Source,
            DetailType = envelope.Type,
            Detail = protobuf ? EventBridgeProtobufDetail.Write(body) : body,
            Time = envelope.Time,
        };
    }

    private string Body<T>(MessageEnvelope<T> envelope, EnvelopeFormat? format, out bool protobuf)
    {
        ArgumentNullException.ThrowIfNull(envelope);
        IEnvelopeSerializer serializer = SerializerFor(format);
        protobuf = serializer.Format == EnvelopeFormat.Protobuf;
        return serializer.SerializeToString(envelope);
    }

    /// <summary>An SQS send of the message alone (no envelope), its type identifier in <see cref="MessageTypeAttribute"/>.</summary>
    internal SqsSendRequest ToSqsWithoutEnvelope<T>(MessageEnvelope<T> envelope, string queueName, string? messageGroupId, string? messageDeduplicationId) => new()
    {
        QueueName = queueName,
        Utf8Body = MessageJson(envelope),
        MessageAttributes = TypeAttribute(envelope),
        MessageGroupId = messageGroupId,
        MessageDeduplicationId = messageDeduplicationId,
    };

    /// <summary>An SNS publish of the message alone (no envelope), its type identifier in <see cref="MessageTypeAttribute"/>.</summary>
    internal SnsPublishRequest ToSnsWithoutEnvelope<T>(MessageEnvelope<T> envelope, string topic, string? subject, string? messageGroupId, string? messageDeduplicationId) => new()
    {
        TopicArn = topic,
        Message = System.Text.Encoding.UTF8.GetString(MessageJson(envelope)),
        Subject = subject,
        MessageAttributes = TypeAttribute(envelope),
        MessageGroupId = messageGroupId,
        MessageDeduplicationId = messageDeduplicationId,
    };

    /// <summary>An EventBridge entry whose <c>detail</c> is the message alone: <c>detail-type</c> its type identifier, <c>source</c> the envelope's.</summary>
    internal EventBridgeEntry ToEventBridgeWithoutEnvelope<T>(MessageEnvelope<T> envelope, string eventBus) => new()
    {
        EventBusName = eventBus,
        Source = envelope.Source,
        DetailType = envelope.Type,
        Detail = System.Text.Encoding.UTF8.GetString(MessageJson(envelope)),
        Time = envelope.Time,
    };

    /// <summary>An SQS send of the message in MassTransit's envelope under <paramref name="urn"/>, with the attributes MassTransit's transport reads.</summary>
    internal SqsSendRequest ToSqsAsMassTransit<T>(MessageEnvelope<T> envelope, string queueName, string urn, string? messageGroupId, string? messageDeduplicationId) => new()
    {
        QueueName = queueName,
        Utf8Body = MessageJson(envelope, urn),
        MessageAttributes = MassTransitAttributes(envelope),
        MessageGroupId = messageGroupId,
        MessageDeduplicationId = messageDeduplicationId,
    };

    /// <summary>An SNS publish of the message in MassTransit's envelope under <paramref name="urn"/>, with the attributes MassTransit's transport reads.</summary>
    internal SnsPublishRequest ToSnsAsMassTransit<T>(MessageEnvelope<T> envelope, string topic, string urn, string? subject, string? messageGroupId, string? messageDeduplicationId) => new()
    {
        TopicArn = topic,
        Message = System.Text.Encoding.UTF8.GetString(MessageJson(envelope, urn)),
        Subject = subject,
        MessageAttributes = MassTransitAttributes(envelope),
        MessageGroupId = messageGroupId,
        MessageDeduplicationId = messageDeduplicationId,
    };

    /// <summary>An SQS send of the message as NServiceBus's transport sends one unwrapped (its body, its id and headers in attributes).</summary>
    internal SqsSendRequest ToSqsAsNServiceBus<T>(MessageEnvelope<T> envelope, string queueName, string fullName, string? messageGroupId, string? messageDeduplicationId) => new()
    {
        QueueName = queueName,
        Utf8Body = MessageJson(envelope),
        MessageAttributes = NServiceBusMessage.AttributesOf(envelope, fullName, published: false),
        MessageGroupId = messageGroupId,
        MessageDeduplicationId = messageDeduplicationId,
    };

    /// <summary>An SNS publish of the message as NServiceBus's transport publishes one unwrapped (its body, its id and headers in attributes).</summary>
    internal SnsPublishRequest ToSnsAsNServiceBus<T>(MessageEnvelope<T> envelope, string topic, string fullName, string? subject, string? messageGroupId, string? messageDeduplicationId) => new()
    {
        TopicArn = topic,
        Message = System.Text.Encoding.UTF8.GetString(MessageJson(envelope)),
        Subject = subject,
        MessageAttributes = NServiceBusMessage.AttributesOf(envelope, fullName, published: true),
        MessageGroupId = messageGroupId,
        MessageDeduplicationId = messageDeduplicationId,
    };

    /// <summary><c>Content-Type</c>, and the trace context as <c>MT-Activity-Id</c> when the envelope carries one.</summary>
    private static Dictionary<string, MessageAttributeValue> MassTransitAttributes(MessageEnvelope envelope)
    {
        var attributes = new Dictionary<string, MessageAttributeValue>(StringComparer.Ordinal)
        {
            [MassTransitEnvelope.ContentTypeAttribute] = MassTransitContentType,
        };
        if (envelope.ExtensionsOrNull is { } extensions && extensions.TryGetValue(CloudEventAttributeNames.TraceParent, out CloudEventAttributeValue traceParent))
        {
            attributes[MassTransitEnvelope.ActivityIdAttribute] = MessageAttributeValue.FromString(traceParent.AsString());
        }

        return attributes;
    }

    private static Dictionary<string, MessageAttributeValue> TypeAttribute(MessageEnvelope envelope)
        => new(StringComparer.Ordinal) { [MessageTypeAttribute] = MessageAttributeValue.FromString(envelope.Type) };

    /// <summary>
    /// The message's JSON as its registration writes an envelope's <c>data</c>: alone, or inside MassTransit's envelope
    /// under <paramref name="massTransitUrn"/> when one is given.
    /// </summary>
    private byte[] MessageJson<T>(MessageEnvelope<T> envelope, string? massTransitUrn = null)
    {
        ArgumentNullException.ThrowIfNull(envelope);
        MessageTypeMap types = _types ?? throw new InvalidOperationException("Publishing a message without a CloudEvents envelope needs the bus's envelope serializers (their MessageTypeMap writes the message).");
        using PoolLease<Buffers.PooledBufferWriter> lease = new(Buffers.PerThreadBufferWriterPool.Instance, Buffers.PerThreadBufferWriterPool.Instance.Get());
        Utf8JsonWriter writer = Buffers.PerThreadBufferWriterPool.JsonWriter(lease.Value);
        if (massTransitUrn is null)
        {
            types.Get<T>().Codec.WriteJsonValue(writer, envelope.Message);
        }
        else
        {
            MassTransitEnvelope.Write(writer, envelope, massTransitUrn, types.Get<T>().Codec);
        }

        writer.Flush();
        return lease.Value.WrittenSpan.ToArray();
    }

    private IEnvelopeSerializer SerializerFor(EnvelopeFormat? format) => format is { } chosen ? _serializers.GetSerializer(chosen) : _serializers.PublishSerializer;
}
