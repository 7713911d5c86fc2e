using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Diagnostics.Metrics;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Missive.Bus;
using Missive.Diagnostics;
using Missive.InMemory;
using Missive.Json;
using Missive.Serialization;
using Missive.Tests.Infrastructure;
using Missive.Transport;

namespace Missive.Tests.Diagnostics;

/// <summary>
/// A <see cref="MeterListener"/> on the bus's meter sees every counter and histogram with the values of a run with
/// successes, a failure and its retry, and a message of an unregistered type that the fallback handler dead-letters.
/// </summary>
public sealed class MetricsTests
{
    [Fact]
    public async Task EveryInstrument_CountsWhatHappened()
    {
        var failOnce = new FailOnce("ORD-B");
        using IHost host = BusTestHost.Build(
            b =>
            {
                b.CreateQueue("orders-dlq");
                b.CreateQueue("orders");
            },
            bus => bus
                .AddSqsPublisher<Order>("orders")
                .AddHandler<Order, FailingOnceHandler>()
                .AddFallbackHandler<DeadLetterEverything>()
                .AddQueuePoller("orders", o =>
                {
                    o.WaitTime = TimeSpan.FromMilliseconds(50);
                    o.RetryDelay = TimeSpan.Zero;
                    o.DeadLetterQueue = "orders-dlq";
                }),
            services => services.AddSingleton(failOnce));
        Meter meter = host.Services.GetRequiredService<BusTelemetry>().Meter;
        var measurements = new ConcurrentQueue<(string Instrument, double Value, Dictionary<string, object?> Tags)>();
        using var listener = new MeterListener();
        listener.InstrumentPublished = (instrument, l) =>
        {
            if (ReferenceEquals(instrument.Meter, meter))
            {
                l.EnableMeasurementEvents(instrument);
            }
        };
        listener.SetMeasurementEventCallback<long>((instrument, value, tags, _) => measurements.Enqueue((instrument.Name, value, ToDictionary(tags))));
        listener.SetMeasurementEventCallback<double>((instrument, value, tags, _) => measurements.Enqueue((instrument.Name, value, ToDictionary(tags))));
        listener.Start();

        InMemoryBroker broker = host.Services.GetRequiredService<InMemoryBroker>();
        IMessagePublisher publisher = host.Services.GetRequiredService<IMessagePublisher>();
        foreach (string id in new[] { "ORD-A", "ORD-B", "ORD-C" })
        {
            Order order = Orders.Create(1);
            order.OrderId = id;
            await publisher.PublishAsync(order);
        }

        await broker.SendAsync(new SqsSendRequest { QueueName = "orders", Body = UnregisteredEnvelope() });
        await host.StartAsync();
        await BusTestHost.WaitUntil(() => broker.GetQueue("orders").Count == 0 && broker.GetQueue("orders-dlq").Count == 1 && failOnce.Handled == 3);
        await BusTestHost.WaitUntil(() => Sum(measurements, "missive.messages.handled") == 3);
        await host.StopAsync();

        Assert.Equal(3, Sum(measurements, "messaging.client.sent.messages"));
        Assert.All(Of(measurements, "messaging.client.sent.messages"), m => Assert.Equal("aws_sqs", m.Tags["messaging.system"]));
        Assert.Equal(5, Sum(measurements, "messaging.client.consumed.messages")); // A, B twice, C, and the unregistered one
        Assert.Equal(3, Sum(measurements, "missive.messages.handled"));
        Assert.All(Of(measurements, "missive.messages.handled"), m => Assert.Equal(TestSerializers.OrderType, m.Tags["cloudevents.event_type"]));
        Assert.Equal(1, Sum(measurements, "missive.messages.failed"));
        Assert.Equal(typeof(InvalidOperationException).FullName, Of(measurements, "missive.messages.failed").Single().Tags["error.type"]);
        Assert.Equal(1, Sum(measurements, "missive.messages.redelivered"));
        Assert.Equal(1, Sum(measurements, "missive.messages.dead_lettered"));
        Assert.Equal("legacy.order", Of(measurements, "missive.messages.dead_lettered").Single().Tags["cloudevents.event_type"]);

        // One handler duration per handler run (three successes, one failure, one fallback), tagged by queue and type.
        var durations = Of(measurements, "messaging.process.duration");
        Assert.Equal(5, durations.Count);
        Assert.All(durations, m => Assert.Equal("orders", m.Tags["messaging.destination.name"]));
        Assert.All(durations, m => Assert.InRange(m.Value, 0, 30));
        Assert.Single(durations, m => (string?)m.Tags.GetValueOrDefault("error.type") == typeof(InvalidOperationException).FullName);

        // Envelope sizes: three published, five received, each the UTF-8 size of its body.
        var sizes = Of(measurements, "missive.envelope.size");
        Assert.Equal(3, sizes.Count(m => (string?)m.Tags["messaging.operation.type"] == "send"));
        Assert.Equal(5, sizes.Count(m => (string?)m.Tags["messaging.operation.type"] == "process"));
        Assert.All(sizes, m => Assert.InRange(m.Value, 300, 2000));
    }

