using System;
using System.Collections.Generic;
using System.Globalization;
using System.Net.Http;
using System.Threading.Tasks;
using Amazon.Runtime;
using Missive.Aws;
using Missive.Json;
using Missive.Protobuf;
using Missive.Serialization;
using Missive.Tests.Infrastructure;
using Missive.Transport;
using Xunit.Abstractions;

namespace Missive.Tests.Aws.Unit;

/// <summary>
/// What Missive.Aws allocates per message for the SQS calls of a bus, in calls of 10 over an in-process endpoint that
/// replays recorded answers (<see cref="ReplayEndpoint"/>), after warm-up, for orders of 1 and 10 lines: pinned, as
/// the serializers' allocations are, so that a change that brings garbage back fails here. The figures and the
/// comparison with AWSSDK.SQS are in <c>benchmarks/results/transport/</c>. Measured on the calling thread, which runs
/// the whole call (the endpoint answers at once); the test checks that nothing hopped threads.
/// </summary>
[Collection(ProcessAllocationCollection.Name)]
public sealed class TransportAllocationTests(ITestOutputHelper output) : IDisposable
{
    private const int Batch = 10;
    private const int Rounds = 50;
    private const string Queue = "bench";

    private readonly List<IDisposable> _owned = [];
    private Utf8JsonEnvelopeSerializer? _json;

    public void Dispose()
    {
        foreach (IDisposable owned in _owned)
        {
            owned.Dispose();
        }
    }

    [Theory]
    [InlineData(1, 2_050)] // measured 1,858 B: the body's bytes, its receipt handle and id strings, the message and its
    [InlineData(10, 2_600)] // system attributes, and a tenth of the call (request, signing, answer); 2,346 B at 10 lines
    public async Task ReceiveAndRead_AllocatesAtMost_BeyondTheReaderAlone_PerMessage(int lines, int budget)
    {
        (AwsTransport transport, InboundMessageReader reader, SqsMessage[] bodies) = Create(lines);
        SqsMessage[] asBytes = Array.ConvertAll(bodies, static m => new SqsMessage { Utf8Body = m.Utf8Body, MessageId = m.MessageId, ReceiptHandle = m.ReceiptHandle });

        double alone = await PerMessageAsync(() =>
        {
            foreach (SqsMessage message in asBytes)
            {
                Assert.NotNull(reader.Read(message).Envelope);
            }

            return Task.CompletedTask;
        });
        double perMessage = await PerMessageAsync(async () =>
        {
            IReadOnlyList<SqsMessage> messages = await transport.ReceiveAsync(Queue, Batch, TimeSpan.Zero);
            Assert.Equal(Batch, messages.Count);
            foreach (SqsMessage message in messages)
            {
                Assert.NotNull(reader.Read(message).Envelope);
            }
        });

        output.WriteLine($"receive and read, {lines} lines: {perMessage:N0} B per message, the reader alone {alone:N0} B, beyond it {perMessage - alone:N0} B");
        Assert.True(perMessage - alone <= budget, $"{perMessage - alone:N0} B per message beyond the reader alone ({alone:N0} B), over the budget of {budget:N0} B");
    }

    [Theory]
    [InlineData(1, 420)] // measured 413 B: a tenth of the call (request, signing, answer) and the entry's result
    [InlineData(10, 420)]
    public async Task DeleteBatch_AllocatesAtMost_PerMessage(int lines, int budget)
    {
        (AwsTransport transport, InboundMessageReader _, SqsMessage[] bodies) = Create(lines);
        var handles = new List<string>(Batch);
        foreach (SqsMessage message in bodies)
        {
            handles.Add(message.ReceiptHandle);
        }

        double perMessage = await PerMessageAsync(async () =>
        {
            IReadOnlyList<BatchEntryResult> results = await transport.DeleteBatchAsync(Queue, handles);
            Assert.True(results[Batch - 1].Succeeded);
        });

        output.WriteLine($"delete, {lines} lines: {perMessage:N0} B per message");
        Assert.True(perMessage <= budget, $"{perMessage:N0} B per message, over the budget of {budget:N0} B");
    }

    [Theory]
    [InlineData(1, false, 1_500)] // measured 1,350 B: the body's own array (about 500 B), the request, a tenth of the call and its result
    [InlineData(10, false, 2_150)] // measured 1,933 B: a body of about 1,100 bytes
    [InlineData(1, true, 950)] // measured 849 B: the bus's way to a transport done with bodies when calls complete (the body in a
    [InlineData(10, true, 950)] // pooled array): the request and a tenth of the call and its result, whatever the body's size
    public async Task Send_FromTheEnvelopeToTheBatchCall_AllocatesAtMost_PerMessage(int lines, bool pooledBodies, int budget)
    {
        // What publishing costs beyond writing the envelope (which allocates nothing into a reused writer): the
        // writer's request with the body's bytes as written, and a tenth of the SendMessageBatch call.
        (AwsTransport transport, OutboundMessageWriter writer, MessageEnvelope<Order>[] envelopes) = ForSending(lines);

        var requests = new SqsSendRequest[Batch];
        double perMessage = await PerMessageAsync(async () =>
        {
            for (int i = 0; i < Batch; i++)
            {
                requests[i] = pooledBodies ? writer.ToSqsOnRentedBody(envelopes[i], Queue, null, null, null) : writer.ToSqs(envelopes[i], Queue);
            }

            IReadOnlyList<BatchEntryResult> results = await transport.SendBatchAsync(requests);
            Assert.True(results[Batch - 1].Succeeded, results[Batch - 1].ErrorMessage);
            for (int i = 0; i < Batch && pooledBodies; i++)
            {
                requests[i].RentedBody!.Release();
            }
        });

        output.WriteLine($"send from the envelope, {lines} lines, {(pooledBodies ? "pooled bodies" : "bodies of their own")}: {perMessage:N0} B per message");
        Assert.True(perMessage <= budget, $"{perMessage:N0} B per message, over the budget of {budget:N0} B");
    }

