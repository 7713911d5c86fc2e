using System;
using System.Collections.Generic;
using System.Linq;
using System.Net.Http;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Missive.Aws;
using Missive.Bus;
using Missive.InMemory;
using Missive.Serialization;
using Missive.Tests.Infrastructure;
using Missive.Transport;
using Xunit.Abstractions;

namespace Missive.Tests.Bus;

/// <summary>
/// What the pump costs in requests and exceptions on a backlog, counted on the transport (no timing is asserted):
/// every receive asks for and gets a full batch, deletes go ten at a time, at most 0.22 billable requests per message,
/// and not one exception is thrown (first chance) for a message handled successfully, whether the handler returns at
/// once or takes 5 ms, with 10 or 64 handler slots, on the in-memory broker and through the AWS transport over an
/// SQS endpoint in process.
/// </summary>
[Collection(ProcessAllocationCollection.Name)]
public sealed class PumpCostTests(ITestOutputHelper output)
{
    private const int Backlog = 1000;

    /// <summary>Set in this test's flow (and so in every task and timer its host starts): first-chance exceptions are
    /// process-wide, and tests running beside it (the emulator tests drop connections on purpose) throw their own.</summary>
    private static readonly AsyncLocal<bool> InThisTest = new();

    public static TheoryData<string, int, int> Cases()
    {
        var cases = new TheoryData<string, int, int>();
        foreach (string transport in new[] { "in-memory", "aws" })
        {
            foreach (int handlerMs in new[] { 0, 5 })
            {
                foreach (int concurrency in new[] { 10, 64 })
                {
                    cases.Add(transport, handlerMs, concurrency);
                }
            }
        }

        return cases;
    }

    [Theory]
    [MemberData(nameof(Cases))]
    public async Task OnABacklog_EveryCallIsFull_AndNoExceptionIsThrown(string transport, int handlerMs, int concurrency)
    {
        var handled = new Counter { Delay = TimeSpan.FromMilliseconds(handlerMs) };
        Counts counts;
        int exceptions = 0;
        var firstChance = new List<string>();
        InThisTest.Value = true;
        void OnException(object? sender, System.Runtime.ExceptionServices.FirstChanceExceptionEventArgs e)
        {
            if (!InThisTest.Value)
            {
                return; // another test's
            }

            Interlocked.Increment(ref exceptions);
            lock (firstChance)
            {
                firstChance.Add(e.Exception.GetType().Name + ": " + e.Exception.Message);
            }
        }

        if (transport == "aws")
        {
            using ServiceProvider bodies = BodyServices();
            var endpoint = new FakeSqsEndpoint(await Bodies(bodies), backlog: Backlog / 10);
            var options = new AwsTransportOptions { Region = "eu-west-1", Credentials = Aws.AwsEmulator.Credentials };
            options.QueueUrls["bench"] = new Uri(FakeSqsEndpoint.QueueUrl);
            AwsSettings settings = AwsSettings.Resolve(options, static _ => null);
            using var aws = new AwsTransport(options, settings, service => new HttpClient(AwsTransport.CreateSigningHandler(settings, service, endpoint), disposeHandler: false), TimeProvider.System);
            await Run(aws, handled, concurrency, OnException);

            counts = new Counts(endpoint.Receives - endpoint.EmptyReceives, endpoint.Received, endpoint.DeleteCalls, endpoint.Deleted, endpoint.VisibilityCalls);
        }
        else
        {
            var broker = new InMemoryBroker();
            broker.CreateQueue("bench");
            var counting = new CountingTransport(broker);
            using (ServiceProvider bodies = BodyServices())
            {
                foreach (string body in await Bodies(bodies, Backlog))
                {
                    await broker.SendAsync(new SqsSendRequest { QueueName = "bench", Body = body });
                }
            }

            await Run(counting, handled, concurrency, OnException);

            counts = counting.Counts;
        }

        double perReceive = (double)counts.Received / counts.Receives;
        double perDelete = (double)counts.Deleted / counts.DeleteCalls;
        double requests = (double)(counts.Receives + counts.DeleteCalls + counts.VisibilityCalls) / handled.Count;
        output.WriteLine($"{transport}, {handlerMs} ms handler, MaxConcurrency {concurrency}: {handled.Count} handled; {perReceive:F2} messages per receive, {perDelete:F2} per delete, {requests:F3} requests per message, {exceptions} first-chance exceptions");
        Assert.Equal(Backlog, handled.Count);
        Assert.True(perReceive >= 9, $"{perReceive:F2} messages per receive");
        Assert.True(perDelete >= 9, $"{perDelete:F2} messages per delete call");
        Assert.True(requests <= 0.22, $"{requests:F3} requests per message");
        Assert.True(exceptions == 0, "first-chance exceptions: " + string.Join("; ", firstChance.Take(5)));
    }

