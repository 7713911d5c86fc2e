// With Orders.cs of the README's quick start.
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Diagnostics.HealthChecks;
using Microsoft.Extensions.Hosting;

namespace Missive.Tests.Readme;

public static class HealthChecksWiring
{
    public static IHost BuildWorker(string[] args)
    {
        HostApplicationBuilder builder = Host.CreateApplicationBuilder(args);
        builder.Services.AddMessageBus(bus => bus
            .AddMessageType<OrderPlaced>("Orders.OrderPlaced")
            .ConfigureSerialization(o => o.JsonSerializerContext = AppJsonContext.Default)
            .AddHandler<OrderPlaced, OrderPlacedHandler>()
            .AddQueuePoller("billing")
            .UseInMemoryBroker(broker => broker.CreateQueue("billing")));
        builder.Services.AddHealthChecks().AddMessageBusChecks();
        return builder.Build();
    }

    public static async System.Threading.Tasks.Task<HealthReport> ReadyAsync(IHost host)
    {
        HealthCheckService health = host.Services.GetRequiredService<HealthCheckService>();
        HealthReport ready = await health.CheckHealthAsync(check => check.Tags.Contains("ready"));
        return ready; // ready.Entries["missive-poller-billing"].Status, .Data["lastErrorCode"], ...
    }
}
