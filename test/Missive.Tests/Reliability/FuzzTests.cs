using System;
using System.Buffers;
using System.Collections.Generic;
using System.Text;
using System.Threading.Tasks;
using Missive.Bus;
using Missive.Json;
using Missive.Protobuf;
using Missive.Serialization;
using Missive.Tests.Infrastructure;
using Missive.Tests.Protobuf;
using Missive.Transport;
using Xunit.Abstractions;

namespace Missive.Tests.Reliability;

/// <summary>
/// Seeded mutation fuzzing of every reader. Each input either reads to a valid envelope or throws
/// <see cref="InvalidEnvelopeException"/>: no other exception type, no hang, no allocation out of
/// proportion to the input, never the secret marker in an exception message, and every pooled array
/// returned exactly once and cleared (the serializers rent from a <see cref="CountingArrayPool"/>). The two JSON
/// serializers must agree on every input.
/// </summary>
/// <remarks>
/// CI runs <see cref="DefaultIterations"/> inputs per target, on fixed seeds. Settings (environment variables):
/// <c>MISSIVE_FUZZ_ITERATIONS</c> (inputs per target), <c>MISSIVE_FUZZ_SEED_BASE</c> (the first seed of every target,
/// for fresh long runs: seeds are base, base + 1, …), and <c>MISSIVE_FUZZ_REPLAY=&lt;seed&gt;</c> (run that one input,
/// printed on failure, and nothing else). Each target prints the seeds it used.
/// </remarks>
public sealed class FuzzTests
{
    public const int DefaultIterations = 50_000;
    private const string Secret = "SECRET-CARD-4111";

    private static readonly CountingArrayPool Pool = new();
    private static readonly MessageTypeMap Map = TestSerializers.Map(EnvelopeCorpus.Options(o => o.BufferPool = Pool));
    private static readonly StandardJsonEnvelopeSerializer Standard = new(Map);
    private static readonly Utf8JsonEnvelopeSerializer Fast = new(Map);
    private static readonly Utf8JsonEnvelopeSerializer FastByReader = new(Map) { ReadsCommonShapeByHand = false };
    private static readonly ProtobufEnvelopeSerializer Protobuf = new(Map);
    private static readonly InboundMessageReader Inbound = TestSerializers.Inbound(Fast, Protobuf, Map.Options);
    private static readonly InboundMessageReader InboundWithoutInPlaceDetail = new(new EnvelopeSerializerProvider(Fast, Protobuf), Map.Options);
    private static readonly InboundMessageReader InboundWithoutHandScan = TestSerializers.Inbound(Fast, Protobuf, Map.Options, scanWrappers: false);

    private readonly ITestOutputHelper _output;

    public FuzzTests(ITestOutputHelper output) => _output = output;

    [Fact]
    public Task Json_BothSerializers_AgreeAndOnlyThrowTheTypedException()
        => RunAsync("json", 1_000_000, JsonCorpus(), input =>
        {
            Outcome fast = Try(() => Fast.Deserialize(new ReadOnlySequence<byte>(input)));
            Outcome standard = Try(() => Standard.Deserialize(new ReadOnlySequence<byte>(input)));
            if (fast.Envelope is not null && standard.Envelope is not null)
            {
                string a = Written(fast.Envelope);
                string b = Written(standard.Envelope);
                if (a != b)
                {
                    throw new InvalidOperationException("The two JSON serializers read different envelopes.");
                }
            }
            else if ((fast.Envelope is null) != (standard.Envelope is null))
            {
                throw new InvalidOperationException($"Only one JSON serializer accepted the input (fast: {fast}, standard: {standard}).");
            }

            // An envelope read by hand must read as the reader reads it.
            Outcome byReader = Try(() => FastByReader.Deserialize(new ReadOnlySequence<byte>(input)));
            if (!Same(fast, byReader))
            {
                throw new InvalidOperationException($"Reading the envelope by hand changed the outcome (by hand: {fast}, by reader: {byReader}).");
            }

            // Multi-segment input must behave as contiguous input.
            Outcome split = Try(() => Fast.Deserialize(Sequences.Create(input, Sequences.Split.Random, input.Length)));
            if ((split.Envelope is null) != (fast.Envelope is null))
            {
                throw new InvalidOperationException($"Splitting the input changed the outcome (contiguous: {fast}, split: {split}).");
            }
        });

