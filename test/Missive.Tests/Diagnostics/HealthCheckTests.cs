using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Diagnostics.HealthChecks;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Time.Testing;
using Missive.Bus;
using Missive.HealthChecks;
using Missive.InMemory;
using Missive.Tests.Bus;
using Missive.Tests.Infrastructure;
using Missive.Transport;

namespace Missive.Tests.Diagnostics;

/// <summary>
/// The bus's health checks through <see cref="HealthCheckService"/>, in each state: a poller not started, receiving,
/// failing transiently, failing with an error no retry clears (logged at Error once, not per attempt), recovered,
/// stopped, and a heartbeat that stopped running; publishing healthy, degraded and unhealthy.
/// </summary>
public sealed class HealthCheckTests
{
    [Fact]
    public async Task APoller_IsReportedInEachState_AndAFailureNoRetryClears_IsLoggedOnce()
    {
        var clock = new FakeTimeProvider();
        var broker = new InMemoryBroker(clock);
        broker.CreateQueue("billing");
        var transport = new FailingTransport(broker);
        var logs = new CapturingLoggerProvider();
        using IHost host = Host(transport, clock, logs);
        HealthCheckService health = host.Services.GetRequiredService<HealthCheckService>();

        HealthReport notStarted = await health.CheckHealthAsync();
        Assert.Equal(HealthStatus.Degraded, notStarted.Entries["missive-poller-billing"].Status);
        Assert.Equal(HealthStatus.Healthy, notStarted.Entries["missive-publishing"].Status);

        transport.Failure = Persistent;
        await host.StartAsync();
        await clock.AdvanceUntil(() => transport.Receives >= 4, limit: TimeSpan.FromSeconds(30)); // the longest interval between them
        HealthReport failing = await health.CheckHealthAsync(r => r.Tags.Contains(MessageBusHealthChecksBuilderExtensions.ReadyTag));
        HealthReportEntry poller = failing.Entries["missive-poller-billing"];
        HealthReport live = await health.CheckHealthAsync(r => r.Tags.Contains(MessageBusHealthChecksBuilderExtensions.LiveTag));
        Assert.Equal(["missive-poller-billing-live"], live.Entries.Keys); // a restart does not fix a missing queue: liveness does not ask about receiving
        Assert.Equal(HealthStatus.Healthy, live.Status);
        Assert.Equal(HealthStatus.Unhealthy, poller.Status);
        Assert.Equal("AWS.SimpleQueueService.NonExistentQueue", poller.Data["lastErrorCode"]);
        Assert.True((int)poller.Data["consecutiveFailures"] >= 4);
        Assert.Equal(1, logs.Entries.Count(e => e.EventId == 2023 && e.Level == LogLevel.Error));
        Assert.DoesNotContain(logs.Entries, e => e.EventId == 2007);

        transport.Failure = null; // an operator fixed it
        await clock.AdvanceUntil(() => host.Services.GetRequiredService<MessageBusHealth>().Pollers[0].State == PollerState.Running, limit: TimeSpan.FromSeconds(30));
        Assert.Equal(HealthStatus.Healthy, (await health.CheckHealthAsync()).Entries["missive-poller-billing"].Status);
        Assert.Contains(logs.Entries, e => e.EventId == 2024 && e.Level == LogLevel.Information);

        transport.Failure = Transient;
        await clock.AdvanceUntil(() => host.Services.GetRequiredService<MessageBusHealth>().Pollers[0].State == PollerState.FailingTransiently, limit: TimeSpan.FromSeconds(2));
        Assert.Equal(HealthStatus.Degraded, (await health.CheckHealthAsync()).Entries["missive-poller-billing"].Status);
        Assert.Contains(logs.Entries, e => e.EventId == 2007 && e.Level == LogLevel.Warning);

        transport.Failure = null;
        Task stopped = host.StopAsync();
        await clock.AdvanceUntil(() => stopped.IsCompleted, limit: TimeSpan.FromMinutes(5));
        HealthReportEntry after = (await health.CheckHealthAsync(r => r.Tags.Contains(MessageBusHealthChecksBuilderExtensions.LiveTag))).Entries["missive-poller-billing-live"];
        Assert.Equal(HealthStatus.Unhealthy, after.Status);
        Assert.Equal("Stopped", after.Data["state"]);
    }

