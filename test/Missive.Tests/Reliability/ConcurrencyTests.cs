using System;
using System.Buffers;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Missive.Buffers;
using Missive.Json;
using Missive.Protobuf;
using Missive.Serialization;
using Missive.Tests.Infrastructure;
using Missive.Tests.Protobuf;

namespace Missive.Tests.Reliability;

/// <summary>
/// Shared singleton serializers under 8 threads × 100,000 mixed operations, on a counting pool: no
/// leaked rental, no double return, every output identical to a single-threaded run, and with
/// CleanRentedBuffers on no array goes back holding envelope bytes.
/// </summary>
public sealed class ConcurrencyTests
{
    private const int Threads = 8;
    private const int OperationsPerThread = 100_000;

    [Fact]
    public async Task SharedSerializers_UnderEightThreads_KeepThePoolCleanAndTheOutputIdentical()
    {
        var pool = new CountingArrayPool();
        MessageTypeMap map = TestSerializers.Map(EnvelopeCorpus.Options(o =>
        {
            o.BufferPool = pool;
            o.InitialBufferSize = 256; // small, so envelopes grow through several pooled arrays
            o.MaxRetainedBufferSize = 4096;
        }));
        var fast = new Utf8JsonEnvelopeSerializer(map);
        var standard = new StandardJsonEnvelopeSerializer(map);
        var protobuf = new ProtobufEnvelopeSerializer(map);
        EnvelopeSerializer[] serializers = [fast, standard, protobuf];

        var envelopes = new List<MessageEnvelope>();
        foreach ((_, MessageEnvelope envelope) in EnvelopeCorpus.All())
        {
            if (ProtobufInteropTests.Serialize(fast, envelope).Length < 8_000)
            {
                envelopes.Add(envelope);
            }
        }

        // The single-threaded reference output of every (serializer, envelope).
        var expected = new byte[serializers.Length][][];
        for (int s = 0; s < serializers.Length; s++)
        {
            expected[s] = new byte[envelopes.Count][];
            for (int e = 0; e < envelopes.Count; e++)
            {
                expected[s][e] = ProtobufInteropTests.Serialize(serializers[s], envelopes[e]);
            }
        }

        int mismatches = 0;
        int failures = 0;
        var workers = new Task[Threads];
        for (int t = 0; t < Threads; t++)
        {
            int thread = t;
            workers[t] = Task.Factory.StartNew(() =>
            {
                var random = new Random(thread);
                using var buffer = new PooledBufferWriter(pool, 256);
                for (int i = 0; i < OperationsPerThread; i++)
                {
                    int s = random.Next(serializers.Length);
                    int e = random.Next(envelopes.Count);
                    try
                    {
                        switch (random.Next(4))
                        {
                            case 0: // serialize into a writer on the same pool
                                buffer.Reset();
                                ProtobufInteropTests.SerializeInto(serializers[s], buffer, envelopes[e]);
                                if (!buffer.WrittenSpan.SequenceEqual(expected[s][e]))
                                {
                                    Interlocked.Increment(ref mismatches);
                                }

                                break;
                            case 1: // the pooled convenience path
                                byte[] bytes = serializers[s] switch
                                {
                                    var x when envelopes[e] is MessageEnvelope<Order> o => x.SerializeToArray(o),
                                    var x when envelopes[e] is MessageEnvelope<string> o => x.SerializeToArray(o),
                                    var x when envelopes[e] is MessageEnvelope<byte[]> o => x.SerializeToArray(o),
                                    var x => x.SerializeToArray((MessageEnvelope<ReadOnlyMemory<byte>>)envelopes[e]),
                                };
                                if (!bytes.AsSpan().SequenceEqual(expected[s][e]))
                                {
                                    Interlocked.Increment(ref mismatches);
                                }

                                break;
                            case 2: // read, in random segments, and write back
                                MessageEnvelope read = serializers[s].Deserialize(Sequences.Create(expected[s][e], Sequences.Split.Random, i));
                                if (!ProtobufInteropTests.Serialize(serializers[s], read).AsSpan().SequenceEqual(expected[s][e]))
                                {
                                    Interlocked.Increment(ref mismatches);
                                }

                                break;
                            default: // a read that fails half way must still return what it rented
                                byte[] truncated = expected[s][e].AsSpan(0, expected[s][e].Length / 2).ToArray();
                                try
                                {
                                    serializers[s].Deserialize(truncated.AsSpan());
                                }
                                catch (InvalidEnvelopeException)
                                {
                                }

                                break;
                        }
                    }
                    catch (Exception)
                    {
                        Interlocked.Increment(ref failures);
                    }
                }
            }, CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default);
        }

        await Task.WhenAll(workers);
        foreach (EnvelopeSerializer serializer in serializers)
        {
            serializer.Dispose();
        }

        Assert.Equal(0, failures);
        Assert.Equal(0, mismatches);
        Assert.Equal(0, pool.Outstanding);
        Assert.Equal(pool.Rents, pool.Returns);
        Assert.Equal(0, pool.DoubleReturns);
        Assert.Equal(0, pool.ForeignReturns);
        Assert.Equal(0, pool.DirtyReturns);
        Assert.True(pool.Rents > Threads, "the run rented from the pool");
    }
}