    [Fact]
    public Task Protobuf_OnlyThrowsTheTypedException()
        => RunAsync("protobuf", 2_000_000, ProtobufCorpus(), input =>
        {
            Outcome whole = Try(() => Protobuf.Deserialize(new ReadOnlySequence<byte>(input)));
            Outcome split = Try(() => Protobuf.Deserialize(Sequences.Create(input, Sequences.Split.Random, input.Length)));
            if ((whole.Envelope is null) != (split.Envelope is null))
            {
                throw new InvalidOperationException($"Splitting the input changed the outcome (contiguous: {whole}, split: {split}).");
            }

            Try(() => Protobuf.DeserializeBatch(new ReadOnlySequence<byte>(input)).Count > 0 ? null : null);
        });

    [Fact]
    public Task SqsBodies_OnlyThrowTheTypedException()
        => RunAsync("sqs-body", 3_000_000, BodyCorpus(), input =>
        {
            string body = Encoding.UTF8.GetString(input);
            Outcome inPlace = Try(() => Inbound.Read(new SqsMessage { Body = body }).Envelope);

            // An EventBridge detail read where it lies must give what reading it on its own gives, and a wrapper gone
            // through by hand what a reader gives.
            Outcome apart = Try(() => InboundWithoutInPlaceDetail.Read(new SqsMessage { Body = body }).Envelope);
            if (!Same(inPlace, apart))
            {
                throw new InvalidOperationException($"Reading the detail in place changed the outcome (in place: {inPlace}, apart: {apart}).");
            }

            Outcome byReader = Try(() => InboundWithoutHandScan.Read(new SqsMessage { Body = body }).Envelope);
            if (!Same(inPlace, byReader))
            {
                throw new InvalidOperationException($"Going through the wrapper by hand changed the outcome (by hand: {inPlace}, by reader: {byReader}).");
            }
        });

    [Fact]
    public Task ReceiveAnswers_OnlyThrowTheTypedException_AndKeepOnlyMessagesThatCheckOut()
        => RunAsync("sqs-receive-answer", 5_000_000, ReceiveAnswerCorpus(), input =>
        {
            // A whole ReceiveMessage answer, cut or mutated: the answer fails whole only with the transport's typed
            // error; a message it keeps has valid UTF-8 bytes whose MD5 is the one SQS returned (digests on), and
            // reading it gives an envelope or the typed envelope error. The unescaping scratch is the counting pool.
            var response = new Missive.Aws.Protocol.AwsResponse(input, input.Length, "fuzz");
            var skipped = new List<(string? MessageId, string Problem)>();
            List<SqsMessage> messages;
            try
            {
                messages = Missive.Aws.Sqs.SqsReceiveAnswer.Read(response, verifyDigests: true, skipped, Pool);
            }
            catch (MessageTransportException)
            {
                return;
            }

            foreach (SqsMessage message in messages)
            {
                if (!System.Text.Unicode.Utf8.IsValid(message.Utf8Body.Span))
                {
                    throw new InvalidOperationException("A kept message's body is not valid UTF-8.");
                }

                Try(() => Inbound.Read(message).Envelope);
            }
        });