    [Theory]
    [InlineData("sns", 1, 850)] // measured 1,705 B in all, 721 B beyond the envelope's text (984 B): the request and a tenth of the call
    [InlineData("sns", 10, 850)] // measured 2,689 B in all, 727 B beyond the text (1,962 B)
    [InlineData("eventbridge", 1, 750)] // measured 1,623 B in all, 639 B beyond the envelope's text (the detail)
    [InlineData("eventbridge", 10, 750)] // measured 2,607 B in all, 645 B beyond the text
    public async Task PublishBatchAndPutEvents_FromTheEnvelopeToTheBatchCall_AllocatePerMessageAtMost(string service, int lines, int budget)
    {
        // As for SQS: the writer's request (SNS and EventBridge take the envelope as text) and a tenth of the call.
        (AwsTransport transport, OutboundMessageWriter writer, MessageEnvelope<Order>[] envelopes) = ForSending(lines);

        var publishes = new SnsPublishRequest[Batch];
        var events = new EventBridgeEntry[Batch];
        double perMessage = await PerMessageAsync(async () =>
        {
            IReadOnlyList<BatchEntryResult> results;
            if (service == "sns")
            {
                for (int i = 0; i < Batch; i++)
                {
                    publishes[i] = writer.ToSns(envelopes[i], "arn:aws:sns:eu-west-1:123456789012:bench");
                }

                results = await transport.PublishBatchAsync(publishes);
            }
            else
            {
                for (int i = 0; i < Batch; i++)
                {
                    events[i] = writer.ToEventBridge(envelopes[i], "bench");
                }

                results = await transport.PutEventBatchAsync(events);
            }

            Assert.True(results[Batch - 1].Succeeded, results[Batch - 1].ErrorMessage);
        });

        // SNS and EventBridge take the envelope as text: that string is the envelope's own writing for them.
        double text = 22 + (2 * writer.ToSns(envelopes[0], "t").Message.Length);
        output.WriteLine($"{service} from the envelope, {lines} lines: {perMessage:N0} B per message, the envelope's text {text:N0} B, beyond it {perMessage - text:N0} B");
        Assert.True(perMessage - text <= budget, $"{perMessage - text:N0} B per message beyond the envelope's text, over the budget of {budget:N0} B");
    }

    /// <summary>The transport, a writer on the fast serializer and a call's worth of envelopes of <paramref name="lines"/> lines.</summary>
    private (AwsTransport Transport, OutboundMessageWriter Writer, MessageEnvelope<Order>[] Envelopes) ForSending(int lines)
    {
        (AwsTransport transport, InboundMessageReader _, SqsMessage[] _) = Create(lines);
        var envelopes = new MessageEnvelope<Order>[Batch];
        for (int i = 0; i < Batch; i++)
        {
            envelopes[i] = Orders.Envelope(lines);
        }

        return (transport, new OutboundMessageWriter(new EnvelopeSerializerProvider(_json!, null)), envelopes);
    }

    /// <summary>Bytes the process allocates per message of <paramref name="call"/> (a call of 10), after warm-up.</summary>
    private static async Task<double> PerMessageAsync(Func<Task> call)
    {
        for (int i = 0; i < 20; i++)
        {
            await call();
        }

        // The endpoint answers at once, so every await completes in place and the whole call runs on this thread: the
        // thread's count is the call's, without what the rest of the process (other tests' timers) allocates meanwhile.
        int thread = Environment.CurrentManagedThreadId;
        long before = GC.GetAllocatedBytesForCurrentThread();
        for (int i = 0; i < Rounds; i++)
        {
            await call();
        }

        Assert.Equal(thread, Environment.CurrentManagedThreadId); // nothing hopped threads
        return (GC.GetAllocatedBytesForCurrentThread() - before) / (double)(Rounds * Batch);
    }

    private (AwsTransport Transport, InboundMessageReader Reader, SqsMessage[] Bodies) Create(int lines)
    {
        MessageTypeMap map = TestSerializers.Map();
        var json = new Utf8JsonEnvelopeSerializer(map);
        var protobuf = new ProtobufEnvelopeSerializer(map);
        _json = json;
        _owned.Add(json);
        _owned.Add(protobuf);
        var bodies = new SqsMessage[Batch];
        for (int i = 0; i < Batch; i++)
        {
            MessageEnvelope<Order> envelope = Orders.Envelope(lines);
            bodies[i] = new SqsMessage
            {
                Body = json.SerializeToString(envelope),
                MessageId = i.ToString("x8", CultureInfo.InvariantCulture) + "-5f8b-4d7e-b6c2-0e3f1a7d9b24",
                ReceiptHandle = "AQEB" + i.ToString("x8", CultureInfo.InvariantCulture) + new string('r', 172),
            };
        }

        var endpoint = new ReplayEndpoint(bodies);
        _owned.Add(endpoint);
        var options = new AwsTransportOptions { Region = "eu-west-1", Credentials = new BasicAWSCredentials("AKIDTEST", "test/secret") };
        options.QueueUrls[Queue] = new Uri(ReplayEndpoint.QueueUrl);
        AwsSettings settings = AwsSettings.Resolve(options, static _ => null);
        var transport = new AwsTransport(options, settings, service => new HttpClient(AwsTransport.CreateSigningHandler(settings, service, endpoint), disposeHandler: false), TimeProvider.System);
        _owned.Add(transport);
        return (transport, TestSerializers.Inbound(json, protobuf, map.Options), bodies);
    }
}
