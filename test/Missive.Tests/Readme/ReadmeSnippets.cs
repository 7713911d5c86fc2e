using System;
using System.Buffers;
using System.Text.Json.Serialization;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Missive.Buffers;
using Missive.Bus;
using Missive.Serialization;
using Missive.Transport;

namespace Missive.Tests.Readme;

// Every C# block in README.md is copied from this file (ReadmeTests checks it), so every snippet compiles,
// and ReadmeTests runs them.
public sealed record OrderPlaced(string OrderId, decimal Total);

[JsonSerializable(typeof(OrderPlaced))]
public sealed partial class AppJsonContext : JsonSerializerContext
{
}

public sealed class OrderPlacedHandler : IMessageHandler<OrderPlaced>
{
    public Task HandleAsync(MessageEnvelope<OrderPlaced> envelope, CancellationToken cancellationToken)
    {
        Console.WriteLine($"{envelope.Message.OrderId} via {envelope.SnsMetadata?.TopicArn}");
        return Task.CompletedTask;
    }
}

public static class ReadmeSnippets
{
    public static ServiceProvider Configure(IServiceCollection services)
    {
        services.AddMessageBus(bus =>
        {
            bus.AddMessageType<OrderPlaced>("Orders.OrderPlaced");
            bus.UseMessageSource("/orders-service");
            bus.ConfigureSerialization(o => o.JsonSerializerContext = AppJsonContext.Default);
            bus.EnableExperimentalFeatures();
            bus.AddSnsPublisher<OrderPlaced>("orders");
            bus.AddHandler<OrderPlaced, OrderPlacedHandler>();
            bus.AddQueuePoller("billing");
            bus.UseInMemoryBroker(broker =>
            {
                broker.CreateTopic("orders");
                broker.Subscribe("orders", "billing");
            });
        });
        return services.BuildServiceProvider();
    }

    public static async Task Publish(IServiceProvider provider, OrderPlaced order)
    {
        IMessagePublisher publisher = provider.GetRequiredService<IMessagePublisher>();
        await publisher.PublishAsync(new OrderPlaced("ORD-1", 129.95m));
        await publisher.PublishAsync(order, new PublishOptions { Format = EnvelopeFormat.Protobuf });
    }

    public static MessageEnvelope SerializeAndRead(IServiceProvider provider, OrderPlaced order)
    {
        IEnvelopeSerializer serializer = provider.GetRequiredService<IEnvelopeSerializer>();
        MessageEnvelope<OrderPlaced> envelope = provider.GetRequiredService<IEnvelopeFactory>().CreateEnvelope(order);
        using var buffer = new PooledBufferWriter();
        int written = serializer.Serialize(buffer, envelope);
        MessageEnvelope received = serializer.Deserialize(new ReadOnlySequence<byte>(buffer.WrittenMemory));
        return written > 0 ? received : throw new InvalidOperationException();
    }

    public static MessageEnvelope? ReadSqsMessage(IServiceProvider provider, SqsMessage sqsMessage)
    {
        InboundMessage inbound = provider.GetRequiredService<InboundMessageReader>().Read(sqsMessage);
        return inbound.Envelope; // null for SNS subscription confirmations
    }

    public static IServiceCollection ConfigureForAws(IServiceCollection services, IConfiguration configuration)
    {
        services.AddMessageBus(bus =>
        {
            bus.AddMessageType<OrderPlaced>("Orders.OrderPlaced");
            bus.ConfigureSerialization(o => o.JsonSerializerContext = AppJsonContext.Default);
            bus.AddSnsPublisher<OrderPlaced>("orders");
            bus.AddHandler<OrderPlaced, OrderPlacedHandler>();
            bus.AddQueuePoller("billing", o => o.VisibilityTimeout = TimeSpan.FromMinutes(1));
            bus.UseAws(configuration.GetSection("Missive:Aws"));
        });
        return services;
    }
}
