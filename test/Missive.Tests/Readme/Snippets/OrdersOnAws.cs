// With Orders.cs of the README's quick start.
using System;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;

namespace Missive.Tests.Readme;

public static class OrdersOnAws
{
    public static IServiceCollection AddOrdersBus(this IServiceCollection services, IConfiguration configuration)
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
