using System;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Missive.Bus;
using Missive.Lambda;
using Missive.Serialization;
using Missive.Tests.Infrastructure;

namespace Missive.Tests.DependencyInjection;

/// <summary>
/// Every configuration mistake that can be known before the first message is reported when the host starts (or, without a
/// generic host, when the first publisher or Lambda processor is resolved): all of them in one
/// <see cref="MessageBusConfigurationException"/>, each with what to write instead.
/// </summary>
public sealed class StartupChecksTests
{
    /// <summary>Eight mistakes, and a piece of the fix each problem must name.</summary>
    private static readonly string[] ExpectedFixes =
    [
        "AddMessageType<Shipment>", // a handler of a type nobody registered
        "AddFifoIds<Order>", // a FIFO destination without a way to get group ids
        "EnableExperimentalFeatures()", // a protobuf publisher without the switch
        "broker.CreateQueue(\"billing\")", // a poller of a queue the in-memory broker lacks
        "broker.CreateTopic(\"notes\")", // a publisher to a topic it lacks
        "MaxJsonDepth", // a serialization option out of range
        "MaxMessagesPerReceive 11", // a poller option out of range
        "registered twice", // a type identifier given twice
    ];

    [Fact]
    public async Task EveryMistake_IsReportedWhenTheHostStarts_InOneExceptionWithTheFixes()
    {
        using IHost host = Host(Mistakes);

        var error = await Assert.ThrowsAsync<MessageBusConfigurationException>(() => host.StartAsync());

        AssertEveryFix(error);
    }

    [Fact]
    public void WithoutAGenericHost_TheFirstPublisherOrLambdaProcessor_ReportsTheSame()
    {
        using ServiceProvider publishing = Provider(Mistakes);
        using ServiceProvider lambda = Provider(Mistakes);

        AssertEveryFix(Assert.Throws<MessageBusConfigurationException>(() => publishing.GetRequiredService<IMessagePublisher>()));
        AssertEveryFix(Assert.Throws<MessageBusConfigurationException>(() => lambda.GetRequiredService<SqsEventProcessor>()));
        Assert.Throws<MessageBusConfigurationException>(() => publishing.GetRequiredService<IMessagePublisher>()); // again, every time
    }

    [Fact]
    public async Task NoTransport_WithPublishersOrPollers_IsReportedAtStartup()
    {
        using IHost host = Host(bus => bus.AddSqsPublisher<Order>("orders"), transport: false);

        var error = await Assert.ThrowsAsync<MessageBusConfigurationException>(() => host.StartAsync());

        Assert.Contains("No transport is configured", error.Message, StringComparison.Ordinal);
        Assert.Contains("UseInMemoryBroker", error.Message, StringComparison.Ordinal);
        Assert.Contains("UseAws", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task AnSnsTopicWithoutAnArn_AndAwsOptionsOutOfRange_AreReportedWithTheRest()
    {
        HostApplicationBuilder builder = Microsoft.Extensions.Hosting.Host.CreateApplicationBuilder();
        builder.Logging.ClearProviders();
        builder.Services.AddMessageBus(bus => bus
            .AddMessageType<Order>(TestSerializers.OrderType)
            .ConfigureSerialization(o => o.JsonSerializerContext = TestJsonContext.Default)
            .AddSnsPublisher<Order>("orders")
            .AddHandler<Shipment, ShipmentHandler>()
            .UseAws(o =>
            {
                o.Region = "eu-west-1";
                o.Credentials = Aws.AwsEmulator.Credentials;
                o.MaxAttempts = 0;
            }));
        using IHost host = builder.Build();

        var error = await Assert.ThrowsAsync<MessageBusConfigurationException>(() => host.StartAsync());

        Assert.Equal(3, error.Problems.Count);
        Assert.Contains(error.Problems, p => p.Contains("TopicArns:orders = arn:aws:sns:", StringComparison.Ordinal));
        Assert.Contains(error.Problems, p => p.Contains("MaxAttempts is 0", StringComparison.Ordinal));
        Assert.Contains(error.Problems, p => p.Contains("AddMessageType<Shipment>", StringComparison.Ordinal));
    }

    [Fact]
    public async Task PublishingNull_IsAnArgumentError_AndAnUnregisteredType_IsToldToAddMessageTypeFirst()
    {
        using IHost host = Host(bus => bus.AddSqsPublisher<Order>("orders"), topology: b => b.CreateQueue("orders"));
        IMessagePublisher publisher = host.Services.GetRequiredService<IMessagePublisher>();

        await Assert.ThrowsAsync<ArgumentNullException>(() => publisher.PublishAsync<Order>(null!));
        var unregistered = await Assert.ThrowsAsync<MessageBusConfigurationException>(() => publisher.PublishAsync(new Shipment()));

        Assert.StartsWith($"{typeof(Shipment).FullName} is not a registered message type: add AddMessageType<Shipment>", unregistered.Message, StringComparison.Ordinal);
    }

    private static void Mistakes(MessageBusBuilder bus) => bus
        .AddMessageType<string>("notes")
        .AddMessageType<byte[]>("notes")
        .ConfigureSerialization(o => o.MaxJsonDepth = 0)
        .AddHandler<Shipment, ShipmentHandler>()
        .AddSqsPublisher<Order>("orders.fifo")
        .AddSnsPublisher<string>("notes", EnvelopeFormat.Protobuf)
        .AddQueuePoller("billing")
        .AddQueuePoller("orders.fifo", o => o.MaxMessagesPerReceive = 11);

    private static void AssertEveryFix(MessageBusConfigurationException error)
    {
        Assert.Equal(ExpectedFixes.Length, error.Problems.Count);
        foreach (string fix in ExpectedFixes)
        {
            Assert.Contains(error.Problems, problem => problem.Contains(fix, StringComparison.Ordinal));
            Assert.Contains(fix, error.Message, StringComparison.Ordinal);
        }
    }

    private static IHost Host(Action<MessageBusBuilder> configure, bool transport = true, Action<Missive.InMemory.InMemoryBroker>? topology = null)
    {
        HostApplicationBuilder builder = Microsoft.Extensions.Hosting.Host.CreateApplicationBuilder();
        builder.Logging.ClearProviders();
        builder.Services.AddMessageBus(bus => Configure(bus, configure, transport, topology));
        return builder.Build();
    }

    private static ServiceProvider Provider(Action<MessageBusBuilder> configure)
        => new ServiceCollection().AddMessageBus(bus => Configure(bus, configure, transport: true, topology: null)).BuildServiceProvider();

    private static void Configure(MessageBusBuilder bus, Action<MessageBusBuilder> configure, bool transport, Action<Missive.InMemory.InMemoryBroker>? topology)
    {
        bus.AddMessageType<Order>(TestSerializers.OrderType).ConfigureSerialization(o => o.JsonSerializerContext = TestJsonContext.Default);
        configure(bus);
        if (transport)
        {
            bus.UseInMemoryBroker(topology ?? (b => b.CreateQueue("orders.fifo", o => o.ContentBasedDeduplication = true)));
        }
    }

    private sealed class ShipmentHandler : IMessageHandler<Shipment>
    {
        public Task HandleAsync(MessageEnvelope<Shipment> envelope, CancellationToken cancellationToken) => Task.CompletedTask;
    }
}