    /// <summary>ReceiveMessage answers around the SQS bodies of <see cref="BodyCorpus"/>: with their real digests, one, three or ten to an answer, with and without message attributes, and one with a wrong digest.</summary>
    [System.Diagnostics.CodeAnalysis.SuppressMessage("Security", "CA5351", Justification = "SQS defines its body digest as MD5.")]
    private static List<byte[]> ReceiveAnswerCorpus()
    {
        List<byte[]> bodies = BodyCorpus();
        bodies.Add(Encoding.UTF8.GetBytes("caf\u00e9 \"quoted\" \ud83d\ude00 \u0000 plain text"));
        var corpus = new List<byte[]>();
        for (int first = 0; first < bodies.Count; first++)
        {
            foreach (int count in new[] { 1, 3, 10 })
            {
                var answer = new StringBuilder("{\"Messages\":[");
                for (int i = 0; i < count; i++)
                {
                    string body = Encoding.UTF8.GetString(bodies[(first + i) % bodies.Count]);
                    bool attributes = (first + i) % 2 == 0;
                    string digest = Convert.ToHexStringLower(System.Security.Cryptography.MD5.HashData(Encoding.UTF8.GetBytes(body)));
                    answer.Append(i > 0 ? "," : string.Empty)
                        .Append("{\"MessageId\":\"m-").Append(first).Append('-').Append(i)
                        .Append("\",\"ReceiptHandle\":\"AQEB").Append(first).Append(i).Append(new string('r', 40))
                        .Append("\",\"MD5OfBody\":\"").Append(count == 3 && i == 1 ? new string('0', 32) : digest)
                        .Append("\",\"Body\":").Append(System.Text.Json.JsonSerializer.Serialize(body))
                        .Append(",\"Attributes\":{\"ApproximateReceiveCount\":\"2\",\"SentTimestamp\":\"1762180029441\",\"MessageGroupId\":\"g\"}");
                    if (attributes)
                    {
                        answer.Append(",\"MD5OfMessageAttributes\":\"19e27d4e946b072f3f58da80d94fd778\",\"MessageAttributes\":{\"attribName1\":{\"DataType\":\"String\",\"StringValue\":\"attribValue 1\"}}");
                    }

                    answer.Append('}');
                }

                corpus.Add(Encoding.UTF8.GetBytes(answer.Append("]}").ToString()));
            }
        }

        return corpus;
    }

    /// <summary>The same envelope (as written, with its wrapper ids), or the same error (reason, message and position).</summary>
    private static bool Same(Outcome a, Outcome b)
        => a.Envelope is not null && b.Envelope is not null
            ? Written(a.Envelope) == Written(b.Envelope) && a.Envelope.EventBridgeMetadata?.EventId == b.Envelope.EventBridgeMetadata?.EventId && a.Envelope.SnsMetadata?.MessageId == b.Envelope.SnsMetadata?.MessageId
            : (a.Envelope is null) == (b.Envelope is null) && a.Error?.Reason == b.Error?.Reason && a.Error?.Message == b.Error?.Message && a.Error?.Position == b.Error?.Position;

    private async Task RunAsync(string target, int defaultSeedBase, List<byte[]> corpus, Action<byte[]> check)
    {
        int iterations = Setting("MISSIVE_FUZZ_ITERATIONS") ?? DefaultIterations;
        int seedBase = Setting("MISSIVE_FUZZ_SEED_BASE") ?? defaultSeedBase;
        int? replay = Setting("MISSIVE_FUZZ_REPLAY");
        if (replay is null && (long)seedBase + iterations > int.MaxValue)
        {
            throw new InvalidOperationException($"MISSIVE_FUZZ_SEED_BASE {seedBase} + MISSIVE_FUZZ_ITERATIONS {iterations} passes the largest seed ({int.MaxValue}).");
        }

        int count = replay is null ? iterations : 1;
        int first = replay ?? seedBase;
        Task run = Task.Run(() =>
        {
            for (int i = 0; i < count; i++)
            {
                int seed = first + i;
                byte[] input = Mutator.Mutate(corpus, seed);
                int dirtyBefore = Pool.DirtyReturns + Pool.DoubleReturns + Pool.ForeignReturns;
                long before = GC.GetAllocatedBytesForCurrentThread();
                try
                {
                    check(input);
                }
                catch (Exception e)
                {
                    throw new InvalidOperationException(
                        $"Fuzz target '{target}' failed on seed {seed} (replay: MISSIVE_FUZZ_REPLAY={seed}); input ({input.Length} bytes): {Convert.ToHexString(input.AsSpan(0, Math.Min(input.Length, 256)))}", e);
                }

                long allocated = GC.GetAllocatedBytesForCurrentThread() - before;
                long allowed = (64L * input.Length) + (512 * 1024);
                if (allocated > allowed)
                {
                    throw new InvalidOperationException($"Fuzz target '{target}' allocated {allocated} bytes for a {input.Length}-byte input on seed {seed} (replay: MISSIVE_FUZZ_REPLAY={seed}).");
                }

                if (Pool.DirtyReturns + Pool.DoubleReturns + Pool.ForeignReturns != dirtyBefore)
                {
                    throw new InvalidOperationException($"Fuzz target '{target}' returned a pooled array uncleared, twice, or not rented from the pool on seed {seed} (replay: MISSIVE_FUZZ_REPLAY={seed}).");
                }
            }
        });

        // A hang guard, not a timing assertion: far beyond any honest run.
        Task finished = await Task.WhenAny(run, Task.Delay(TimeSpan.FromMinutes(10) + TimeSpan.FromMilliseconds(count / 10.0)));
        Assert.True(finished == run, $"Fuzz target '{target}' did not finish: a reader hangs.");
        await run;
        _output.WriteLine(replay is null
            ? $"{target}: {count} inputs from a corpus of {corpus.Count}, seeds {first}..{first + count - 1}; pooled arrays so far (one pool for every target): {Pool.Rents} rented, {Pool.Returns} returned, {Pool.DirtyReturns} uncleared"
            : $"{target}: replayed seed {first}");
    }