    [Fact]
    public async Task Publishing_IsDegradedOnTransientFailures_UnhealthyOnPersistentOnes_AndHealthyAfterASuccess()
    {
        var clock = new FakeTimeProvider();
        var broker = new InMemoryBroker(clock);
        broker.CreateQueue("billing");
        var transport = new FailingTransport(broker);
        using IHost host = Host(transport, clock, new CapturingLoggerProvider());
        HealthCheckService health = host.Services.GetRequiredService<HealthCheckService>();
        IMessagePublisher publisher = host.Services.GetRequiredService<IMessagePublisher>();

        transport.Failure = Transient;
        await Assert.ThrowsAsync<MessageTransportException>(() => publisher.PublishAsync(Orders.Create(1)));
        Assert.Equal(HealthStatus.Degraded, (await health.CheckHealthAsync()).Entries["missive-publishing"].Status);

        transport.Failure = Persistent;
        await Assert.ThrowsAsync<MessageTransportException>(() => publisher.PublishAsync(Orders.Create(1)));
        HealthReportEntry unhealthy = (await health.CheckHealthAsync()).Entries["missive-publishing"];
        Assert.Equal(HealthStatus.Unhealthy, unhealthy.Status);
        Assert.Equal("2 in a row, AWS.SimpleQueueService.NonExistentQueue (Persistent)", unhealthy.Data["failing:billing"]);

        transport.Failure = null;
        await publisher.PublishAsync(Orders.Create(1));
        Assert.Equal(HealthStatus.Healthy, (await health.CheckHealthAsync()).Entries["missive-publishing"].Status);
    }

    [Fact]
    public async Task APublishFailure_CountsForItsWindowOnly_AndAMessageTooLargeDoesNotCount()
    {
        var clock = new FakeTimeProvider();
        var broker = new InMemoryBroker(clock);
        broker.CreateQueue("billing");
        var transport = new FailingTransport(broker);
        using IHost host = Host(transport, clock, new CapturingLoggerProvider(), o => o.PublishingFailureWindow = TimeSpan.FromMinutes(2));
        HealthCheckService health = host.Services.GetRequiredService<HealthCheckService>();
        IMessagePublisher publisher = host.Services.GetRequiredService<IMessagePublisher>();

        transport.Failure = static () => new MessageTransportException("SQS SendMessage to 'billing': the message is over the queue's limit.") { ErrorCode = "EntryTooLarge" }; // refused alone, as the transports refuse it
        await Assert.ThrowsAsync<MessageTransportException>(() => publisher.PublishAsync(Orders.Create(1)));
        Assert.Equal(HealthStatus.Healthy, (await health.CheckHealthAsync()).Entries["missive-publishing"].Status); // the message's fault, not the service's

        transport.Failure = Persistent;
        await Assert.ThrowsAsync<MessageTransportException>(() => publisher.PublishAsync(Orders.Create(1)));
        Assert.Equal(HealthStatus.Unhealthy, (await health.CheckHealthAsync()).Entries["missive-publishing"].Status);
        clock.Advance(TimeSpan.FromMinutes(3)); // no publish since: a service that publishes only on traffic does not stay not ready

        HealthReportEntry later = (await health.CheckHealthAsync()).Entries["missive-publishing"];
        Assert.Equal(HealthStatus.Healthy, later.Status);
        Assert.Contains("older than", later.Description, StringComparison.Ordinal);
    }

    [Fact]
    public async Task AMessageTheClaimCheckCannotPointTo_IsThatMessagesFault_AndLeavesPublishingHealthy()
    {
        // Ten attributes and a body over the offload threshold: its pointer needs an eleventh. One message's content
        // never says anything of the destination.
        var clock = new FakeTimeProvider();
        HostApplicationBuilder builder = Microsoft.Extensions.Hosting.Host.CreateApplicationBuilder();
        builder.Logging.ClearProviders();
        builder.Services.AddSingleton<TimeProvider>(clock);
        builder.Services.AddMessageBus(bus => bus
            .AddMessageType<Order>(TestSerializers.OrderType)
            .ConfigureSerialization(o => o.JsonSerializerContext = TestJsonContext.Default)
            .AddSqsPublisher<Order>("billing")
            .UsePayloadOffload(o => o.Threshold = 1024)
            .UseInMemoryBroker(b => b.CreateQueue("billing")));
        builder.Services.AddHealthChecks().AddMessageBusChecks();
        using IHost host = builder.Build();
        IMessagePublisher publisher = host.Services.GetRequiredService<IMessagePublisher>();
        var attributes = new Dictionary<string, MessageAttributeValue>();
        for (int i = 0; i < 10; i++)
        {
            attributes["a" + i] = MessageAttributeValue.FromString("v");
        }

        var error = await Assert.ThrowsAsync<MessageTransportException>(() => publisher.PublishAsync(Orders.Create(100), new PublishOptions { MessageAttributes = attributes }));

        Assert.Equal("TooManyMessageAttributes", error.ErrorCode);
        Assert.Equal(TransportFailureKind.Refused, error.FailureKind);
        Assert.Equal(HealthStatus.Healthy, (await host.Services.GetRequiredService<HealthCheckService>().CheckHealthAsync()).Entries["missive-publishing"].Status);
    }

