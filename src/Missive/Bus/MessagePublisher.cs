using System;
using System.Threading;
using System.Threading.Tasks;
using Missive.Serialization;
using Missive.Transport;

namespace Missive.Bus;

/// <summary>The default <see cref="IMessagePublisher"/>: envelope factory, then the route's wrapper, then the transport.</summary>
internal sealed class MessagePublisher : IMessagePublisher
{
    private readonly IEnvelopeFactory _factory;
    private readonly OutboundMessageWriter _writer;
    private readonly IMessageTransport _transport;
    private readonly BusConfiguration _configuration;

    public MessagePublisher(IEnvelopeFactory factory, OutboundMessageWriter writer, IMessageTransport transport, BusConfiguration configuration)
    {
        _factory = factory;
        _writer = writer;
        _transport = transport;
        _configuration = configuration;
    }

    public async Task<MessageEnvelope<T>> PublishAsync<T>(T message, PublishOptions? options = null, CancellationToken cancellationToken = default)
    {
        if (!_configuration.Routes.TryGetValue(typeof(T), out MessageRoute? route))
        {
            throw new MessageBusConfigurationException($"No publisher is configured for {typeof(T).FullName}. Add one with AddSqsPublisher<{typeof(T).Name}>, AddSnsPublisher<{typeof(T).Name}> or AddEventBridgePublisher<{typeof(T).Name}>.");
        }

        MessageEnvelope<T> envelope = options?.TypeIdentifier is { } typeIdentifier ? _factory.CreateEnvelope(message, typeIdentifier) : _factory.CreateEnvelope(message);
        options?.ConfigureEnvelope?.Invoke(envelope);
        EnvelopeFormat? format = options?.Format ?? route.Format;
        if (format == EnvelopeFormat.Protobuf && !_configuration.ProtobufPublishing)
        {
            throw new MessageBusConfigurationException("Publishing in the protobuf format needs EnableExperimentalFeatures(); without it, the bus reads protobuf but writes JSON.");
        }

        switch (route.Kind)
        {
            case RouteKind.Sqs:
                await _transport.SendAsync(_writer.ToSqs(envelope, route.Target, format, options?.MessageGroupId, options?.MessageDeduplicationId), cancellationToken).ConfigureAwait(false);
                break;
            case RouteKind.Sns:
                await _transport.PublishAsync(_writer.ToSns(envelope, route.Target, format, options?.Subject, options?.MessageGroupId, options?.MessageDeduplicationId), cancellationToken).ConfigureAwait(false);
                break;
            default:
                await _transport.PutEventAsync(_writer.ToEventBridge(envelope, route.Target, format), cancellationToken).ConfigureAwait(false);
                break;
        }

        return envelope;
    }
}