    private static int? Setting(string name) => int.TryParse(Environment.GetEnvironmentVariable(name), out int value) ? value : null;

    /// <summary>
    /// The envelope written back, for comparison. System.Text.Json reads a number like 1e400 as
    /// infinity, which it then refuses to write: that outcome is compared too.
    /// </summary>
    private static string Written(MessageEnvelope envelope)
    {
        try
        {
            return Encoding.UTF8.GetString(ProtobufInteropTests.Serialize(Fast, envelope));
        }
        catch (InvalidEnvelopeException e) when (e.Reason == InvalidEnvelopeReason.InvalidData)
        {
            return "unwritable: " + e.InnerException?.Message; // System.Text.Json's refusal, as Missive's exception
        }
    }

    private static Outcome Try(Func<MessageEnvelope?> read)
    {
        try
        {
            return new Outcome(read(), null);
        }
        catch (InvalidEnvelopeException e)
        {
            if (e.Message.Contains(Secret, StringComparison.Ordinal))
            {
                throw new InvalidOperationException("An exception message leaked message content.", e);
            }

            return new Outcome(null, e);
        }
    }

    private static List<byte[]> JsonCorpus()
    {
        var corpus = new List<byte[]>();
        foreach ((_, MessageEnvelope envelope) in EnvelopeCorpus.All())
        {
            byte[] bytes = ProtobufInteropTests.Serialize(Fast, envelope);
            if (bytes.Length < 20_000)
            {
                corpus.Add(bytes);
            }
        }

        corpus.Add(Encoding.UTF8.GetBytes($$"""{"data":{"OrderId":"{{Secret}}","Lines":[]},"id":"1","source":"/s","specversion":"1.0","type":"Orders.OrderPlaced","subject":"{{Secret}}","ext":"{{Secret}}"}"""));
        corpus.Add(Encoding.UTF8.GetBytes("""{"id":"1","source":"/s","specversion":"1.0","type":"blobs.binary","data_base64":"AQIDBA==","exttime":"2020-01-01T00:00:00+01:00","extbinary":"TWE="}"""));
        return corpus;
    }

    private static List<byte[]> ProtobufCorpus()
    {
        var corpus = new List<byte[]>();
        foreach ((_, MessageEnvelope envelope) in EnvelopeCorpus.All())
        {
            byte[] bytes = ProtobufInteropTests.Serialize(Protobuf, envelope);
            if (bytes.Length < 20_000)
            {
                corpus.Add(bytes);
                corpus.Add(WireMutations.Stretch(WireMutations.WithUnknownFields(bytes)));
            }
        }

        return corpus;
    }

