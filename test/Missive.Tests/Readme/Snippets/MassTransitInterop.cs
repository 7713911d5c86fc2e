// With Orders.cs of the README's quick start.
using System;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Missive;
using Missive.Bus;
using Missive.Transport;

namespace Missive.Tests.Readme;

/// <summary>A billing service on the queue the MassTransit services already publish to.</summary>
public static class BillingBus
{
    public static void AddBillingBus(this HostApplicationBuilder builder)
    {
        builder.Services.AddMessageBus(bus => bus
            .AddMessageType<OrderPlaced>("Orders.OrderPlaced")
            .AddMessageType<OrderSubmitted>("Sales.OrderSubmitted")
            .AddHandler<OrderPlaced, OrderPlacedHandler>()
            .AddHandler<OrderSubmitted, OrderSubmittedHandler>()
            .AddQueuePoller("billing", o => o.NativeMessages
                .WhenMassTransit<OrderSubmitted>("urn:message:Sales.Contracts:OrderSubmitted"))
            .UseInMemoryBroker(broker => broker.CreateQueue("billing")));
    }
}

/// <summary>The message as the MassTransit services define it (their <c>Sales.Contracts.OrderSubmitted</c>).</summary>
public sealed record OrderSubmitted(Guid OrderId, string Customer, decimal Total);

public sealed class OrderSubmittedHandler : IMessageHandler<OrderSubmitted>
{
    public Task HandleAsync(MessageEnvelope<OrderSubmitted> envelope, CancellationToken cancellationToken)
    {
        MassTransitMetadata? sender = envelope.MassTransitMetadata; // null for Missive's own envelopes
        Console.WriteLine($"{envelope.Message.OrderId}: {envelope.Message.Total} (conversation {sender?.ConversationId})");
        return Task.CompletedTask;
    }
}

/// <summary>Orders published for the MassTransit services that still consume them, on the topic MassTransit's naming gives.</summary>
public static class OrdersForMassTransit
{
    public static void AddOrdersForMassTransit(this HostApplicationBuilder builder)
    {
        builder.Services.AddMessageBus(bus => bus
            .AddMessageType<OrderPlaced>("Orders.OrderPlaced")
            .AddSnsPublisher<OrderPlaced>("Shop_Orders-OrderPlaced")
            .PublishAsMassTransit<OrderPlaced>("urn:message:Shop.Orders:OrderPlaced")
            .UseInMemoryBroker(broker =>
            {
                broker.CreateTopic("Shop_Orders-OrderPlaced");
                broker.CreateQueue("masstransit-billing");
                broker.Subscribe("Shop_Orders-OrderPlaced", "masstransit-billing", rawMessageDelivery: true);
            }));
    }
}
