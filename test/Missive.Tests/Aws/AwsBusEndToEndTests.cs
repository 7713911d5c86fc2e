using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Diagnostics;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Missive.Aws;
using Missive.Bus;
using Missive.Serialization;
using Missive.Tests.Bus;
using Missive.Tests.Infrastructure;

namespace Missive.Tests.Aws;

/// <summary>The whole bus on Missive.Aws against fauxqs: publishers, SNS fan-out, pollers and handlers in a generic host.</summary>
[Collection(AwsEmulatorCollection.Name)]
public sealed class AwsBusEndToEndTests(AwsEmulatorFixture fixture)
{
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(60);

    private AwsEmulator Emulator => fixture.Emulator;

    [EmulatorTheory]
    [InlineData(AwsTransportSqsTests.BuiltIn)]
    [InlineData(AwsTransportSqsTests.Sdk)]
    public async Task Bus_PublishersPollersAndHandlers_HandleEveryMessageExactlyOnce(string client)
    {
        string name = AwsTransportSqsTests.NewName("bus");
        string topicArn = await Emulator.CreateTopicAsync(name + "-topic");
        await Emulator.CreateQueueAsync(name + "-orders");
        await Emulator.CreateQueueAsync(name + "-audit");
        await Emulator.CreateQueueAsync(name + "-notes");
        await Emulator.SubscribeAsync(topicArn, name + "-orders");
        await Emulator.SubscribeAsync(topicArn, name + "-audit", raw: true);
        var handled = new Handled();
        HostApplicationBuilder builder = Host.CreateApplicationBuilder();
        builder.Logging.ClearProviders();
        builder.Services.AddSingleton(handled);
        builder.Services.AddMessageBus(bus => bus
            .AddMessageType<Order>(TestSerializers.OrderType)
            .AddMessageType<string>(TestSerializers.TextType)
            .ConfigureSerialization(o => o.JsonSerializerContext = TestJsonContext.Default)
            .EnableExperimentalFeatures()
            .AddSnsPublisher<Order>("orders-topic")
            .AddSqsPublisher<string>(name + "-notes", EnvelopeFormat.Protobuf)
            .AddHandler<Order, OrderHandler>()
            .AddHandler<string, NoteHandler>()
            .AddQueuePoller(name + "-orders", o => o.WaitTime = TimeSpan.FromSeconds(1))
            .AddQueuePoller(name + "-audit", o => o.WaitTime = TimeSpan.FromSeconds(1))
            .AddQueuePoller(name + "-notes", o => o.WaitTime = TimeSpan.FromSeconds(1))
            .UseAws(o =>
            {
                Emulator.Apply(o);
                o.TopicArns["orders-topic"] = topicArn;
                o.SqsClient = SqsClient(client);
            }));
        using IHost host = builder.Build();
        await host.StartAsync();
        IMessagePublisher publisher = host.Services.GetRequiredService<IMessagePublisher>();

        const int Orders = 60, Notes = 40;
        await Parallel.ForEachAsync(Enumerable.Range(0, Orders), new ParallelOptions { MaxDegreeOfParallelism = 4 }, async (i, ct) =>
            await publisher.PublishAsync(Infrastructure.Orders.Create(i % 3, customer: $"customer-{i}"), cancellationToken: ct));
        await Parallel.ForEachAsync(Enumerable.Range(0, Notes), new ParallelOptions { MaxDegreeOfParallelism = 4 }, async (i, ct) =>
            await publisher.PublishAsync($"note {i}", cancellationToken: ct));

        var watch = Stopwatch.StartNew();
        while (handled.Total < (Orders * 2) + Notes && watch.Elapsed < Patience)
        {
            await Task.Delay(50);
        }

        await Task.Delay(2000); // anything handled twice would show up by now
        await host.StopAsync();

        // Each order reaches both subscribed queues once; each note its queue once.
        Assert.Equal(Enumerable.Range(0, Orders).Select(i => $"customer-{i}").Order(), handled.ByQueueKind("SnsNotification").Order());
        Assert.Equal(Enumerable.Range(0, Orders).Select(i => $"customer-{i}").Order(), handled.ByQueueKind("Raw-order").Order());
        Assert.Equal(Enumerable.Range(0, Notes).Select(i => $"note {i}").Order(), handled.Notes.Order());
        Assert.Equal(0, (await Emulator.StatsAsync()).Rejected);
    }

