using System;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Missive.Bus;
using Missive.Transport;

namespace Missive;

/// <summary>
/// Checks the bus's configuration when the host starts, before any hosted service's <c>StartAsync</c>
/// (<see cref="IHostedLifecycleService.StartingAsync"/>), so that a host whose code resolves the bus only later still
/// fails at startup, with every problem listed.
/// </summary>
internal sealed class MessageBusStartupCheck(MessageBusValidator validator, IServiceProvider services) : IHostedLifecycleService
{
    public Task StartingAsync(CancellationToken cancellationToken)
    {
        validator.EnsureValid();
        if (services.GetService<IMessageTransport>() is { } transport && services.GetService<ILogger<MessageBusStartupCheck>>() is { } logger)
        {
            BusLog.TransportInUse(logger, transport.Description);
        }

        return Task.CompletedTask;
    }

    public Task StartAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    public Task StartedAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    public Task StoppingAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    public Task StopAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    public Task StoppedAsync(CancellationToken cancellationToken) => Task.CompletedTask;
}
