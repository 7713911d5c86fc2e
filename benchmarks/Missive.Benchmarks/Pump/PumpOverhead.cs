using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Missive.Transport;

namespace Missive.Benchmarks.Pump;

/// <summary>
/// What the bus itself costs per message, apart from any client: the hand loop of <see cref="PumpBenchmark"/> and the
/// pump, both over a transport that answers every receive at once with ten messages and every delete with success
/// (<see cref="FreeTransport"/>). The difference in process CPU time per message is the pump's own work (admission to
/// handler slots, the message's DI scope and its handler, the heartbeat's bookkeeping, the delete batcher, telemetry),
/// which it adds on any client, AWSSDK.SQS's among them. Windows of the two in alternation; medians.
/// </summary>
public static class PumpOverhead
{
    private static readonly TimeSpan Warmup = TimeSpan.FromSeconds(0.3);

    public static void Run(int[] lineCounts, int rounds, TimeSpan window)
    {
        Console.WriteLine($"Pump overhead: the hand loop and the pump (MaxConcurrency 10, handlers that return at once) on a transport that costs nothing; {rounds} rounds of one window each of {window.TotalSeconds:0.#} s; medians. {Environment.ProcessorCount} cores, {Environment.Version}.");
        Console.WriteLine();
        Console.WriteLine("| lines | hand loop: ns CPU per msg | pump: ns CPU per msg | pump - loop: median (middle half of the rounds) | bytes per msg: loop / pump |");
        Console.WriteLine("|---|---:|---:|---|---|");
        foreach (int lines in lineCounts)
        {
            List<string> bodies = PumpBenchmark.Bodies(lines);
            MeasureLoop(bodies, TimeSpan.FromSeconds(1)).GetAwaiter().GetResult(); // unmeasured: the JIT's tiering done first
            MeasurePump(bodies, TimeSpan.FromSeconds(1)).GetAwaiter().GetResult();
            var loops = new List<(double Ns, double Bytes)>();
            var pumps = new List<(double Ns, double Bytes)>();
            for (int round = 0; round < rounds; round++)
            {
                loops.Add(MeasureLoop(bodies, window).GetAwaiter().GetResult());
                pumps.Add(MeasurePump(bodies, window).GetAwaiter().GetResult());
            }

            double[] differences = [.. loops.Zip(pumps, (l, p) => p.Ns - l.Ns).Order()];
            Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"| {lines} | {Median(loops.Select(l => l.Ns)):N0} | {Median(pumps.Select(p => p.Ns)):N0} | {differences[differences.Length / 2]:N0} ({differences[differences.Length / 4]:N0} to {differences[(3 * differences.Length) / 4]:N0}) | {Median(loops.Select(l => l.Bytes)):N0} / {Median(pumps.Select(p => p.Bytes)):N0} |"));
        }
    }

    private static double Median(IEnumerable<double> values)
    {
        double[] sorted = [.. values.Order()];
        return sorted[sorted.Length / 2];
    }

    private static async Task<(double Ns, double Bytes)> MeasureLoop(List<string> bodies, TimeSpan window)
    {
        var transport = new FreeTransport(bodies);
        var counter = new PumpBenchmark.Counter(0);
        using var stop = new CancellationTokenSource();
        Task loop = Task.Run(() => HandLoop(transport, Setup.Inbound, counter, stop.Token));
        (double, double) result = await Measure(counter, window);
        await stop.CancelAsync();
        try
        {
            await loop;
        }
        catch (OperationCanceledException)
        {
        }

        return result;
    }

    private static async Task<(double Ns, double Bytes)> MeasurePump(List<string> bodies, TimeSpan window)
    {
        var counter = new PumpBenchmark.Counter(0);
        HostApplicationBuilder builder = Host.CreateEmptyApplicationBuilder(new HostApplicationBuilderSettings());
        builder.Logging.ClearProviders();
        builder.Services.AddSingleton(counter);
        builder.Services.AddSingleton<IMessageTransport>(new FreeTransport(bodies));
        builder.Services.AddMessageBus(bus => bus
            .AddMessageType<OrderPlaced>(Payloads.OrderType)
            .ConfigureSerialization(o => o.JsonSerializerContext = BenchJsonContext.Default)
            .EnableExperimentalFeatures()
            .AddHandler<OrderPlaced, PumpBenchmark.CountingHandler>()
            .AddQueuePoller("bench", o => o.MaxConcurrency = 10));
        using IHost host = builder.Build();
        await host.StartAsync();
        (double, double) result = await Measure(counter, window);
        await host.StopAsync();
        return result;
    }

    /// <summary>The hand loop of <see cref="PumpBenchmark"/> over <see cref="IMessageTransport"/>: receive ten, read and handle each, delete the ten in one call.</summary>
    private static async Task HandLoop(IMessageTransport transport, InboundMessageReader reader, PumpBenchmark.Counter counter, CancellationToken stop)
    {
        var handlers = new List<Task>(10);
        while (!stop.IsCancellationRequested)
        {
            IReadOnlyList<SqsMessage> messages = await transport.ReceiveAsync("bench", 10, TimeSpan.FromSeconds(20), null, stop);
            var receipts = new List<string>(messages.Count);
            handlers.Clear();
            for (int i = 0; i < messages.Count; i++)
            {
                InboundMessage inbound = reader.Read(messages[i]);
                handlers.Add(counter.HandleAsync((MessageEnvelope<OrderPlaced>)inbound.Envelope!));
                receipts.Add(messages[i].ReceiptHandle);
            }

            await Task.WhenAll(handlers);
            await transport.DeleteBatchAsync("bench", receipts, stop);
        }
    }

    private static async Task<(double Ns, double Bytes)> Measure(PumpBenchmark.Counter counter, TimeSpan window)
    {
        await Task.Delay(Warmup);
        TimeSpan cpu = Process.GetCurrentProcess().TotalProcessorTime;
        long allocated = GC.GetTotalAllocatedBytes(precise: false);
        long handled = counter.Count;
        await Task.Delay(window);
        double messages = counter.Count - handled;
        return ((Process.GetCurrentProcess().TotalProcessorTime - cpu).TotalNanoseconds / messages, (GC.GetTotalAllocatedBytes(precise: false) - allocated) / messages);
    }

    /// <summary>
    /// A queue that is never empty and costs nothing: a receive answers at once with ten messages (the bodies in turn,
    /// ids and receipt handles from a ring made up front, the system attributes the bus reads), a delete succeeds.
    /// </summary>
    private sealed class FreeTransport : IMessageTransport
    {
        private const int Ring = 1024;

        private static readonly Dictionary<string, string> SystemAttributes = new(StringComparer.Ordinal)
        {
            [SqsSystemAttributes.ApproximateReceiveCount] = "1",
            [SqsSystemAttributes.SentTimestamp] = "1762180029441",
        };

        private readonly List<string> _bodies;
        private readonly string[] _ids = new string[Ring];
        private readonly string[] _receipts = new string[Ring];
        private long _next;

        public FreeTransport(List<string> bodies)
        {
            _bodies = bodies;
            for (int i = 0; i < Ring; i++)
            {
                _ids[i] = $"{i:x8}-5f8b-4d7e-b6c2-0e3f1a7d9b24";
                _receipts[i] = $"AQEB{i:x8}" + new string('r', 172);
            }
        }

        public Task<string> SendAsync(SqsSendRequest request, CancellationToken cancellationToken = default) => throw new NotSupportedException();

        public Task<string> PublishAsync(SnsPublishRequest request, CancellationToken cancellationToken = default) => throw new NotSupportedException();

        public Task<string> PutEventAsync(EventBridgeEntry entry, CancellationToken cancellationToken = default) => throw new NotSupportedException();

        public Task<IReadOnlyList<SqsMessage>> ReceiveAsync(string queueName, int maxMessages, TimeSpan waitTime, TimeSpan? visibilityTimeout = null, CancellationToken cancellationToken = default)
        {
            var messages = new List<SqsMessage>(maxMessages);
            for (int i = 0; i < maxMessages; i++)
            {
                int at = (int)(Interlocked.Increment(ref _next) % Ring);
                messages.Add(new SqsMessage { MessageId = _ids[at], ReceiptHandle = _receipts[at], Body = _bodies[at % _bodies.Count], SystemAttributes = SystemAttributes });
            }

            return Task.FromResult<IReadOnlyList<SqsMessage>>(messages);
        }

        public Task<bool> DeleteAsync(string queueName, string receiptHandle, CancellationToken cancellationToken = default) => Task.FromResult(true);

        public Task<bool> ChangeVisibilityAsync(string queueName, string receiptHandle, TimeSpan visibilityTimeout, CancellationToken cancellationToken = default) => Task.FromResult(true);

        public Task<IReadOnlyList<BatchEntryResult>> DeleteBatchAsync(string queueName, IReadOnlyList<string> receiptHandles, CancellationToken cancellationToken = default)
        {
            var results = new BatchEntryResult[receiptHandles.Count];
            for (int i = 0; i < results.Length; i++)
            {
                results[i] = BatchEntryResult.Success(i, null);
            }

            return Task.FromResult<IReadOnlyList<BatchEntryResult>>(results);
        }
    }
}
