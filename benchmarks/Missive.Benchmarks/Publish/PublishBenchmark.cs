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
    private const string QueueUrl = "https://sqs.eu-west-1.amazonaws.com/123456789012/bench";

    public static void Run(string[] args)
    {
        int rounds = args.Contains("--short") ? 3 : 5;
        Console.WriteLine($"Publish: {Messages} messages per run, {rounds} alternating rounds, medians. {Environment.ProcessorCount} cores, {Environment.Version}.");
        Console.WriteLine();
        Console.WriteLine("| lines | how | msg per CPU-s | bytes per msg | requests per msg | / SDK batch loop (CPU) |");
        Console.WriteLine("|---|---|---|---|---|---|");
        foreach (int lines in new[] { 1, 10 })
        {
            var runs = new Dictionary<string, List<Result>> { ["single publishes"] = [], ["one batch publish"] = [], ["concurrent, coalesced (5 ms)"] = [], ["AWSSDK.SQS SendMessageBatch, calls of 10"] = [] };
            for (int round = 0; round < rounds + 1; round++)
            {
                foreach (string how in runs.Keys)
                {
                    Result result = Measure(how, lines).GetAwaiter().GetResult();
                    if (round > 0)
                    {
                        runs[how].Add(result); // the first round warms up
                    }
                }
            }

            Result sdk = Median(runs["AWSSDK.SQS SendMessageBatch, calls of 10"]);
            foreach ((string how, List<Result> results) in runs)
            {
                Result r = Median(results);
                Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"| {lines} | {how} | {r.PerCpuSecond:N0} | {r.BytesPerMessage:N0} | {r.RequestsPerMessage:F3} | {r.PerCpuSecond / sdk.PerCpuSecond:F2} |"));
            }
        }

        // Low load: one publish at a time, so a coalesced publish always waits out its window alone.
        double plain = LatencyAsync(window: null).GetAwaiter().GetResult();
        double coalesced = LatencyAsync(TimeSpan.FromMilliseconds(5)).GetAwaiter().GetResult();
        Console.WriteLine();
        Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"Low load, one publish at a time (median of 200): {plain:F2} ms without coalescing, {coalesced:F2} ms with a 5 ms window: {coalesced - plain:F2} ms added."));
    }

    /// <summary>The median wall time of a single publish made alone, after warm-up.</summary>
    private static async Task<double> LatencyAsync(TimeSpan? window)
    {
        var endpoint = new SqsSendEndpoint();
        var options = new AwsTransportOptions { Region = "eu-west-1", Credentials = new BasicAWSCredentials("AKIDBENCHMARK", "bench/secret") };
        options.QueueUrls["bench"] = new Uri(QueueUrl);
        AwsSettings settings = AwsSettings.Resolve(options, static _ => null);
        using var transport = new AwsTransport(options, settings, service => new HttpClient(AwsTransport.CreateSigningHandler(settings, service, endpoint), disposeHandler: false), TimeProvider.System);
        HostApplicationBuilder builder = Host.CreateApplicationBuilder();
        builder.Logging.ClearProviders();
        builder.Services.AddSingleton<IMessageTransport>(transport);
        builder.Services.AddMessageBus(bus =>
        {
            bus.AddMessageType<OrderPlaced>(Payloads.OrderType).ConfigureSerialization(o => o.JsonSerializerContext = BenchJsonContext.Default).EnableExperimentalFeatures().AddSqsPublisher<OrderPlaced>("bench");
            if (window is { } w)
            {
                bus.CoalescePublishes(w);
            }
        });
        using IHost host = builder.Build();
        IMessagePublisher publisher = host.Services.GetRequiredService<IMessagePublisher>();
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

    private static Result Median(List<Result> results) => results.OrderBy(r => r.PerCpuSecond).ElementAt(results.Count / 2);

    private static async Task<Result> Measure(string how, int lines)
    {
        var endpoint = new SqsSendEndpoint();
        List<OrderPlaced> orders = Enumerable.Range(0, Messages).Select(i =>
        {
            OrderPlaced order = Payloads.Order(lines);
            order.OrderId = "ORD-" + i.ToString(CultureInfo.InvariantCulture);
            return order;
        }).ToList();
        if (how.StartsWith("AWSSDK", StringComparison.Ordinal))
        {
            var config = new AmazonSQSConfig { ServiceURL = "https://sqs.eu-west-1.amazonaws.com", AuthenticationRegion = "eu-west-1", HttpClientFactory = new EndpointClients(endpoint) };
            using var client = new AmazonSQSClient(new BasicAWSCredentials("AKIDBENCHMARK", "bench/secret"), config);
            return await Timed(endpoint, async () =>
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
            });
        }

        var options = new AwsTransportOptions { Region = "eu-west-1", Credentials = new BasicAWSCredentials("AKIDBENCHMARK", "bench/secret") };
        options.QueueUrls["bench"] = new Uri(QueueUrl);
        AwsSettings settings = AwsSettings.Resolve(options, static _ => null);
        using var transport = new AwsTransport(options, settings, service => new HttpClient(AwsTransport.CreateSigningHandler(settings, service, endpoint), disposeHandler: false), TimeProvider.System);
        HostApplicationBuilder builder = Host.CreateApplicationBuilder();
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
        using IHost host = builder.Build();
        IMessagePublisher publisher = host.Services.GetRequiredService<IMessagePublisher>();
        return await Timed(endpoint, how switch
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
        });
    }

    private static async Task<Result> Timed(SqsSendEndpoint endpoint, Func<Task> run)
    {
        TimeSpan cpu = Process.GetCurrentProcess().TotalProcessorTime;
        long allocated = GC.GetTotalAllocatedBytes(precise: true);
        await run();
        TimeSpan spent = Process.GetCurrentProcess().TotalProcessorTime - cpu;
        return new Result(Messages / spent.TotalSeconds, (GC.GetTotalAllocatedBytes(precise: true) - allocated) / (double)Messages, endpoint.Requests / (double)Messages);
    }

    private readonly record struct Result(double PerCpuSecond, double BytesPerMessage, double RequestsPerMessage);

    private sealed class EndpointClients(HttpMessageHandler endpoint) : HttpClientFactory
    {
        public override HttpClient CreateHttpClient(IClientConfig clientConfig) => new(endpoint, disposeHandler: false);
    }

    /// <summary>SQS in process for sends: every entry accepted, with its message id and its body's MD5 digest.</summary>
    private sealed class SqsSendEndpoint : HttpMessageHandler
    {
        private int _requests;

        public int Requests => _requests;

        protected override async Task<HttpResponseMessage> SendAsync(HttpRequestMessage request, CancellationToken cancellationToken)
        {
            Interlocked.Increment(ref _requests);
            using JsonDocument body = JsonDocument.Parse(await request.Content!.ReadAsByteArrayAsync(cancellationToken));
            var answer = new StringBuilder();
            if (body.RootElement.TryGetProperty("Entries", out JsonElement entries))
            {
                answer.Append("{\"Successful\":[");
                int n = 0;
                foreach (JsonElement entry in entries.EnumerateArray())
                {
                    answer.Append(n++ > 0 ? "," : string.Empty).Append("{\"Id\":\"").Append(entry.GetProperty("Id").GetString())
                        .Append("\",\"MessageId\":\"m-").Append(n).Append("\",\"MD5OfMessageBody\":\"").Append(Digest(entry)).Append("\"}");
                }

                answer.Append("],\"Failed\":[]}");
            }
            else
            {
                answer.Append("{\"MessageId\":\"m-1\",\"MD5OfMessageBody\":\"").Append(Digest(body.RootElement)).Append("\"}");
            }

            return new HttpResponseMessage(HttpStatusCode.OK) { Content = new StringContent(answer.ToString(), Encoding.UTF8, "application/x-amz-json-1.0") };
        }

        private static string Digest(JsonElement message) => Convert.ToHexStringLower(MD5.HashData(Encoding.UTF8.GetBytes(message.GetProperty("MessageBody").GetString()!)));
    }
}