    [Fact]
    public void ErrorType_IsATransportFailuresErrorCode_ElseTheExceptionsType()
    {
        using var telemetry = new BusTelemetry(null);
        var measurements = new ConcurrentQueue<(string Instrument, double Value, Dictionary<string, object?> Tags)>();
        using var listener = new MeterListener();
        listener.InstrumentPublished = (instrument, l) =>
        {
            if (ReferenceEquals(instrument.Meter, telemetry.Meter))
            {
                l.EnableMeasurementEvents(instrument);
            }
        };
        listener.SetMeasurementEventCallback<long>((instrument, value, tags, _) => measurements.Enqueue((instrument.Name, value, ToDictionary(tags))));
        listener.SetMeasurementEventCallback<double>((instrument, value, tags, _) => measurements.Enqueue((instrument.Name, value, ToDictionary(tags))));
        listener.Start();

        telemetry.Published("aws_sns", "publish", "orders", "t", -1, TimeSpan.Zero, new MessageTransportException("refused") { ErrorCode = "AuthorizationError", FailureKind = TransportFailureKind.Persistent });
        telemetry.Published("aws_sns", "publish", "orders", "t", -1, TimeSpan.Zero, new MessageTransportException("unavailable") { ErrorCode = "InternalError", FailureKind = TransportFailureKind.Transient });
        telemetry.Published("aws_sns", "publish", "orders", "t", -1, TimeSpan.Zero, new InvalidOperationException("a bug"));
        telemetry.ReceiveCalled("orders", TimeSpan.Zero, new MessageTransportException("refused") { ErrorCode = "ConnectionFailure", FailureKind = TransportFailureKind.Transient });

        Assert.Equal(["AuthorizationError", "InternalError", typeof(InvalidOperationException).FullName], Of(measurements, "messaging.client.sent.messages").Select(m => (string?)m.Tags["error.type"]));
        Assert.Contains(Of(measurements, "messaging.client.operation.duration"), m => (string?)m.Tags["error.type"] == "ConnectionFailure" && (string?)m.Tags["messaging.operation.name"] == "receive");
    }

    private static string UnregisteredEnvelope()
    {
        // Written by an application that knows orders as "legacy.order", which this one does not register.
        var map = new MessageTypeMap(new SerializationOptions { JsonSerializerContext = TestJsonContext.Default });
        map.Add<Order>("legacy.order");
        using var serializer = new Utf8JsonEnvelopeSerializer(map);
        return serializer.SerializeToString(new EnvelopeFactory(map, "/legacy", TimeProvider.System).CreateEnvelope(Orders.Create(1)));
    }

    private static List<(string Instrument, double Value, Dictionary<string, object?> Tags)> Of(ConcurrentQueue<(string Instrument, double Value, Dictionary<string, object?> Tags)> all, string name)
        => all.Where(m => m.Instrument == name).ToList();

    private static double Sum(ConcurrentQueue<(string Instrument, double Value, Dictionary<string, object?> Tags)> all, string name)
        => Of(all, name).Sum(m => m.Value);

    private static Dictionary<string, object?> ToDictionary(ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        var result = new Dictionary<string, object?>(StringComparer.Ordinal);
        foreach (KeyValuePair<string, object?> tag in tags)
        {
            result[tag.Key] = tag.Value;
        }

        return result;
    }

    public sealed class FailOnce(string orderId)
    {
        private int _failed;
        private int _handled;

        public int Handled => Volatile.Read(ref _handled);

        public void Run(Order order)
        {
            if (order.OrderId == orderId && Interlocked.Exchange(ref _failed, 1) == 0)
            {
                throw new InvalidOperationException("the first attempt fails");
            }

            Interlocked.Increment(ref _handled);
        }
    }

    public sealed class FailingOnceHandler(FailOnce script) : IMessageHandler<Order>
    {
        public Task HandleAsync(MessageEnvelope<Order> envelope, CancellationToken cancellationToken)
        {
            script.Run(envelope.Message);
            return Task.CompletedTask;
        }
    }

    private sealed class DeadLetterEverything : IFallbackMessageHandler
    {
        public Task<HandleOutcome> HandleAsync(MessageEnvelope<UnregisteredMessage> envelope, CancellationToken cancellationToken) => Task.FromResult(HandleOutcome.DeadLetter);
    }
}
