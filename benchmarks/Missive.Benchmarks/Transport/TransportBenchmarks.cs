using System;
using System.Collections.Generic;
using System.Globalization;
using System.Net;
using System.Net.Http;
using System.Net.Http.Headers;
using System.Security.Cryptography;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using Amazon.Runtime;
using Amazon.SQS;
using Amazon.SQS.Model;
using BenchmarkDotNet.Attributes;
using Missive.Aws;
using Missive.Serialization;
using Missive.Tests.Infrastructure;
using Missive.Transport;

namespace Missive.Benchmarks.Transport;

/// <summary>
/// The SQS calls of a bus, per message in calls of 10, for orders of 1 and 10 lines: Missive.Aws against AWSSDK.SQS making
/// the same calls against the same in-process endpoint (<see cref="ReplayEndpoint"/>: recorded answers, no socket, no
/// parsing of the request), both signing every request and checking the digests SQS returns.
/// </summary>
/// <remarks>
/// <list type="bullet">
/// <item>Send: ten envelopes written by the fast serializer and sent in one <c>SendMessageBatch</c>.</item>
/// <item>Receive and read: one <c>ReceiveMessage</c> of ten, each body read to a typed envelope by the same
/// <see cref="InboundMessageReader"/>; the reader alone on the same ten bodies is the floor of that row.</item>
/// <item>Delete: one <c>DeleteMessageBatch</c> of the ten receipt handles.</item>
/// </list>
/// </remarks>
[MemoryDiagnoser]
[System.Diagnostics.CodeAnalysis.SuppressMessage("Design", "CA1001", Justification = "BenchmarkDotNet disposes through GlobalCleanup.")]
public class TransportBenchmarks
{
    private const int Batch = 10;
    private const string Queue = "bench";

    private ReplayEndpoint _endpoint = null!;
    private AwsTransport _missive = null!;
    private AmazonSQSClient _sdk = null!;
    private MessageEnvelope<OrderPlaced>[] _envelopes = null!;
    private SqsMessage[] _bodies = null!;
    private List<string> _receiptHandles = null!;
    private ReceiveMessageRequest _receive = null!;
    private OutboundMessageWriter _writer = null!;

    [Params(1, 10)]
    public int Lines { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        _envelopes = new MessageEnvelope<OrderPlaced>[Batch];
        _bodies = new SqsMessage[Batch];
        _receiptHandles = new List<string>(Batch);
        for (int i = 0; i < Batch; i++)
        {
            OrderPlaced order = Payloads.Order(Lines);
            order.OrderId = "ORD-" + i.ToString(CultureInfo.InvariantCulture);
            _envelopes[i] = Payloads.Envelope(order, Payloads.OrderType);
            string body = Benchmarks.Setup.Utf8.SerializeToString(_envelopes[i]);
            string receipt = "AQEB" + i.ToString("x8", CultureInfo.InvariantCulture) + new string('r', 172);
            _bodies[i] = new SqsMessage { Body = body, MessageId = i.ToString("x8", CultureInfo.InvariantCulture) + "-5f8b-4d7e-b6c2-0e3f1a7d9b24", ReceiptHandle = receipt };
            _receiptHandles.Add(receipt);
        }

        _endpoint = new ReplayEndpoint(_bodies);
        _writer = new OutboundMessageWriter(Benchmarks.Setup.Serializers);
        var options = new AwsTransportOptions { Region = "eu-west-1", Credentials = new BasicAWSCredentials("AKIDBENCHMARK", "bench/secret") };
        options.QueueUrls[Queue] = new Uri(ReplayEndpoint.QueueUrl);
        AwsSettings settings = AwsSettings.Resolve(options, static _ => null);
        _missive = new AwsTransport(options, settings, service => new HttpClient(AwsTransport.CreateSigningHandler(settings, service, _endpoint), disposeHandler: false), TimeProvider.System);
        var config = new AmazonSQSConfig { ServiceURL = "https://sqs.eu-west-1.amazonaws.com", AuthenticationRegion = "eu-west-1", HttpClientFactory = new EndpointClients(_endpoint) };
        _sdk = new AmazonSQSClient(new BasicAWSCredentials("AKIDBENCHMARK", "bench/secret"), config);
        _receive = new ReceiveMessageRequest { QueueUrl = ReplayEndpoint.QueueUrl, MaxNumberOfMessages = Batch, WaitTimeSeconds = 0, MessageSystemAttributeNames = ["All"], MessageAttributeNames = ["All"] };
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _missive.Dispose();
        _sdk.Dispose();
        _endpoint.Dispose();
    }