    private static List<byte[]> BodyCorpus()
    {
        var broker = new Missive.InMemory.InMemoryBroker();
        broker.CreateQueue("q");
        broker.CreateTopic("t");
        broker.Subscribe("t", "q");
        broker.Subscribe("t", "q", rawMessageDelivery: true);
        broker.CreateEventBus("b");
        broker.AddRule("b", "q");
        var writer = new OutboundMessageWriter(new EnvelopeSerializerProvider(Fast, Protobuf));
        var corpus = new List<byte[]>();
        foreach (string name in new[] { "order-1-lines", "text-3", "binary-one", "every-attribute-and-extension-type" })
        {
            MessageEnvelope envelope = EnvelopeCorpus.Get(name);
            foreach (EnvelopeFormat format in new[] { EnvelopeFormat.Json, EnvelopeFormat.Protobuf })
            {
                switch (envelope)
                {
                    case MessageEnvelope<Order> e:
                        Publish(broker, writer, e, format);
                        break;
                    case MessageEnvelope<string> e:
                        Publish(broker, writer, e, format);
                        break;
                    case MessageEnvelope<byte[]> e:
                        Publish(broker, writer, e, format);
                        break;
                }
            }
        }

        foreach (SqsMessage message in broker.ReceiveAsync("q", 10, TimeSpan.Zero).GetAwaiter().GetResult())
        {
            corpus.Add(Encoding.UTF8.GetBytes(message.Body));
        }

        // A nested shape: an EventBridge event whose detail is a string, inside an SNS notification.
        string inner = Encoding.UTF8.GetString(ProtobufInteropTests.Serialize(Fast, EnvelopeCorpus.Get("text-3")));
        string eventBridge = "{\"version\":\"0\",\"id\":\"eb\",\"detail-type\":\"notes.text\",\"source\":\"/s\",\"time\":\"2025-11-03T14:27:09Z\",\"detail\":" + System.Text.Json.JsonSerializer.Serialize(inner) + "}";
        corpus.Add(Encoding.UTF8.GetBytes("{\"Type\":\"Notification\",\"MessageId\":\"m\",\"TopicArn\":\"arn:aws:sns:x:1:t\",\"Message\":" + System.Text.Json.JsonSerializer.Serialize(eventBridge) + "}"));

        // Object details read in place: followed by more members, repeated, and inside an SNS notification.
        string objectDetail = "{\"version\":\"0\",\"id\":\"eb\",\"detail-type\":\"notes.text\",\"source\":\"/s\",\"time\":\"2025-11-03T14:27:09Z\",\"detail\":" + inner;
        corpus.Add(Encoding.UTF8.GetBytes(objectDetail + ",\"region\":\"eu-west-1\",\"resources\":[]}"));
        corpus.Add(Encoding.UTF8.GetBytes(objectDetail + ",\"detail\":" + inner.Replace("\"id\":", "\"subject\":\"2\",\"id\":", StringComparison.Ordinal) + "}"));
        corpus.Add(Encoding.UTF8.GetBytes("{\"Type\":\"Notification\",\"MessageId\":\"m\",\"TopicArn\":\"arn:aws:sns:x:1:t\",\"Message\":" + System.Text.Json.JsonSerializer.Serialize(objectDetail + "}") + "}"));

        while (broker.GetQueue("q").Count > 0)
        {
            foreach (string body in broker.GetQueue("q").PeekBodies())
            {
                corpus.Add(Encoding.UTF8.GetBytes(body));
            }

            break;
        }

        return corpus;
    }

    private static void Publish<T>(Missive.InMemory.InMemoryBroker broker, OutboundMessageWriter writer, MessageEnvelope<T> envelope, EnvelopeFormat format)
    {
        broker.SendAsync(writer.ToSqs(envelope, "q", format)).GetAwaiter().GetResult();
        broker.PublishAsync(writer.ToSns(envelope, "t", format)).GetAwaiter().GetResult();
        broker.PutEventAsync(writer.ToEventBridge(envelope, "b", format)).GetAwaiter().GetResult();
    }

    private readonly record struct Outcome(MessageEnvelope? Envelope, InvalidEnvelopeException? Error)
    {
        public override string ToString() => Envelope is not null ? "accepted" : $"rejected: {Error!.Reason}: {Error.Message}";
    }
}
