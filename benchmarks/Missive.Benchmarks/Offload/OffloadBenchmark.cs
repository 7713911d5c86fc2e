using System;
using System.Collections.Concurrent;
using System.Diagnostics;
using System.IO;
using System.Threading;
using System.Threading.Tasks;
using Amazon.Runtime;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Missive.Aws;
using Missive.Bus;
using Missive.InMemory;
using Missive.Offload;

namespace Missive.Benchmarks.Offload;

/// <summary>
/// A 5 MiB message offloaded end to end (published, stored, pointed to, fetched, handled) on the in-memory broker, with
/// the in-memory store and with the S3 store against tools/local-aws/s3.mjs: bytes allocated per message (the whole
/// process, both sides) as a multiple of the payload, and the process's peak working set. One process per store (run
/// the mode twice, or both in order: the peak is the process's, so the second store's includes the first's).
/// </summary>
public static class OffloadBenchmark
{
    private const int PayloadBytes = 5 * 1024 * 1024;
    private const int Messages = 20;

    public static void Run(string[] args)
    {
        string store = args.Contains("--s3") ? "s3" : "memory";
        Process? s3 = null;
        try
        {
            IPayloadStore payloads;
            if (store == "s3")
            {
                (s3, Uri endpoint) = StartS3();
                payloads = new S3PayloadStore(new S3PayloadStoreOptions { Bucket = "missive-payloads", ServiceUrl = endpoint }, new AwsTransportOptions { Region = "eu-west-1", Credentials = new BasicAWSCredentials("AKIDMISSIVETEST", "missive/test/secret/key/0123456789abcdef") });
            }
            else
            {
                payloads = new InMemoryPayloadStore();
            }

            Measure(store, payloads).GetAwaiter().GetResult();
        }
        finally
        {
            if (s3 is not null)
            {
                s3.StandardInput.Close();
                s3.WaitForExit(5000);
                s3.Dispose();
            }
        }
    }

    private static async Task Measure(string name, IPayloadStore store)
    {
        var handled = new Handled();
        HostApplicationBuilder builder = Host.CreateApplicationBuilder();
        builder.Logging.ClearProviders();
        builder.Services.AddSingleton(store).AddSingleton(handled);
        builder.Services.AddMessageBus(bus => bus
            .AddMessageType<byte[]>("bench.document")
            .ConfigureSerialization(o => o.MaxEnvelopeSize = 16 * 1024 * 1024)
            .EnableExperimentalFeatures()
            .AddSqsPublisher<byte[]>("docs")
            .AddHandler<byte[], DocumentHandler>()
            .AddQueuePoller("docs", o => o.WaitTime = TimeSpan.FromMilliseconds(20))
            .UsePayloadOffload()
            .UseInMemoryBroker(b => b.CreateQueue("docs")));
        using IHost host = builder.Build();
        await host.StartAsync();
        IMessagePublisher publisher = host.Services.GetRequiredService<IMessagePublisher>();
        byte[] payload = new byte[PayloadBytes];
        Random.Shared.NextBytes(payload);

        await RoundTrip(publisher, handled, payload, 2); // warm up
        long before = GC.GetTotalAllocatedBytes(precise: true);
        var watch = Stopwatch.StartNew();
        await RoundTrip(publisher, handled, payload, Messages);
        watch.Stop();
        long allocated = GC.GetTotalAllocatedBytes(precise: true) - before;
        await host.StopAsync();

        double perMessage = (double)allocated / Messages;
        Console.WriteLine($"| {name} | {PayloadBytes:N0} | {perMessage:N0} | {perMessage / PayloadBytes:0.00} | {Process.GetCurrentProcess().PeakWorkingSet64 / (1024 * 1024):N0} MiB | {watch.Elapsed.TotalMilliseconds / Messages:0.0} ms |");
    }

    /// <summary>One message at a time: published, then handled (its fetch and read included) before the next.</summary>
    private static async Task RoundTrip(IMessagePublisher publisher, Handled handled, byte[] payload, int count)
    {
        for (int i = 0; i < count; i++)
        {
            int expected = handled.Count + 1;
            await publisher.PublishAsync(payload);
            while (handled.Count < expected)
            {
                await Task.Delay(1);
            }
        }
    }

    private static (Process Process, Uri Endpoint) StartS3()
    {
        string directory = Path.Combine(FindRoot(), "tools", "local-aws");
        var start = new ProcessStartInfo("node") { WorkingDirectory = directory, RedirectStandardInput = true, RedirectStandardOutput = true, UseShellExecute = false };
        start.ArgumentList.Add("s3.mjs");
        start.ArgumentList.Add("--port");
        start.ArgumentList.Add("0");
        Process process = Process.Start(start)!;
        string line;
        do
        {
            line = process.StandardOutput.ReadLine() ?? throw new InvalidOperationException("s3.mjs did not start");
        }
        while (!line.StartsWith("ready: ", StringComparison.Ordinal));

        return (process, new Uri(line["ready: ".Length..]));
    }

    private static string FindRoot()
    {
        string? directory = AppContext.BaseDirectory;
        while (directory is not null && !File.Exists(Path.Combine(directory, "Missive.slnx")))
        {
            directory = Path.GetDirectoryName(directory);
        }

        return directory ?? throw new InvalidOperationException("Run from within the repository.");
    }

    public sealed class Handled
    {
        private int _count;

        public int Count => Volatile.Read(ref _count);

        public void One() => Interlocked.Increment(ref _count);
    }

    public sealed class DocumentHandler(Handled handled) : IMessageHandler<byte[]>
    {
        public Task HandleAsync(MessageEnvelope<byte[]> envelope, CancellationToken cancellationToken)
        {
            if (envelope.Message.Length != PayloadBytes)
            {
                throw new InvalidOperationException("The payload came back short.");
            }

            handled.One();
            return Task.CompletedTask;
        }
    }
}
