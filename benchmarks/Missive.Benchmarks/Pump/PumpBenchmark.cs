using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.Linq;
using System.Net.Http;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using Amazon.Runtime;
using Amazon.SQS;
using Amazon.SQS.Model;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Missive.Aws;
using Missive.Bus;
using Missive.Serialization;
using Missive.Tests.Infrastructure;
using Missive.Transport;

namespace Missive.Benchmarks.Pump;

/// <summary>
/// The whole bus consuming a backlog, against a loop a user could write on the official client, both over the same SQS
/// endpoint in process (<see cref="FakeSqsEndpoint"/>, no socket). Measured per window, the two in alternation: messages
/// per second of process CPU time (a hop to the thread pool costs CPU that wall time hides), bytes allocated per message
/// (the whole process), messages per receive and per delete call, and billable requests per message.
/// </summary>
/// <remarks>
/// <list type="bullet">
/// <item>Missive: a generic host with <c>AddQueuePoller</c> (default <see cref="PollerOptions"/> but <c>MaxConcurrency</c>),
/// <c>EnableExperimentalFeatures()</c>, a handler that counts (or takes 5 ms), the AWS transport over the endpoint
/// (every request signed).</item>
/// <item>Missive again with the same transport on AWSSDK.SQS's client (<see cref="AwsTransportOptions.SqsClient"/>): the
/// pump's own cost on the official client.</item>
/// <item>The hand loop, on AWSSDK.SQS: receive 10, read each body with the same <see cref="InboundMessageReader"/>,
/// run the handlers (at once, or the 5 ms ones side by side), <c>DeleteMessageBatch</c> the 10.</item>
/// </list>
/// </remarks>
public static class PumpBenchmark
{
    private static readonly TimeSpan Warmup = TimeSpan.FromSeconds(0.3);

    private static readonly TimeSpan WarmUpWindow = TimeSpan.FromSeconds(0.5);

    /// <summary>The pump's configurations: <c>MaxConcurrency</c>, and whether SQS goes through AWSSDK.SQS's client.</summary>
    private static readonly (int Concurrency, bool Sdk)[] Configurations = [(10, false), (64, false), (10, true), (64, true)];

