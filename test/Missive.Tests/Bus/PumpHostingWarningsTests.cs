using System;
using System.Collections.Concurrent;
using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Missive.Bus;
using Missive.Tests.Infrastructure;

namespace Missive.Tests.Bus;

/// <summary>Handlers that can never run are reported: no poller for them, or pollers with no host to run the pump.</summary>
public sealed class PumpHostingWarningsTests
{
    [Fact]
    public async Task HandlersWithoutAPoller_AreReportedWhenTheHostStarts()
    {
        var logs = new ConcurrentQueue<string>();
        using IHost host = BuildHost(logs, bus => bus.UseInMemoryBroker());

        await host.StartAsync();
        await host.StopAsync();

        Assert.Contains(logs, l => l.Contains("no queue poller is", StringComparison.Ordinal) && l.Contains(typeof(Order).FullName!, StringComparison.Ordinal));
    }

    [Fact]
    public async Task HandlersWithoutAPollerOrATransport_StillLetTheHostStart_AndAreReported()
    {
        var logs = new ConcurrentQueue<string>();
        using IHost host = BuildHost(logs, _ => { }); // no transport: the pump has no poller that would need one

        await host.StartAsync();
        await host.StopAsync();

        Assert.Contains(logs, l => l.Contains("no queue poller is", StringComparison.Ordinal));
    }

    [Fact]
    public void PollersInAServiceProviderWithoutAHost_AreReportedWhenThePublisherIsResolved()
    {
        var logs = new ConcurrentQueue<string>();
        var services = new ServiceCollection();
        services.AddLogging(l => l.AddProvider(new CapturingLoggerProvider(logs)));
        services.AddMessageBus(bus => Configure(bus).AddQueuePoller("billing").UseInMemoryBroker(b => b.CreateQueue("billing")));
        using ServiceProvider provider = services.BuildServiceProvider();

        provider.GetRequiredService<IMessagePublisher>();

        Assert.Contains(logs, l => l.Contains("no generic host", StringComparison.Ordinal) && l.Contains("billing", StringComparison.Ordinal));
    }

    [Fact]
    public async Task PollersInAHost_AndHandlersWithAPoller_AreNotReported()
    {
        var logs = new ConcurrentQueue<string>();
        using IHost host = BuildHost(logs, bus => bus.AddQueuePoller("billing", o => o.WaitTime = TimeSpan.FromMilliseconds(50)).UseInMemoryBroker(b => b.CreateQueue("billing")));

        await host.StartAsync();
        host.Services.GetRequiredService<IMessagePublisher>();
        await host.StopAsync();

        Assert.DoesNotContain(logs, l => l.Contains("no queue poller is", StringComparison.Ordinal) || l.Contains("no generic host", StringComparison.Ordinal));
    }

    private static IHost BuildHost(ConcurrentQueue<string> logs, Action<MessageBusBuilder> configure)
    {
        HostApplicationBuilder builder = Host.CreateApplicationBuilder();
        builder.Logging.ClearProviders();
        builder.Logging.AddProvider(new CapturingLoggerProvider(logs));
        builder.Services.AddSingleton(new MessageBusEndToEndTests.Recorder<Order>(expected: 1));
        builder.Services.AddMessageBus(bus => configure(Configure(bus)));
        return builder.Build();
    }

    private static MessageBusBuilder Configure(MessageBusBuilder bus) => bus
        .AddMessageType<Order>(TestSerializers.OrderType)
        .ConfigureSerialization(o => o.JsonSerializerContext = TestJsonContext.Default)
        .AddHandler<Order, MessageBusEndToEndTests.RecordingHandler>();
}
