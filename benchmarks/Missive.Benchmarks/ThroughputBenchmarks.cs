using System;
using System.Threading;
using System.Threading.Tasks;
using BenchmarkDotNet.Attributes;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Missive.Bus;
using Missive.Serialization;

namespace Missive.Benchmarks;

/// <summary>
/// Messages through the whole bus: publish → SNS topic → SQS queue (notification JSON) → pump →
/// handler, with <see cref="Publishers"/> concurrent publishers. One operation is one message; the
/// throughput is 1 / mean.
/// </summary>
[MemoryDiagnoser]
public class ThroughputBenchmarks
{
    public const int MessagesPerInvocation = 200;

    private IHost _host = null!;
    private IMessagePublisher _publisher = null!;
    private Counter _counter = null!;
    private OrderPlaced _order = null!;

    public static int[] PublisherValues => Setup.Quick ? [1, 4] : [1, 2, 4, 8];

    [ParamsSource(nameof(PublisherValues))]
    public int Publishers { get; set; }

    [Params("Standard", "ExperimentalJson", "Protobuf")]
    public string Path { get; set; } = "Standard";

    [GlobalSetup]
    public void GlobalSetup()
    {
        _counter = new Counter();
        _order = Payloads.Order(10);
        HostApplicationBuilder builder = Host.CreateApplicationBuilder();
        builder.Logging.ClearProviders();
        builder.Services.AddSingleton(_counter);
        builder.Services.AddMessageBus(bus =>
        {
            bus.AddMessageType<OrderPlaced>(Payloads.OrderType);
            bus.ConfigureSerialization(o => o.JsonSerializerContext = BenchJsonContext.Default);
            bus.AddSnsPublisher<OrderPlaced>("orders");
            bus.AddHandler<OrderPlaced, CountingHandler>();
            bus.AddQueuePoller("orders-queue", o => { o.MaxConcurrency = 16; o.WaitTime = TimeSpan.FromSeconds(1); });
            bus.UseInMemoryBroker(broker =>
            {
                broker.CreateTopic("orders");
                broker.Subscribe("orders", "orders-queue");
            });
            if (Path != "Standard")
            {
                bus.EnableExperimentalFeatures(x => x.PublishFormat = Path == "Protobuf" ? EnvelopeFormat.Protobuf : EnvelopeFormat.Json);
            }
        });
        _host = builder.Build();
        _host.StartAsync().GetAwaiter().GetResult();
        _publisher = _host.Services.GetRequiredService<IMessagePublisher>();
    }

    [GlobalCleanup]
    public void GlobalCleanup()
    {
        _host.StopAsync().GetAwaiter().GetResult();
        _host.Dispose();
    }

    [Benchmark(OperationsPerInvoke = MessagesPerInvocation, Description = "Publish → SNS → SQS → handler")]
    public async Task EndToEnd()
    {
        Task done = _counter.Expect(MessagesPerInvocation);
        var publishers = new Task[Publishers];
        int perPublisher = MessagesPerInvocation / Publishers;
        for (int p = 0; p < Publishers; p++)
        {
            int count = p == Publishers - 1 ? MessagesPerInvocation - (perPublisher * (Publishers - 1)) : perPublisher;
            publishers[p] = PublishMany(count);
        }

        await Task.WhenAll(publishers).ConfigureAwait(false);
        await done.WaitAsync(TimeSpan.FromSeconds(60)).ConfigureAwait(false);
    }

    private async Task PublishMany(int count)
    {
        await Task.Yield();
        for (int i = 0; i < count; i++)
        {
            await _publisher.PublishAsync(_order).ConfigureAwait(false);
        }
    }

    public sealed class Counter
    {
        private int _remaining;
        private TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public Task Expect(int count)
        {
            _done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            Volatile.Write(ref _remaining, count);
            return _done.Task;
        }

        public void Handled()
        {
            if (Interlocked.Decrement(ref _remaining) == 0)
            {
                _done.TrySetResult();
            }
        }
    }

    public sealed class CountingHandler(Counter counter) : IMessageHandler<OrderPlaced>
    {
        public Task HandleAsync(MessageEnvelope<OrderPlaced> envelope, CancellationToken cancellationToken)
        {
            counter.Handled();
            return Task.CompletedTask;
        }
    }
}
