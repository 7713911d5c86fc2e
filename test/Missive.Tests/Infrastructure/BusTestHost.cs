using System;
using System.Diagnostics;
using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Missive.InMemory;
using Missive.Tests.Infrastructure;

namespace Missive.Tests.Infrastructure;

/// <summary>A generic host running the bus on an in-memory broker, for the feature tests.</summary>
internal static class BusTestHost
{
    public static readonly TimeSpan Patience = TimeSpan.FromSeconds(30);

    /// <summary>
    /// Builds a host whose bus runs on an in-memory broker with the given topology (get it with
    /// <c>GetRequiredService&lt;InMemoryBroker&gt;()</c>), registers <see cref="Order"/>, and whatever <paramref name="configure"/> adds.
    /// </summary>
    public static IHost Build(Action<InMemoryBroker> topology, Action<MessageBusBuilder> configure, Action<IServiceCollection>? services = null, ILoggerProvider? logger = null)
    {
        HostApplicationBuilder builder = Host.CreateApplicationBuilder();
        builder.Logging.ClearProviders();
        if (logger is not null)
        {
            builder.Logging.AddProvider(logger);
        }

        services?.Invoke(builder.Services);
        builder.Services.AddMessageBus(bus =>
        {
            bus.AddMessageType<Order>(TestSerializers.OrderType)
                .ConfigureSerialization(o => o.JsonSerializerContext = TestJsonContext.Default)
                .UseInMemoryBroker(topology);
            configure(bus);
        });
        return builder.Build();
    }

    public static async Task WaitUntil(Func<bool> condition)
    {
        var watch = Stopwatch.StartNew();
        while (!condition())
        {
            Assert.True(watch.Elapsed < Patience, "condition not met in time");
            await Task.Delay(20);
        }
    }
}
