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

/// <summary>A shipping service on the queue the NServiceBus endpoints already send to.</summary>
public static class ShippingBus
{
    public static void AddShippingBus(this HostApplicationBuilder builder)
    {
        builder.Services.AddMessageBus(bus => bus
            .AddMessageType<OrderPlaced>("Orders.OrderPlaced")
            .AddMessageType<OrderBilled>("Billing.OrderBilled")
            .AddHandler<OrderPlaced, OrderPlacedHandler>()
            .AddHandler<OrderBilled, OrderBilledHandler>()
            .AddQueuePoller("shipping", o => o.NativeMessages
                .WhenNServiceBus<OrderBilled>("Billing.Messages.OrderBilled"))
            .UseInMemoryBroker(broker => broker.CreateQueue("shipping")));
    }
}

/// <summary>The event as the NServiceBus endpoints define it (their <c>Billing.Messages.OrderBilled</c>).</summary>
public sealed record OrderBilled(Guid OrderId, decimal Amount);

public sealed class OrderBilledHandler : IMessageHandler<OrderBilled>
{
    public Task HandleAsync(MessageEnvelope<OrderBilled> envelope, CancellationToken cancellationToken)
    {
        NServiceBusMetadata? sender = envelope.NServiceBusMetadata; // null for Missive's own envelopes
        Console.WriteLine($"{envelope.Message.OrderId} billed {envelope.Message.Amount} by {sender?.OriginatingEndpoint}");
        return Task.CompletedTask;
    }
}
