using System;
using System.Collections.Generic;
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
/// fails at startup, with every problem listed; then, when the configuration is right, the resources the service holds
/// (each <see cref="IMessageBusResourceCheck"/>, the transport's opt-in).
/// </summary>
internal sealed class MessageBusStartupCheck(MessageBusValidator validator, IServiceProvider services) : IHostedLifecycleService
{
    public async Task StartingAsync(CancellationToken cancellationToken)
    {
        validator.EnsureValid();
        // The transport the bus sends through: with UsePayloadOffload, the offloading one, which names the store too.
        IMessageTransport? transport = services.GetService<Offload.PayloadOffloadingTransport>() ?? services.GetService<IMessageTransport>();
        if (transport is not null && services.GetService<ILogger<MessageBusStartupCheck>>() is { } logger)
        {
            BusLog.TransportInUse(logger, transport.Description);
        }

        var problems = new List<string>();
        MessageBusDescription? description = null;
        foreach (IMessageBusResourceCheck check in services.GetServices<IMessageBusResourceCheck>())
        {
            description ??= validator.Describe();
            try
            {
                await check.CheckAsync(description, problems, cancellationToken).ConfigureAwait(false);
            }
            catch (Exception e) when (e is not OperationCanceledException || !cancellationToken.IsCancellationRequested)
            {
                problems.Add($"The resource check {check.GetType().Name} failed: {e.GetType().Name}: {e.Message}");
            }
        }

        if (problems.Count > 0)
        {
            throw new MessageBusConfigurationException(problems);
        }
    }

    public Task StartAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    public Task StartedAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    public Task StoppingAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    public Task StopAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    public Task StoppedAsync(CancellationToken cancellationToken) => Task.CompletedTask;
}