    [EmulatorTheory]
    [InlineData("sqs", false)]
    [InlineData("sns", false)]
    [InlineData("sqs", true)]
    public async Task BatchAndCoalescedPublishes_AreSentInBatchCalls_AndEveryMessageArrivesOnce(string route, bool coalesce)
    {
        string name = AwsTransportSqsTests.NewName("bus-batch");
        string queue = name + "-orders";
        await Emulator.CreateQueueAsync(queue);
        string topicArn = await Emulator.CreateTopicAsync(name + "-topic");
        await Emulator.SubscribeAsync(topicArn, queue, raw: true);
        HostApplicationBuilder builder = Host.CreateApplicationBuilder();
        builder.Logging.ClearProviders();
        builder.Services.AddMessageBus(bus =>
        {
            bus.AddMessageType<Order>(TestSerializers.OrderType)
                .ConfigureSerialization(o => o.JsonSerializerContext = TestJsonContext.Default)
                .UseAws(o =>
                {
                    Emulator.Apply(o);
                    o.TopicArns["orders-topic"] = topicArn;
                });
            _ = route == "sqs" ? bus.AddSqsPublisher<Order>(queue) : bus.AddSnsPublisher<Order>("orders-topic");
            if (coalesce)
            {
                bus.CoalescePublishes(TimeSpan.FromMilliseconds(50));
            }
        });
        using IHost host = builder.Build();
        await Emulator.ResetAsync();
        IMessagePublisher publisher = host.Services.GetRequiredService<IMessagePublisher>();
        List<Order> orders = Enumerable.Range(0, 25).Select(i => Infrastructure.Orders.Create(1, customer: $"customer-{i}")).ToList();

        if (coalesce)
        {
            await Task.WhenAll(orders.Select(o => publisher.PublishAsync(o)));
        }
        else
        {
            IReadOnlyList<PublishResult<Order>> results = await publisher.PublishBatchAsync(orders);
            Assert.All(results, r => Assert.True(r.Succeeded, r.Error?.Message));
        }

        var transport = host.Services.GetRequiredService<Missive.Transport.IMessageTransport>();
        var reader = host.Services.GetRequiredService<Missive.Transport.InboundMessageReader>();
        var customers = new List<string>();
        var watch = Stopwatch.StartNew();
        while (customers.Count < orders.Count && watch.Elapsed < Patience)
        {
            foreach (Missive.Transport.SqsMessage message in await transport.ReceiveAsync(queue, 10, TimeSpan.FromSeconds(1)))
            {
                customers.Add(((MessageEnvelope<Order>)reader.Read(message).Envelope!).Message!.CustomerName);
                await transport.DeleteAsync(queue, message.ReceiptHandle);
            }
        }

        Assert.Equal(orders.Select(o => o.CustomerName).Order(), customers.Order());
        int calls = (await Emulator.RequestsAsync()).Count(r => route == "sqs"
            ? r.Headers.GetValueOrDefault("x-amz-target") == "AmazonSQS.SendMessageBatch"
            : r.Body.Contains("Action=PublishBatch", StringComparison.Ordinal));
        Assert.InRange(calls, 3, coalesce ? 6 : 3);
    }

    [EmulatorTheory]
    [InlineData(AwsTransportSqsTests.BuiltIn)]
    [InlineData(AwsTransportSqsTests.Sdk)]
    public async Task VerifyResourcesAtStartup_AsksTheEmulator_AndListsWhatIsMissing(string client)
    {
        string fifo = AwsTransportSqsTests.NewName("verify") + ".fifo";
        string missing = AwsTransportSqsTests.NewName("verify-missing");
        string polled = AwsTransportSqsTests.NewName("verify-polled");
        string topic = AwsTransportSqsTests.NewName("verify-topic");
        await Emulator.CreateQueueAsync(fifo, new Dictionary<string, string> { ["FifoQueue"] = "true" });
        await Emulator.CreateQueueAsync(polled);
        string topicArn = await Emulator.CreateTopicAsync(topic);
        HostApplicationBuilder builder = Host.CreateApplicationBuilder();
        builder.Logging.ClearProviders();
        builder.Services.AddMessageBus(bus => bus
            .AddMessageType<Order>(TestSerializers.OrderType)
            .AddMessageType<Infrastructure.Node>("test.node")
            .ConfigureSerialization(o => o.JsonSerializerContext = TestJsonContext.Default)
            .AddSqsPublisher<Order>(fifo)
            .AddFifoIds<Order>(order => order.OrderId)
            .AddSnsPublisher<Infrastructure.Node>(topicArn)
            .AddQueuePoller(polled, o => o.DeadLetterQueue = missing)
            .UseAws(o =>
            {
                Emulator.Apply(o);
                o.VerifyResourcesAtStartup = true;
                o.SqsClient = SqsClient(client);
            }));
        using IHost host = builder.Build();

        var error = await Assert.ThrowsAsync<MessageBusConfigurationException>(() => host.StartAsync());

        // The FIFO queue deduplicates only by id and AddFifoIds gives none: no problem (a publish may give one in
        // PublishOptions); only the missing dead-letter queue is.
        Assert.StartsWith($"The queue '{missing}' could not be verified: SQS GetQueueUrl on queue '{missing}' failed", Assert.Single(error.Problems), StringComparison.Ordinal);
        Assert.Contains(await Emulator.RequestsAsync(), r => r.Body.Contains("Action=GetTopicAttributes", StringComparison.Ordinal)); // the topic was asked about, and exists
    }