    /// <summary>Runs the bus until the backlog is handled; exceptions are watched from start to the last delete, not during shutdown (which cancels a long poll).</summary>
    private static async Task Run(IMessageTransport transport, Counter handled, int concurrency, EventHandler<System.Runtime.ExceptionServices.FirstChanceExceptionEventArgs> onException)
    {
        HostApplicationBuilder builder = Host.CreateApplicationBuilder();
        builder.Logging.ClearProviders();
        builder.Services.AddSingleton(handled);
        builder.Services.AddSingleton(transport);
        builder.Services.AddMessageBus(bus => bus
            .AddMessageType<Order>(TestSerializers.OrderType)
            .ConfigureSerialization(o => o.JsonSerializerContext = TestJsonContext.Default)
            .EnableExperimentalFeatures()
            .AddHandler<Order, CountingHandler>()
            .AddQueuePoller("bench", o => o.MaxConcurrency = concurrency));
        using IHost host = builder.Build();
        AppDomain.CurrentDomain.FirstChanceException += onException;
        try
        {
            await host.StartAsync();
            await BusTestHost.WaitUntil(() => handled.Count >= Backlog);
            await Task.Delay(100); // the last delete batch goes out after 20 ms at most
        }
        finally
        {
            AppDomain.CurrentDomain.FirstChanceException -= onException;
        }

        await host.StopAsync();
    }

    private static ServiceProvider BodyServices()
    {
        var services = new ServiceCollection();
        services.AddMessageBus(bus => bus
            .AddMessageType<Order>(TestSerializers.OrderType)
            .ConfigureSerialization(o => o.JsonSerializerContext = TestJsonContext.Default)
            .EnableExperimentalFeatures());
        return services.BuildServiceProvider();
    }

    private static Task<List<string>> Bodies(IServiceProvider services, int count = 16)
    {
        var writer = new OutboundMessageWriter(services.GetRequiredService<IEnvelopeSerializerProvider>());
        var factory = services.GetRequiredService<IEnvelopeFactory>();
        var bodies = new List<string>(count);
        for (int i = 0; i < count; i++)
        {
            bodies.Add(writer.ToSqs(factory.CreateEnvelope(Orders.Create(1)), "bench").Body);
        }

        return Task.FromResult(bodies);
    }

    private readonly record struct Counts(long Receives, long Received, long DeleteCalls, long Deleted, long VisibilityCalls);

    public sealed class Counter
    {
        private int _count;

        public TimeSpan Delay { get; init; }

        public int Count => Volatile.Read(ref _count);

        public Task HandleAsync()
        {
            if (Delay == TimeSpan.Zero)
            {
                Interlocked.Increment(ref _count);
                return Task.CompletedTask;
            }

            return HandleSlowlyAsync();
        }

        private async Task HandleSlowlyAsync()
        {
            await Task.Delay(Delay);
            Interlocked.Increment(ref _count);
        }
    }

    public sealed class CountingHandler(Counter counter) : IMessageHandler<Order>
    {
        public Task HandleAsync(MessageEnvelope<Order> envelope, CancellationToken cancellationToken) => counter.HandleAsync();
    }

    /// <summary>Counts the calls that returned messages, the messages, and the batch calls.</summary>
    private sealed class CountingTransport(InMemoryBroker broker) : ForwardingTransport(broker), IMessageTransport
    {
        private long _receives, _received, _deleteCalls, _deleted, _visibilityCalls;

        public Counts Counts => new(Interlocked.Read(ref _receives), Interlocked.Read(ref _received), Interlocked.Read(ref _deleteCalls), Interlocked.Read(ref _deleted), Interlocked.Read(ref _visibilityCalls));

        public override async Task<IReadOnlyList<SqsMessage>> ReceiveAsync(string queueName, int maxMessages, TimeSpan waitTime, TimeSpan? visibilityTimeout = null, CancellationToken cancellationToken = default)
        {
            IReadOnlyList<SqsMessage> messages = await base.ReceiveAsync(queueName, maxMessages, waitTime, visibilityTimeout, cancellationToken);
            if (messages.Count > 0)
            {
                Interlocked.Increment(ref _receives);
                Interlocked.Add(ref _received, messages.Count);
            }

            return messages;
        }

        public override Task<IReadOnlyList<BatchEntryResult>> DeleteBatchAsync(string queueName, IReadOnlyList<string> receiptHandles, CancellationToken cancellationToken = default)
        {
            Interlocked.Increment(ref _deleteCalls);
            Interlocked.Add(ref _deleted, receiptHandles.Count);
            return base.DeleteBatchAsync(queueName, receiptHandles, cancellationToken);
        }

        public Task<IReadOnlyList<BatchEntryResult>> ChangeVisibilityBatchAsync(string queueName, IReadOnlyList<string> receiptHandles, TimeSpan visibilityTimeout, CancellationToken cancellationToken = default)
        {
            Interlocked.Increment(ref _visibilityCalls);
            return ((IMessageTransport)Inner).ChangeVisibilityBatchAsync(queueName, receiptHandles, visibilityTimeout, cancellationToken);
        }
    }
}