    [Fact]
    public async Task OneFailingDestination_AmongWorkingOnes_IsDegradedAndNamed_AndEveryOneFailing_IsUnhealthy()
    {
        var clock = new FakeTimeProvider();
        var broker = new InMemoryBroker(clock);
        broker.CreateQueue("billing");
        broker.CreateQueue("audit");
        var transport = new FailingTransport(broker) { FailingQueue = "audit" };
        HostApplicationBuilder builder = Microsoft.Extensions.Hosting.Host.CreateApplicationBuilder();
        builder.Logging.ClearProviders();
        builder.Services.AddSingleton<IMessageTransport>(transport);
        builder.Services.AddSingleton<TimeProvider>(clock);
        builder.Services.AddMessageBus(bus => bus
            .AddMessageType<Order>(TestSerializers.OrderType)
            .AddMessageType<string>("audit.line")
            .ConfigureSerialization(o => o.JsonSerializerContext = TestJsonContext.Default)
            .AddSqsPublisher<Order>("billing")
            .AddSqsPublisher<string>("audit"));
        builder.Services.AddHealthChecks().AddMessageBusChecks();
        using IHost host = builder.Build();
        HealthCheckService health = host.Services.GetRequiredService<HealthCheckService>();
        IMessagePublisher publisher = host.Services.GetRequiredService<IMessagePublisher>();

        await publisher.PublishAsync(Orders.Create(1));
        transport.Failure = Persistent;
        await Assert.ThrowsAsync<MessageTransportException>(() => publisher.PublishAsync("line 1"));
        await publisher.PublishAsync(Orders.Create(2)); // billing still works

        HealthReportEntry some = (await health.CheckHealthAsync()).Entries["missive-publishing"];
        Assert.Equal(HealthStatus.Degraded, some.Status);
        Assert.Contains("1 of 2 destinations", some.Description, StringComparison.Ordinal);
        Assert.Contains("'audit' (1 in a row", some.Description, StringComparison.Ordinal);
        Assert.DoesNotContain("'billing' (", some.Description, StringComparison.Ordinal);
        PublishingDestinationHealth audit = host.Services.GetRequiredService<MessageBusHealth>().Publishing.Destinations.Single(d => d.Name == "audit");
        Assert.Equal((1, TransportFailureKind.Persistent), (audit.ConsecutiveFailures, audit.FailureKind));

        transport.FailingQueue = null; // now every destination fails
        await Assert.ThrowsAsync<MessageTransportException>(() => publisher.PublishAsync(Orders.Create(3)));
        Assert.Equal(HealthStatus.Unhealthy, (await health.CheckHealthAsync()).Entries["missive-publishing"].Status);

        transport.Failure = null;
        await publisher.PublishAsync("line 2");
        Assert.Equal(HealthStatus.Degraded, (await health.CheckHealthAsync()).Entries["missive-publishing"].Status); // billing still fails
    }

    [Fact]
    public async Task TheChecks_TakeTheirNamesTagsAndFailureStatusFromTheOptions()
    {
        var clock = new FakeTimeProvider();
        var broker = new InMemoryBroker(clock);
        broker.CreateQueue("billing");
        var transport = new FailingTransport(broker) { Failure = Persistent };
        using IHost host = Host(transport, clock, new CapturingLoggerProvider(), o =>
        {
            o.NamePrefix = "bus";
            o.ReadyTags.Add("critical");
            o.FailureStatus = HealthStatus.Degraded;
            o.Timeout = TimeSpan.FromSeconds(2);
        });
        HealthCheckService health = host.Services.GetRequiredService<HealthCheckService>();
        await host.StartAsync();
        await clock.AdvanceUntil(() => transport.Receives >= 2, limit: TimeSpan.FromSeconds(30));

        HealthReport critical = await health.CheckHealthAsync(r => r.Tags.Contains("critical"));

        Assert.Equal(["bus-poller-billing", "bus-publishing"], critical.Entries.Keys.Order(StringComparer.Ordinal));
        Assert.Equal(HealthStatus.Degraded, critical.Entries["bus-poller-billing"].Status); // failing, reported as the options say
        transport.Failure = null;
        Task stopped = host.StopAsync();
        await clock.AdvanceUntil(() => stopped.IsCompleted, limit: TimeSpan.FromMinutes(5));
    }