    [EmulatorTheory]
    [InlineData(AwsTransportSqsTests.BuiltIn)]
    [InlineData(AwsTransportSqsTests.Sdk)]
    public async Task SlowHandler_OnSqs_KeepsItsMessageInvisibleWithHeartbeats(string client)
    {
        string queue = AwsTransportSqsTests.NewName("bus-heartbeat");
        await Emulator.CreateQueueAsync(queue);
        var script = new MessagePumpTests.Script { Delay = TimeSpan.FromSeconds(5) };
        HostApplicationBuilder builder = Host.CreateApplicationBuilder();
        builder.Logging.ClearProviders();
        builder.Services.AddSingleton(script);
        builder.Services.AddMessageBus(bus => bus
            .AddMessageType<Order>(TestSerializers.OrderType)
            .ConfigureSerialization(o => o.JsonSerializerContext = TestJsonContext.Default)
            .AddSqsPublisher<Order>(queue)
            .AddHandler<Order, MessagePumpTests.ScriptedHandler>()
            .AddQueuePoller(queue, o =>
            {
                o.WaitTime = TimeSpan.FromSeconds(1);
                o.VisibilityTimeout = TimeSpan.FromSeconds(2);
            })
            .UseAws(o =>
            {
                Emulator.Apply(o);
                o.SqsClient = SqsClient(client);
            }));
        using IHost host = builder.Build();
        await Emulator.ResetAsync();
        await host.StartAsync();

        await host.Services.GetRequiredService<IMessagePublisher>().PublishAsync(Infrastructure.Orders.Create(1));
        await script.Finished(1).WaitAsync(Patience);
        await Task.Delay(2500);
        await host.StopAsync();

        Assert.Equal([1], script.ReceiveCounts);
        // One heartbeat per poller: a tick every quarter second extends what ends within a second and a half, in batch
        // calls: about one extension per half second of the 5-second handler.
        Assert.InRange((await Emulator.RequestsAsync()).Count(r => r.Headers.GetValueOrDefault("x-amz-target") is "AmazonSQS.ChangeMessageVisibilityBatch"), 6, 12);
        Assert.Contains(await Emulator.RequestsAsync(), r => r.Headers.GetValueOrDefault("x-amz-target") == "AmazonSQS.DeleteMessageBatch");
    }

    public sealed class Handled
    {
        private readonly ConcurrentQueue<(string Kind, string Customer)> _orders = new();

        public ConcurrentQueue<string> Notes { get; } = new();

        public int Total => _orders.Count + Notes.Count;

        public void Order(MessageEnvelope<Order> envelope)
            => _orders.Enqueue((envelope.SnsMetadata is null ? "Raw-order" : "SnsNotification", envelope.Message.CustomerName));

        public string[] ByQueueKind(string kind) => _orders.Where(o => o.Kind == kind).Select(o => o.Customer).ToArray();
    }

    public sealed class OrderHandler(Handled handled) : IMessageHandler<Order>
    {
        public Task HandleAsync(MessageEnvelope<Order> envelope, CancellationToken cancellationToken)
        {
            handled.Order(envelope);
            return Task.CompletedTask;
        }
    }

    public sealed class NoteHandler(Handled handled) : IMessageHandler<string>
    {
        public Task HandleAsync(MessageEnvelope<string> envelope, CancellationToken cancellationToken)
        {
            handled.Notes.Enqueue(envelope.Message);
            return Task.CompletedTask;
        }
    }

    /// <summary>The AWS SDK's client for the SDK runs, or <c>null</c> (the built-in client).</summary>
    private Amazon.SQS.AmazonSQSClient? SqsClient(string client) => client == AwsTransportSqsTests.Sdk ? Emulator.CreateSqsClient() : null;
}
