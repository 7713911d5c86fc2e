using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;
using Missive.Diagnostics;
using Missive.Offload;
using Missive.Transport;

namespace Missive.Bus;

/// <summary>
/// The hosted service that runs one <see cref="QueuePoller"/> per configured queue. It runs inside a generic
/// host (<c>IHost</c>): the host starts it and, on shutdown, cancels it and waits up to the host's shutdown
/// timeout, after which every message still in flight is made visible again.
/// </summary>
internal sealed class MessagePump : BackgroundService
{
    /// <summary>How long the release of each poller's abandoned messages may take at shutdown (they are released together).</summary>
    internal static readonly TimeSpan ShutdownReleaseBudget = TimeSpan.FromSeconds(5);

    private readonly List<QueuePoller> _pollers = [];
    private readonly BusConfiguration _configuration;
    private readonly ILogger _logger;

    /// <param name="transport">The transport the pollers receive from; <c>null</c> only when no poller is configured.</param>
    /// <param name="reader">Reads what is received.</param>
    /// <param name="scopes">A DI scope per message.</param>
    /// <param name="configuration">The pollers and handlers.</param>
    /// <param name="telemetry">The bus's spans and instruments.</param>
    /// <param name="timeProvider">The clock, or <c>null</c> for the system's.</param>
    /// <param name="logger">The logger, or <c>null</c>.</param>
    /// <param name="health">Where each poller reports its health, or <c>null</c> for a report of the pump's own.</param>
    /// <param name="payloads">Resolves pointers to stored payloads before messages are read, or <c>null</c> when payloads are not offloaded.</param>
    public MessagePump(IMessageTransport? transport, InboundMessageReader reader, IServiceScopeFactory scopes, BusConfiguration configuration, BusTelemetry telemetry, TimeProvider? timeProvider = null, ILogger<MessagePump>? logger = null, MessageBusHealth? health = null, PayloadResolver? payloads = null)
    {
        health ??= MessageBusHealthFor(configuration);
        ILogger log = logger ?? NullLogger<MessagePump>.Instance;
        _configuration = configuration;
        _logger = log;
        var dispatcher = new MessageDispatcher(reader, scopes, configuration, telemetry, log, payloads);
        foreach ((string queue, PollerOptions options) in configuration.Pollers)
        {
            _pollers.Add(new QueuePoller(transport!, dispatcher, queue, options, timeProvider ?? TimeProvider.System, log, telemetry, health.PollerOf(queue)));
        }
    }

    internal IReadOnlyList<QueuePoller> Pollers => _pollers;

    /// <summary>The health report of a bus's pollers: one per configured queue poller.</summary>
    internal static MessageBusHealth MessageBusHealthFor(BusConfiguration configuration)
    {
        var pollers = new List<PollerHealth>(configuration.Pollers.Count);
        foreach ((string queue, PollerOptions options) in configuration.Pollers)
        {
            pollers.Add(new PollerHealth(queue, options.VisibilityTimeout));
        }

        return new MessageBusHealth(pollers);
    }

    public override async Task StopAsync(CancellationToken cancellationToken)
    {
        try
        {
            await base.StopAsync(cancellationToken).ConfigureAwait(false);
        }
        finally
        {
            // Returns when the pollers finished, or when the host stopped waiting: release what is still in flight, every
            // poller's at once, each release call within a short budget (the host is already past its timeout).
            var releases = new Task[_pollers.Count];
            for (int i = 0; i < releases.Length; i++)
            {
                releases[i] = _pollers[i].ReleaseAbandonedAsync(ShutdownReleaseBudget);
            }

            await Task.WhenAll(releases).ConfigureAwait(false);
        }
    }

    public override Task StartAsync(CancellationToken cancellationToken)
    {
        if (_pollers.Count == 0 && _configuration.Handlers.Count > 0)
        {
            var types = new List<string>(_configuration.Handlers.Count);
            foreach (Type type in _configuration.Handlers.Keys)
            {
                types.Add(type.FullName ?? type.Name);
            }

            BusLog.HandlersWithoutPoller(_logger, string.Join(", ", types));
        }

        return base.StartAsync(cancellationToken);
    }

    protected override Task ExecuteAsync(CancellationToken stoppingToken)
    {

        var running = new Task[_pollers.Count];
        for (int i = 0; i < running.Length; i++)
        {
            running[i] = _pollers[i].RunAsync(stoppingToken);
        }

        return Task.WhenAll(running);
    }
}
