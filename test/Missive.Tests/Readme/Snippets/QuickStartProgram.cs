// With Orders.cs of the README's quick start.
using System;
using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Missive.Bus;
using Missive.Serialization;

namespace Missive.Tests.Readme;

// README.md shows the usings and the body of RunAsync as a Program.cs of top-level statements.
public static class QuickStartProgram
{
    public static async Task RunAsync(string[] args)
    {
        HostApplicationBuilder builder = Host.CreateApplicationBuilder(args);
        builder.Services.AddMessageBus(bus =>
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

        // The generic host runs the message pump: pollers start and stop with it.
        using IHost host = builder.Build();
        await host.StartAsync();

        IMessagePublisher publisher = host.Services.GetRequiredService<IMessagePublisher>();
        await publisher.PublishAsync(new OrderPlaced("ORD-1", 129.95m));
        await publisher.PublishAsync(new OrderPlaced("ORD-2", 80m), new PublishOptions { Format = EnvelopeFormat.Protobuf });

        await Task.Delay(TimeSpan.FromSeconds(2)); // meanwhile the poller hands both to OrderPlacedHandler
        await host.StopAsync();
    }
}