    [Benchmark(OperationsPerInvoke = Batch, Baseline = true)]
    [BenchmarkCategory("Send")]
    public async Task<int> SendSdk()
    {
        var entries = new List<SendMessageBatchRequestEntry>(Batch);
        for (int i = 0; i < Batch; i++)
        {
            entries.Add(new SendMessageBatchRequestEntry { Id = Ids[i], MessageBody = Benchmarks.Setup.Utf8.SerializeToString(_envelopes[i]) });
        }

        SendMessageBatchResponse answer = await _sdk.SendMessageBatchAsync(new SendMessageBatchRequest { QueueUrl = ReplayEndpoint.QueueUrl, Entries = entries });
        return answer.Successful.Count;
    }

    [Benchmark(OperationsPerInvoke = Batch)]
    [BenchmarkCategory("Send")]
    public async Task<int> SendMissive()
    {
        // As the bus sends to this transport (done with bodies when its calls complete): each body in a pooled array,
        // cleared and given back after the call.
        var requests = new SqsSendRequest[Batch];
        for (int i = 0; i < Batch; i++)
        {
            requests[i] = _writer.ToSqsOnRentedBody(_envelopes[i], Queue, null, null, null);
        }

        IReadOnlyList<BatchEntryResult> results = await _missive.SendBatchAsync(requests);
        for (int i = 0; i < Batch; i++)
        {
            requests[i].RentedBody!.Release();
        }

        return results.Count;
    }

    [Benchmark(OperationsPerInvoke = Batch, Baseline = true)]
    [BenchmarkCategory("ReceiveRead")]
    public async Task<int> ReceiveReadSdk()
    {
        ReceiveMessageResponse answer = await _sdk.ReceiveMessageAsync(_receive);
        int read = 0;
        foreach (Message m in answer.Messages)
        {
            InboundMessage inbound = Benchmarks.Setup.Inbound.Read(new SqsMessage { Body = m.Body, MessageId = m.MessageId, ReceiptHandle = m.ReceiptHandle, SystemAttributes = m.Attributes });
            read += inbound.Envelope is null ? 0 : 1;
        }

        return read;
    }

    [Benchmark(OperationsPerInvoke = Batch)]
    [BenchmarkCategory("ReceiveRead")]
    public async Task<int> ReceiveReadMissive()
    {
        IReadOnlyList<SqsMessage> messages = await _missive.ReceiveAsync(Queue, Batch, TimeSpan.Zero);
        int read = 0;
        for (int i = 0; i < messages.Count; i++)
        {
            read += Benchmarks.Setup.Inbound.Read(messages[i]).Envelope is null ? 0 : 1;
        }

        return read;
    }

    /// <summary>The floor of receiving: the reader alone on the same ten messages, already received.</summary>
    [Benchmark(OperationsPerInvoke = Batch)]
    [BenchmarkCategory("ReceiveRead")]
    public int ReadAlone()
    {
        int read = 0;
        for (int i = 0; i < _bodies.Length; i++)
        {
            read += Benchmarks.Setup.Inbound.Read(_bodies[i]).Envelope is null ? 0 : 1;
        }

        return read;
    }

    [Benchmark(OperationsPerInvoke = Batch, Baseline = true)]
    [BenchmarkCategory("Delete")]
    public async Task<int> DeleteSdk()
    {
        var entries = new List<DeleteMessageBatchRequestEntry>(Batch);
        for (int i = 0; i < Batch; i++)
        {
            entries.Add(new DeleteMessageBatchRequestEntry { Id = Ids[i], ReceiptHandle = _receiptHandles[i] });
        }

        DeleteMessageBatchResponse answer = await _sdk.DeleteMessageBatchAsync(new DeleteMessageBatchRequest { QueueUrl = ReplayEndpoint.QueueUrl, Entries = entries });
        return answer.Successful.Count;
    }

    [Benchmark(OperationsPerInvoke = Batch)]
    [BenchmarkCategory("Delete")]
    public async Task<int> DeleteMissive()
    {
        IReadOnlyList<BatchEntryResult> results = await _missive.DeleteBatchAsync(Queue, _receiptHandles);
        return results.Count;
    }

    private static readonly string[] Ids = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"];

    private sealed class EndpointClients(HttpMessageHandler endpoint) : HttpClientFactory
    {
        public override HttpClient CreateHttpClient(IClientConfig clientConfig) => new(endpoint, disposeHandler: false);
    }
}