    public static void Run(string[] args)
    {
        if (args.Contains("--overhead"))
        {
            // The bus's own cost per message, on a transport that costs nothing (PumpOverhead).
            PumpOverhead.Run(Option(args, "--lines") is { } n ? [n] : [1, 10], args.Contains("--short") ? 7 : 15, TimeSpan.FromSeconds(args.Contains("--short") ? 0.5 : 1));
            return;
        }

        int one = Array.IndexOf(args, "--one");
        if (one >= 0)
        {
            // For a profiler: one configuration for a long window, "--one loop|builtin|sdk <lines> <seconds>".
            string which = args[one + 1];
            List<string> oneBodies = Bodies(int.Parse(args[one + 2], CultureInfo.InvariantCulture));
            var span = TimeSpan.FromSeconds(int.Parse(args[one + 3], CultureInfo.InvariantCulture));
            Window w = which == "loop" ? RunLoop(oneBodies, 0, span).GetAwaiter().GetResult() : RunPump(oneBodies, 0, 10, which == "sdk", span).GetAwaiter().GetResult();
            GCMemoryInfo young = GC.GetGCMemoryInfo(GCKind.Ephemeral);
            Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{which}: {w.PerCpuSecond:N0} msg per CPU-s, {w.PerWallSecond:N0} msg per s, {w.BytesPerMessage:N0} bytes per msg, {w.WorkItemsPerMessage:F4} thread-pool work items per msg, {w.ContentionsPerMessage:F3} lock contentions per msg, {w.JitMsPerSecond:F1} ms JIT per s, {w.CompiledMethods} methods compiled, {w.Gen0PerThousand:F2} gen0 GCs per 1000 msg, {w.PauseNsPerMessage:N0} ns GC pause per msg, {young.PromotedBytes:N0} bytes promoted by the last young collection, gen0 budget {young.GenerationInfo[0].SizeBeforeBytes:N0}"));
            return;
        }

        // Many short windows, the configurations in turn: the shared machine's speed drifts over seconds, so a ratio is
        // taken within each round (a pump's window against the loop's window of that round) and its median reported,
        // with the spread of the middle half of the rounds.
        TimeSpan window = TimeSpan.FromSeconds(args.Contains("--short") ? 0.5 : 1);
        int rounds = args.Contains("--short") ? 7 : 15;
        // "--lines 1" or "--handler 0" measure one row group only (a quicker comparison while working on the pump).
        int[] lineCounts = Option(args, "--lines") is { } l ? [l] : [1, 10];
        int[] handlerTimes = Option(args, "--handler") is { } h ? [h] : [0, 5];
        // One unmeasured run of every configuration first: the JIT's tiering (whose thread's CPU is the process's) is then
        // done before any window is measured, so that no configuration pays for compiling the code the others share.
        foreach (int lines in lineCounts)
        {
            List<string> warmBodies = Bodies(lines);
            foreach (int handlerMs in handlerTimes)
            {
                RunLoop(warmBodies, handlerMs, WarmUpWindow).GetAwaiter().GetResult();
                foreach ((int concurrency, bool sdk) in Configurations)
                {
                    RunPump(warmBodies, handlerMs, concurrency, sdk, WarmUpWindow).GetAwaiter().GetResult();
                }
            }
        }

        Console.WriteLine($"Pump: one unmeasured run of each configuration, then {rounds} rounds of one window each of {window.TotalSeconds:0.#} s (after {Warmup.TotalSeconds:0.#} s of warm-up); medians, ratios per round. {Environment.ProcessorCount} cores, {Environment.Version}.");
        Console.WriteLine();
        Console.WriteLine("| lines | handler | MaxConcurrency | client | msg per CPU-s | msg per s (wall) | bytes per msg | msg per receive | msg per delete | requests per msg | JIT ms per s (mean) | Missive / loop (CPU): median | middle half of the rounds |");
        Console.WriteLine("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
        foreach (int lines in lineCounts)
        {
            List<string> bodies = Bodies(lines);
            foreach (int handlerMs in handlerTimes)
            {
                var loopRuns = new List<Window>();
                var pumpRuns = Configurations.ToDictionary(c => c, _ => new List<Window>());
                for (int round = 0; round < rounds; round++)
                {
                    loopRuns.Add(RunLoop(bodies, handlerMs, window).GetAwaiter().GetResult());
                    foreach ((int concurrency, bool sdk) in pumpRuns.Keys)
                    {
                        pumpRuns[(concurrency, sdk)].Add(RunPump(bodies, handlerMs, concurrency, sdk, window).GetAwaiter().GetResult());
                    }
                }

                Print(lines, handlerMs, "-", "hand loop (AWSSDK.SQS)", loopRuns, null);
                foreach (((int concurrency, bool sdk), List<Window> runs) in pumpRuns)
                {
                    double[] ratios = runs.Select((w, i) => w.PerCpuSecond / loopRuns[i].PerCpuSecond).Order().ToArray();
                    Print(lines, handlerMs, concurrency.ToString(CultureInfo.InvariantCulture), sdk ? "Missive on AWSSDK.SQS" : "Missive (built-in client)", runs, ratios);
                }
            }
        }
    }

    private static int? Option(string[] args, string name)
        => Array.IndexOf(args, name) is >= 0 and var at && at + 1 < args.Length ? int.Parse(args[at + 1], CultureInfo.InvariantCulture) : null;

    /// <summary>One row: the median window's figures, the JIT's time over all the rounds (compiling is process CPU too), the ratios.</summary>
    private static void Print(int lines, int handlerMs, string concurrency, string client, List<Window> runs, double[]? ratios)
    {
        Window w = Window.Median(runs);
        Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"| {lines} | {(handlerMs == 0 ? "returns at once" : $"{handlerMs} ms")} | {concurrency} | {client} | {w.PerCpuSecond:N0} | {w.PerWallSecond:N0} | {w.BytesPerMessage:N0} | {w.PerReceive:F2} | {w.PerDelete:F2} | {w.RequestsPerMessage:F3} | {runs.Average(r => r.JitMsPerSecond):F1} | {(ratios is null ? "" : ratios[ratios.Length / 2].ToString("F2", CultureInfo.InvariantCulture))} | {(ratios is null ? "" : $"{ratios[ratios.Length / 4]:F2} to {ratios[(3 * ratios.Length) / 4]:F2}")} |"));
    }

    /// <summary>Envelopes of an order of <paramref name="lines"/> lines, as the fast serializer writes them to an SQS body.</summary>
    internal static List<string> Bodies(int lines)
    {
        var bodies = new List<string>();
        for (int i = 0; i < 16; i++)
        {
            OrderPlaced order = Payloads.Order(lines);
            order.OrderId = "ORD-" + i.ToString(CultureInfo.InvariantCulture);
            bodies.Add(Setup.Utf8.SerializeToString(Payloads.Envelope(order, Payloads.OrderType)));
        }

        return bodies;
    }

    private static async Task<Window> RunPump(List<string> bodies, int handlerMs, int concurrency, bool sdk, TimeSpan window)
    {
        var endpoint = new FakeSqsEndpoint(bodies);
        var counter = new Counter(handlerMs);
        using AmazonSQSClient? client = sdk ? SdkClient(endpoint) : null;
        var options = new AwsTransportOptions { Region = "eu-west-1", Credentials = new BasicAWSCredentials("AKIDBENCHMARK", "bench/secret"), SqsClient = client };
        options.QueueUrls["bench"] = new Uri(FakeSqsEndpoint.QueueUrl);
        AwsSettings settings = AwsSettings.Resolve(options, static _ => null);
        using var transport = new AwsTransport(options, settings, service => new HttpClient(AwsTransport.CreateSigningHandler(settings, service, endpoint), disposeHandler: false), TimeProvider.System);
        HostApplicationBuilder builder = Host.CreateEmptyApplicationBuilder(new HostApplicationBuilderSettings());
        builder.Logging.ClearProviders();
        builder.Services.AddSingleton(counter);
        builder.Services.AddSingleton<IMessageTransport>(transport);
        builder.Services.AddMessageBus(bus => bus
            .AddMessageType<OrderPlaced>(Payloads.OrderType)
            .ConfigureSerialization(o => o.JsonSerializerContext = BenchJsonContext.Default)
            .EnableExperimentalFeatures()
            .AddHandler<OrderPlaced, CountingHandler>()
            .AddQueuePoller("bench", o => o.MaxConcurrency = concurrency));
        using IHost host = builder.Build();
        await host.StartAsync();
        Window result = await Measure(endpoint, counter, window);
        await host.StopAsync();
        return result;
    }

    private static async Task<Window> RunLoop(List<string> bodies, int handlerMs, TimeSpan window)
    {
        var endpoint = new FakeSqsEndpoint(bodies);
        var counter = new Counter(handlerMs);
        using AmazonSQSClient client = SdkClient(endpoint);
        var reader = Setup.Inbound;
        using var stop = new CancellationTokenSource();
        Task loop = Task.Run(() => HandLoop(client, reader, counter, stop.Token));
        Window result = await Measure(endpoint, counter, window);
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

    /// <summary>The twenty-line loop: receive ten, read and handle each, delete the ten in one call.</summary>
    private static async Task HandLoop(AmazonSQSClient client, InboundMessageReader reader, Counter counter, CancellationToken stop)
    {
        var receive = new ReceiveMessageRequest { QueueUrl = FakeSqsEndpoint.QueueUrl, MaxNumberOfMessages = 10, WaitTimeSeconds = 20, MessageSystemAttributeNames = ["All"], MessageAttributeNames = ["All"] };
        var handlers = new List<Task>(10);
        while (!stop.IsCancellationRequested)
        {
            ReceiveMessageResponse received = await client.ReceiveMessageAsync(receive, stop);
            if (received.Messages is not { Count: > 0 } messages)
            {
                continue;
            }

            var entries = new List<DeleteMessageBatchRequestEntry>(messages.Count);
            handlers.Clear();
            for (int i = 0; i < messages.Count; i++)
            {
                Message m = messages[i];
                InboundMessage inbound = reader.Read(new SqsMessage { Body = m.Body, MessageId = m.MessageId, ReceiptHandle = m.ReceiptHandle, SystemAttributes = m.Attributes });
                handlers.Add(counter.HandleAsync((MessageEnvelope<OrderPlaced>)inbound.Envelope!));
                entries.Add(new DeleteMessageBatchRequestEntry { Id = i.ToString(CultureInfo.InvariantCulture), ReceiptHandle = m.ReceiptHandle });
            }

            await Task.WhenAll(handlers);
            await client.DeleteMessageBatchAsync(new DeleteMessageBatchRequest { QueueUrl = FakeSqsEndpoint.QueueUrl, Entries = entries }, stop);
        }
    }

    private static async Task<Window> Measure(FakeSqsEndpoint endpoint, Counter counter, TimeSpan window)
    {
        await Task.Delay(Warmup);
        Snapshot start = Snapshot.Take(endpoint, counter);
        await Task.Delay(window);
        Snapshot end = Snapshot.Take(endpoint, counter);
        return new Window(start, end);
    }

    /// <summary>The official client over the endpoint, as the hand loop and the pump on AWSSDK.SQS both use it.</summary>
    private static AmazonSQSClient SdkClient(FakeSqsEndpoint endpoint)
        => new(new BasicAWSCredentials("AKIDBENCHMARK", "bench/secret"), new AmazonSQSConfig { ServiceURL = "https://sqs.eu-west-1.amazonaws.com", AuthenticationRegion = "eu-west-1", HttpClientFactory = new EndpointClients(endpoint) });

    private sealed class EndpointClients(FakeSqsEndpoint endpoint) : HttpClientFactory
    {
        public override HttpClient CreateHttpClient(IClientConfig clientConfig) => new(endpoint, disposeHandler: false);
    }

    public sealed class Counter(int handlerMs)
    {
        private long _count;

        public long Count => Interlocked.Read(ref _count);

        public Task HandleAsync(MessageEnvelope<OrderPlaced> envelope)
        {
            if (handlerMs == 0)
            {
                Interlocked.Increment(ref _count);
                return Task.CompletedTask;
            }

            return SlowlyAsync();
        }

        private async Task SlowlyAsync()
        {
            await Task.Delay(handlerMs);
            Interlocked.Increment(ref _count);
        }
    }

    public sealed class CountingHandler(Counter counter) : IMessageHandler<OrderPlaced>
    {
        public Task HandleAsync(MessageEnvelope<OrderPlaced> envelope, CancellationToken cancellationToken) => counter.HandleAsync(envelope);
    }

    private readonly record struct Snapshot(TimeSpan Cpu, long Allocated, long Wall, long Handled, long Receives, long Received, long DeleteCalls, long Deleted, long Billable, long WorkItems, long Contentions, int Gen0, TimeSpan Pause, TimeSpan Jit, long Compiled)
    {
        public static Snapshot Take(FakeSqsEndpoint endpoint, Counter counter) => new(
            Process.GetCurrentProcess().TotalProcessorTime,
            GC.GetTotalAllocatedBytes(precise: false),
            Stopwatch.GetTimestamp(),
            counter.Count,
            endpoint.Receives - endpoint.EmptyReceives,
            endpoint.Received,
            endpoint.DeleteCalls,
            endpoint.Deleted,
            endpoint.BillableRequests,
            ThreadPool.CompletedWorkItemCount,
            Monitor.LockContentionCount,
            GC.CollectionCount(0),
            GC.GetTotalPauseDuration(),
            System.Runtime.JitInfo.GetCompilationTime(),
            System.Runtime.JitInfo.GetCompiledMethodCount());
    }

    private sealed class Window(Snapshot start, Snapshot end)
    {
        private readonly double _handled = end.Handled - start.Handled;

        public double PerCpuSecond => _handled / (end.Cpu - start.Cpu).TotalSeconds;

        public double PerWallSecond => _handled / Stopwatch.GetElapsedTime(start.Wall, end.Wall).TotalSeconds;

        public double BytesPerMessage => (end.Allocated - start.Allocated) / _handled;

        public double PerReceive => (double)(end.Received - start.Received) / (end.Receives - start.Receives);

        public double PerDelete => (double)(end.Deleted - start.Deleted) / Math.Max(1, end.DeleteCalls - start.DeleteCalls);

        public double RequestsPerMessage => (end.Billable - start.Billable) / _handled;

        /// <summary>Thread-pool work items run per message: each is a hop that may wake a thread (and let it spin).</summary>
        public double WorkItemsPerMessage => (end.WorkItems - start.WorkItems) / _handled;

        public double ContentionsPerMessage => (end.Contentions - start.Contentions) / _handled;

        /// <summary>Time the JIT spent compiling per second of the window (process CPU the measured code did not spend).</summary>
        public double JitMsPerSecond => (end.Jit - start.Jit).TotalMilliseconds / Stopwatch.GetElapsedTime(start.Wall, end.Wall).TotalSeconds;

        public long CompiledMethods => end.Compiled - start.Compiled;

        public double Gen0PerThousand => 1000 * (end.Gen0 - start.Gen0) / _handled;

        public double PauseNsPerMessage => (end.Pause - start.Pause).TotalNanoseconds / _handled;

        /// <summary>The window whose CPU throughput is the median of the runs (its other figures come with it).</summary>
        public static Window Median(List<Window> runs) => runs.OrderBy(r => r.PerCpuSecond).ElementAt(runs.Count / 2);
    }
}
