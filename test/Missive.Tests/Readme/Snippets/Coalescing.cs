// With Orders.cs of the README's quick start.
using System;
using Microsoft.Extensions.DependencyInjection;
using Missive;

namespace Missive.Tests.Readme;

/// <summary>docs/publishing.md's coalescing snippet.</summary>
public static class Coalescing
{
    public static IServiceCollection Services()
    {
        var services = new ServiceCollection();
        services.AddMessageBus(bus => bus
            .AddMessageType<OrderPlaced>("com.example.orders.placed")
            .UseInMemoryBroker(broker => broker.CreateQueue("orders"))
            .AddSqsPublisher<OrderPlaced>("orders")
            .CoalescePublishes(TimeSpan.FromMilliseconds(5))); // concurrent PublishAsync calls to "orders" share batch calls
        return services;
    }
}
