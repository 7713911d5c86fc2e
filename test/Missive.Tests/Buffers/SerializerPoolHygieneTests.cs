using System;
using System.Text;
using Missive.Json;
using Missive.Serialization;
using Missive.Tests.Infrastructure;

namespace Missive.Tests.Buffers;

/// <summary>Every array the serializers rent goes back exactly once, zeroed when CleanRentedBuffers is on and not when it is off.</summary>
public sealed class SerializerPoolHygieneTests
{
    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public void ConvenienceMethods_ReturnEveryRentedArrayOnce_ClearedAsConfigured(bool clean)
    {
        var pool = new CountingArrayPool();
        MessageTypeMap map = TestSerializers.Map(TestSerializers.Options(o =>
        {
            o.BufferPool = pool;
            o.CleanRentedBuffers = clean;
            o.InitialBufferSize = 64;       // small, so large envelopes grow through several arrays
            o.MaxRetainedBufferSize = 1024; // and big arrays go back to the pool when a writer is idle
        }));
        var fast = new Utf8JsonEnvelopeSerializer(map);
        var standard = new StandardJsonEnvelopeSerializer(map);
        var protobuf = new Missive.Protobuf.ProtobufEnvelopeSerializer(map);
        var envelope = new MessageEnvelope<Order> { Id = "1", Source = "/s", Type = TestSerializers.OrderType, Message = Orders.Create(200) };

        for (int i = 0; i < 20; i++)
        {
            string json = fast.SerializeToString(envelope);
            byte[] bytes = standard.SerializeToArray(envelope);
            fast.Deserialize(json);
            standard.Deserialize(bytes.AsSpan());

            // Protobuf stages the JSON payload in a pooled buffer; multi-segment text data is copied into a rented one.
            byte[] binary = protobuf.SerializeToArray(envelope);
            protobuf.Deserialize(Sequences.Create(binary, Sequences.Split.Random, seed: i));
            protobuf.Deserialize(protobuf.SerializeToString(envelope));
        }

        fast.Dispose();
        standard.Dispose();
        protobuf.Dispose();

        Assert.True(pool.Rents > 0);
        Assert.Equal(0, pool.Outstanding);
        Assert.Equal(pool.Rents, pool.Returns);
        Assert.Equal(0, pool.DoubleReturns);
        Assert.Equal(0, pool.ForeignReturns);
        if (clean)
        {
            Assert.Equal(0, pool.DirtyReturns);
        }
        else
        {
            Assert.True(pool.DirtyReturns > 0, "with CleanRentedBuffers off, returned arrays still hold envelope bytes");
        }
    }

    [Fact]
    public void FailedRead_ReturnsItsBufferAndKeepsTheRawBody()
    {
        var pool = new CountingArrayPool();
        var fast = new Utf8JsonEnvelopeSerializer(TestSerializers.Map(TestSerializers.Options(o => o.BufferPool = pool)));
        const string truncated = """{"id":"1","source":"/s","specversion":"1.0","type":"Orders.OrderPlaced","data":{"OrderId":""";

        var error = Assert.Throws<InvalidEnvelopeException>(() => fast.Deserialize(truncated));
        fast.Dispose();

        Assert.Equal(truncated, Encoding.UTF8.GetString(error.RawBody.Span));
        Assert.Equal(pool.Rents, pool.Returns);
        Assert.Equal(0, pool.DirtyReturns);
    }
}