    [Fact]
    public async Task APollerWhoseHeartbeatHasNotRunForHalfAVisibilityTimeout_IsUnhealthy()
    {
        // Both checks: a late heartbeat means the loops are not alive, so liveness fails as readiness does.
        var clock = new FakeTimeProvider();
        var poller = new PollerHealth("billing", TimeSpan.FromSeconds(30));
        poller.Started();
        poller.Received(clock.GetUtcNow());
        poller.HeartbeatRan(clock.GetUtcNow());
        var check = new QueuePollerHealthCheck(poller, clock);
        var liveness = new QueuePollerHealthCheck(poller, clock, liveness: true);

        clock.Advance(TimeSpan.FromSeconds(14));
        Assert.Equal(HealthStatus.Healthy, (await check.CheckHealthAsync(new HealthCheckContext())).Status);
        Assert.Equal(HealthStatus.Healthy, (await liveness.CheckHealthAsync(new HealthCheckContext())).Status);
        clock.Advance(TimeSpan.FromSeconds(2));
        HealthCheckResult late = await check.CheckHealthAsync(new HealthCheckContext());

        Assert.Equal(HealthStatus.Unhealthy, late.Status);
        Assert.Contains("heartbeat of queue billing", late.Description, StringComparison.Ordinal);
        Assert.Equal(HealthStatus.Unhealthy, (await liveness.CheckHealthAsync(new HealthCheckContext())).Status);
    }

    private static MessageTransportException Persistent()
        => new("SQS ReceiveMessage on queue 'billing' failed: AWS.SimpleQueueService.NonExistentQueue (HTTP 400): The specified queue does not exist.") { ErrorCode = "AWS.SimpleQueueService.NonExistentQueue", StatusCode = 400, FailureKind = TransportFailureKind.Persistent };

    private static MessageTransportException Transient()
        => new("SQS ReceiveMessage on queue 'billing' failed: ServiceUnavailable (HTTP 503).") { ErrorCode = "ServiceUnavailable", StatusCode = 503, FailureKind = TransportFailureKind.Transient };

    private static IHost Host(IMessageTransport transport, FakeTimeProvider clock, CapturingLoggerProvider logs, Action<Missive.HealthChecks.MessageBusHealthCheckOptions>? checks = null)
    {
        HostApplicationBuilder builder = Microsoft.Extensions.Hosting.Host.CreateApplicationBuilder();
        builder.Logging.ClearProviders();
        builder.Logging.AddProvider(logs);
        builder.Logging.SetMinimumLevel(LogLevel.Debug);
        builder.Services.AddSingleton(transport);
        builder.Services.AddSingleton<TimeProvider>(clock);
        builder.Services.AddMessageBus(bus => bus
            .AddMessageType<Order>(TestSerializers.OrderType)
            .ConfigureSerialization(o => o.JsonSerializerContext = TestJsonContext.Default)
            .AddHandler<Order, NoOpHandler>()
            .AddSqsPublisher<Order>("billing")
            .AddQueuePoller("billing", o =>
            {
                o.WaitTime = TimeSpan.FromSeconds(1);
                o.ReceiveErrorDelay = TimeSpan.FromMilliseconds(100);
                o.MaxReceiveErrorDelay = TimeSpan.FromSeconds(5);
            }));
        builder.Services.AddHealthChecks().AddMessageBusChecks(checks);
        return builder.Build();
    }

    public sealed class NoOpHandler : IMessageHandler<Order>
    {
        public Task HandleAsync(MessageEnvelope<Order> envelope, CancellationToken cancellationToken) => Task.CompletedTask;
    }

    /// <summary>Receives and sends through the broker, or fails them with the failure the test sets.</summary>
    private sealed class FailingTransport(InMemoryBroker broker) : ForwardingTransport(broker)
    {
        private int _receives;

        public Func<MessageTransportException>? Failure { get; set; }

        public int Receives => Volatile.Read(ref _receives);

        public override Task<IReadOnlyList<SqsMessage>> ReceiveAsync(string queueName, int maxMessages, TimeSpan waitTime, TimeSpan? visibilityTimeout = null, CancellationToken cancellationToken = default)
        {
            Interlocked.Increment(ref _receives);
            return Failure is { } failure ? Task.FromException<IReadOnlyList<SqsMessage>>(failure()) : base.ReceiveAsync(queueName, maxMessages, waitTime, visibilityTimeout, cancellationToken);
        }

        /// <summary>Gets or sets the one queue whose sends fail, or <c>null</c> for every queue.</summary>
        public string? FailingQueue { get; set; }

        public override Task<string> SendAsync(SqsSendRequest request, CancellationToken cancellationToken = default)
            => Failure is { } failure && (FailingQueue is null || FailingQueue == request.QueueName) ? Task.FromException<string>(failure()) : base.SendAsync(request, cancellationToken);
    }
}
