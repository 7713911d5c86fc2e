using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.Linq;
using System.Net;
using System.Net.Http;
using System.Security.Cryptography;
using System.Text;
using System.Text.Json;
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
using Missive.Transport;

namespace Missive.Benchmarks.Publish;

/// <summary>
/// Publishing 1,000 messages through the bus on the AWS transport, over an SQS endpoint in process that answers
/// <c>SendMessage</c> and <c>SendMessageBatch</c> as SQS does (message ids, the bodies' MD5 digests): as single
/// publishes one after another, as one batch publish, and as 1,000 concurrent single publishes with coalescing on,
/// against AWSSDK.SQS <c>SendMessageBatch</c> in calls of 10 with bodies from the same serializer. Per message: process
/// CPU time, bytes allocated, requests. Rounds alternate the four; medians.
/// </summary>
[System.Diagnostics.CodeAnalysis.SuppressMessage("Security", "CA5351", Justification = "SQS defines its body digest as MD5.")]
public static class PublishBenchmark
{
    private const int Messages = 1000;
    private const int Repeats = 5;
    private const string QueueUrl = "https://sqs.eu-west-1.amazonaws.com/123456789012/bench";

    public static void Run(string[] args)
    {
        if (Array.IndexOf(args, "--profile") is int at and >= 0)
        {
            // For a profiler: one way, over and over (--profile "one batch publish" [lines]).
            string how = args.Length > at + 1 ? args[at + 1] : "one batch publish";
            int profiled = args.Length > at + 2 ? int.Parse(args[at + 2], CultureInfo.InvariantCulture) : 1;
            using var way = new Way(how, profiled);
            for (int i = 0; i < 60; i++)
            {
                Result r = way.MeasureAsync().GetAwaiter().GetResult();
                Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{how}, {profiled} lines: {r.PerCpuSecond:N0} msg per CPU-s, {r.BytesPerMessage:N0} B per msg"));
            }

            return;
        }

        if (args.Contains("--pieces"))
        {
            Pieces();
            return;
        }

        int rounds = args.Contains("--short") ? 3 : 7;
        const int warmUp = 10; // the tiered JIT recompiles hot methods in the background for some 100,000 messages: process CPU counts it
        Console.WriteLine($"Publish: {Messages} messages per run, {Repeats} runs per measure, {warmUp} warm-up and {rounds} measured rounds alternating the four ways, medians. {Environment.ProcessorCount} cores, {Environment.Version}.");
        Console.WriteLine();
        Console.WriteLine("| lines | how | msg per CPU-s | bytes per msg | requests per msg | / SDK batch loop (CPU) |");
        Console.WriteLine("|---|---|---|---|---|---|");
        foreach (int lines in new[] { 1, 10 })
        {
            var runs = new Dictionary<string, List<Result>> { ["single publishes"] = [], ["one batch publish"] = [], ["concurrent, coalesced (5 ms)"] = [], ["AWSSDK.SQS SendMessageBatch, calls of 10"] = [] };
            var ways = runs.Keys.ToDictionary(how => how, how => new Way(how, lines));
            for (int round = 0; round < rounds + warmUp; round++)
            {
                foreach (string how in runs.Keys)
                {
                    Result result = ways[how].MeasureAsync().GetAwaiter().GetResult();
                    if (round >= warmUp)
                    {
                        runs[how].Add(result);
                    }
                }
            }

            foreach (Way way in ways.Values)
            {
                way.Dispose();
            }

            Result sdk = Median(runs["AWSSDK.SQS SendMessageBatch, calls of 10"]);
            foreach ((string how, List<Result> results) in runs)
            {
                Result r = Median(results);
                Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"| {lines} | {how} | {r.PerCpuSecond:N0} | {r.BytesPerMessage:N0} | {r.RequestsPerMessage:F3} | {r.PerCpuSecond / sdk.PerCpuSecond:F2} |"));
            }
        }

        // Low load: one publish at a time, so a coalesced publish always waits out its window alone.
        double plain = LatencyAsync("single publishes").GetAwaiter().GetResult();
        double coalesced = LatencyAsync("concurrent, coalesced (5 ms)").GetAwaiter().GetResult();
        Console.WriteLine();
        Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"Low load, one publish at a time (median of 200): {plain:F2} ms without coalescing, {coalesced:F2} ms with a 5 ms window: {coalesced - plain:F2} ms added."));
    }

    /// <summary>
    /// Where a batch publish's time goes: each piece alone, in steady state (after 30,000 messages of warm-up), as process
    /// CPU microseconds per message, in calls of 10; the median of 5 measures of 20,000 messages each. The bus's own part is
    /// the whole less the pieces it is made of.
    /// </summary>
    private static void Pieces()
    {
        Console.WriteLine("| lines | piece | CPU µs per message | bytes per message |");
        Console.WriteLine("|---|---|---|---|");
        foreach (int lines in new[] { 1, 10 })
        {
            OrderPlaced[] orders = [.. Enumerable.Range(0, 10).Select(_ => Payloads.Order(lines))];
            MessageEnvelope<OrderPlaced>[] envelopes = [.. orders.Select(o => Payloads.Envelope(o, Payloads.OrderType))];
            var writer = new OutboundMessageWriter(Setup.Serializers);
            SqsSendRequest[] requests = [.. envelopes.Select(e => writer.ToSqs(e, "bench"))];

            using var missive = new Way("one batch publish", lines);
            var endpoint = new SqsSendEndpoint();
            using AwsTransport transport = TransportOver(endpoint);
            using AmazonSQSClient sdk = SdkOver(endpoint);
            string[] texts = [.. envelopes.Select(e => Setup.Utf8.SerializeToString(e))];
            var sdkRequest = new SendMessageBatchRequest { QueueUrl = QueueUrl, Entries = [.. texts.Select((t, i) => new SendMessageBatchRequestEntry { Id = i.ToString(CultureInfo.InvariantCulture), MessageBody = t })] };
            using var invoker = new HttpMessageInvoker(endpoint, disposeHandler: false);
            byte[] recorded;
            using (var capture = new CapturingEndpoint(endpoint))
            using (AwsTransport capturing = TransportOver(capture))
            {
                capturing.SendBatchAsync(requests).GetAwaiter().GetResult();
                recorded = capture.Last!;
            }

            (string Name, Func<Task> TenMessages)[] pieces =
            [
                ("the endpoint alone (in every row)", async () =>
                {
                    using var request = new HttpRequestMessage(HttpMethod.Post, QueueUrl) { Content = new ByteArrayContent(recorded) };
                    using HttpResponseMessage response = await invoker.SendAsync(request, CancellationToken.None);
                }),
                ("Missive: writing 10 envelopes into requests", () =>
                {
                    for (int i = 0; i < 10; i++)
                    {
                        requests[i] = writer.ToSqs(envelopes[i], "bench");
                    }

                    return Task.CompletedTask;
                }),
                ("Missive: the SendMessageBatch call (with the endpoint)", async () => await transport.SendBatchAsync(requests)),
                ("Missive: a batch publish, whole (with the endpoint)", async () => await missive.Publisher!.PublishBatchAsync(orders)),
                ("SDK: serializing 10 envelopes to strings (the same serializer)", () =>
                {
                    for (int i = 0; i < 10; i++)
                    {
                        texts[i] = Setup.Utf8.SerializeToString(envelopes[i]);
                    }

                    return Task.CompletedTask;
                }),
                ("SDK: the SendMessageBatch call (with the endpoint)", async () => await sdk.SendMessageBatchAsync(sdkRequest)),
            ];
            for (int pass = 0; pass < 2; pass++)
            {
                // The first pass warms every piece up (the tiered JIT works in the background for a while); the second is reported.
                foreach ((string name, Func<Task> ten) in pieces)
                {
                    (double micros, double bytes) = PerMessage(ten);
                    if (pass == 1)
                    {
                        Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"| {lines} | {name} | {micros:F2} | {bytes:N0} |"));
                    }
                }
            }
        }
    }

    private static (double Micros, double Bytes) PerMessage(Func<Task> tenMessages)
    {
        for (int i = 0; i < 3000; i++)
        {
            tenMessages().GetAwaiter().GetResult();
        }

        var micros = new List<double>();
        var bytes = new List<double>();
        for (int round = 0; round < 5; round++)
        {
            TimeSpan cpu = Environment.CpuUsage.TotalTime;
            long allocated = GC.GetTotalAllocatedBytes(precise: true);
            for (int i = 0; i < 2000; i++)
            {
                tenMessages().GetAwaiter().GetResult();
            }

            micros.Add((Environment.CpuUsage.TotalTime - cpu).TotalMicroseconds / 20000);
            bytes.Add((GC.GetTotalAllocatedBytes(precise: true) - allocated) / 20000.0);
        }

        micros.Sort();
        bytes.Sort();
        return (micros[2], bytes[2]);
    }

    /// <summary>Passes requests on to an endpoint, keeping the last one's body.</summary>
    private sealed class CapturingEndpoint(HttpMessageHandler inner) : DelegatingHandler(inner)
    {
        public byte[]? Last { get; private set; }

        protected override async Task<HttpResponseMessage> SendAsync(HttpRequestMessage request, CancellationToken cancellationToken)
        {
            Last = await request.Content!.ReadAsByteArrayAsync(cancellationToken);
            return await base.SendAsync(request, cancellationToken);
        }
    }

    /// <summary>The median wall time of a single publish made alone, after warm-up, on a way's bus.</summary>
    private static async Task<double> LatencyAsync(string how)
    {
        using var way = new Way(how, 1);
        IMessagePublisher publisher = way.Publisher!;
        OrderPlaced order = Payloads.Order(1);
        var times = new List<double>();
        for (int i = 0; i < 250; i++)
        {
            long start = Stopwatch.GetTimestamp();
            await publisher.PublishAsync(order);
            if (i >= 50)
            {
                times.Add(Stopwatch.GetElapsedTime(start).TotalMilliseconds);
            }
        }

        times.Sort();
        return times[times.Count / 2];
    }

    /// <summary>The AWS transport, signing as in every row, over an endpoint in process.</summary>
    private static AwsTransport TransportOver(HttpMessageHandler endpoint)
    {
        var options = new AwsTransportOptions { Region = "eu-west-1", Credentials = new BasicAWSCredentials("AKIDBENCHMARK", "bench/secret") };
        options.QueueUrls["bench"] = new Uri(QueueUrl);
        AwsSettings settings = AwsSettings.Resolve(options, static _ => null);
        return new AwsTransport(options, settings, service => new HttpClient(AwsTransport.CreateSigningHandler(settings, service, endpoint), disposeHandler: false), TimeProvider.System);
    }

    /// <summary>The official client over the same endpoint.</summary>
    private static AmazonSQSClient SdkOver(HttpMessageHandler endpoint)
        => new(new BasicAWSCredentials("AKIDBENCHMARK", "bench/secret"), new AmazonSQSConfig { ServiceURL = "https://sqs.eu-west-1.amazonaws.com", AuthenticationRegion = "eu-west-1", HttpClientFactory = new EndpointClients(endpoint) });

    private static Result Median(List<Result> results) => results.OrderBy(r => r.PerCpuSecond).ElementAt(results.Count / 2);

    /// <summary>
    /// One way of publishing, set up once (its host, transport or client, its endpoint) and measured many times, so
    /// that building hosts and clients (and collecting what they leave, such as the dependency injection container's
    /// compiled resolvers) is never in a measure.
    /// </summary>
    private sealed class Way : IDisposable
    {
        private readonly List<IDisposable> _owned = [];

        public Way(string how, int lines)
        {
            List<OrderPlaced> orders = Enumerable.Range(0, Messages).Select(i =>
            {
                OrderPlaced order = Payloads.Order(lines);
                order.OrderId = "ORD-" + i.ToString(CultureInfo.InvariantCulture);
                return order;
            }).ToList();
            if (how.StartsWith("AWSSDK", StringComparison.Ordinal))
            {
                AmazonSQSClient client = SdkOver(Endpoint);
                _owned.Add(client);
                Run = async () =>
                {
                    for (int start = 0; start < orders.Count; start += 10)
                    {
                        var entries = new List<SendMessageBatchRequestEntry>(10);
                        for (int i = start; i < start + 10; i++)
                        {
                            entries.Add(new SendMessageBatchRequestEntry { Id = (i - start).ToString(CultureInfo.InvariantCulture), MessageBody = Setup.Utf8.SerializeToString(Payloads.Envelope(orders[i], Payloads.OrderType)) });
                        }

                        await client.SendMessageBatchAsync(new SendMessageBatchRequest { QueueUrl = QueueUrl, Entries = entries });
                    }
                };
                return;
            }

            AwsTransport transport = TransportOver(Endpoint);
            HostApplicationBuilder builder = Host.CreateEmptyApplicationBuilder(new HostApplicationBuilderSettings());
            builder.Logging.ClearProviders();
            builder.Services.AddSingleton<IMessageTransport>(transport);
            builder.Services.AddMessageBus(bus =>
            {
                bus.AddMessageType<OrderPlaced>(Payloads.OrderType)
                    .ConfigureSerialization(o => o.JsonSerializerContext = BenchJsonContext.Default)
                    .EnableExperimentalFeatures()
                    .AddSqsPublisher<OrderPlaced>("bench");
                if (how.StartsWith("concurrent", StringComparison.Ordinal))
                {
                    bus.CoalescePublishes(TimeSpan.FromMilliseconds(5));
                }
            });
            IHost host = builder.Build();
            _owned.Add(host);
            _owned.Add(transport);
            IMessagePublisher publisher = host.Services.GetRequiredService<IMessagePublisher>();
            Publisher = publisher;
            Run = how switch
            {
                "single publishes" => async () =>
                {
                    foreach (OrderPlaced order in orders)
                    {
                        await publisher.PublishAsync(order);
                    }
                },
                "one batch publish" => async () => await publisher.PublishBatchAsync(orders),
                _ => async () => await Task.WhenAll(orders.Select(o => publisher.PublishAsync(o))),
            };
        }

        public SqsSendEndpoint Endpoint { get; } = new();

        /// <summary>Gets the bus's publisher (the Missive ways only).</summary>
        public IMessagePublisher? Publisher { get; }

        public Func<Task> Run { get; }

        public Task<Result> MeasureAsync() => Timed(Endpoint, Run);

        public void Dispose()
        {
            foreach (IDisposable owned in _owned)
            {
                owned.Dispose();
            }
        }
    }

    /// <summary>Runs the 1,000 messages <see cref="Repeats"/> times and divides: process CPU time is counted coarsely, so a measure spans several.</summary>
    private static async Task<Result> Timed(SqsSendEndpoint endpoint, Func<Task> run)
    {
        int requests = endpoint.Requests;
        TimeSpan cpu = Environment.CpuUsage.TotalTime;
        long allocated = GC.GetTotalAllocatedBytes(precise: true);
        for (int i = 0; i < Repeats; i++)
        {
            await run();
        }

        TimeSpan spent = Environment.CpuUsage.TotalTime - cpu;
        const double messages = Messages * Repeats;
        return new Result(messages / spent.TotalSeconds, (GC.GetTotalAllocatedBytes(precise: true) - allocated) / messages, (endpoint.Requests - requests) / messages);
    }

    private readonly record struct Result(double PerCpuSecond, double BytesPerMessage, double RequestsPerMessage);

    private sealed class EndpointClients(HttpMessageHandler endpoint) : HttpClientFactory
    {
        public override HttpClient CreateHttpClient(IClientConfig clientConfig) => new(endpoint, disposeHandler: false);
    }

    /// <summary>
    /// SQS in process for sends: every entry accepted, with its message id and its body's MD5 digest. Lean (one pass with
    /// a <see cref="Utf8JsonReader"/>, the answer written with a <see cref="Utf8JsonWriter"/>), so that what the service
    /// would do, paid in every row alike, weighs as little as it can in the comparison.
    /// </summary>
    private sealed class SqsSendEndpoint : HttpMessageHandler
    {
        private int _requests;

        public int Requests => _requests;

        protected override async Task<HttpResponseMessage> SendAsync(HttpRequestMessage request, CancellationToken cancellationToken)
        {
            Interlocked.Increment(ref _requests);
            byte[] body = await request.Content!.ReadAsByteArrayAsync(cancellationToken);
            return new HttpResponseMessage(HttpStatusCode.OK) { Content = Answer(body) };
        }

        private static ByteArrayContent Answer(byte[] body)
        {
            var answer = new System.Buffers.ArrayBufferWriter<byte>(256);
            using (var writer = new Utf8JsonWriter(answer))
            {
                var reader = new Utf8JsonReader(body);
                bool batch = false;
                string? id = null;
                int n = 0;
                Span<byte> digest = stackalloc byte[16];
                writer.WriteStartObject();
                while (reader.Read())
                {
                    if (reader.TokenType == JsonTokenType.PropertyName && reader.ValueTextEquals("Entries"u8))
                    {
                        batch = true;
                        writer.WriteStartArray("Successful"u8);
                    }
                    else if (reader.TokenType == JsonTokenType.PropertyName && reader.ValueTextEquals("Id"u8))
                    {
                        reader.Read();
                        id = reader.GetString();
                    }
                    else if (reader.TokenType == JsonTokenType.PropertyName && reader.ValueTextEquals("MessageBody"u8))
                    {
                        reader.Read();
                        byte[] text = System.Buffers.ArrayPool<byte>.Shared.Rent(reader.ValueSpan.Length);
                        int length = reader.CopyString(text);
                        MD5.HashData(text.AsSpan(0, length), digest);
                        System.Buffers.ArrayPool<byte>.Shared.Return(text);
                        if (batch)
                        {
                            writer.WriteStartObject();
                            writer.WriteString("Id"u8, id);
                        }

                        writer.WriteString("MessageId"u8, "m-" + (++n).ToString(CultureInfo.InvariantCulture));
                        writer.WriteString("MD5OfMessageBody"u8, Convert.ToHexStringLower(digest));
                        if (batch)
                        {
                            writer.WriteEndObject();
                        }
                    }
                }

                if (batch)
                {
                    writer.WriteEndArray();
                    writer.WriteStartArray("Failed"u8);
                    writer.WriteEndArray();
                }

                writer.WriteEndObject();
            }

            var content = new ByteArrayContent(answer.WrittenSpan.ToArray());
            content.Headers.TryAddWithoutValidation("Content-Type", "application/x-amz-json-1.0");
            return content;
        }
    }
}
