using System;
using System.Buffers;
using System.Text.Json;
using Missive.Buffers;
using Missive.Json;
using Missive.Protobuf;
using Missive.Serialization;
using Missive.Tests.Infrastructure;
using Missive.Transport;

namespace Missive.Tests.Buffers;

/// <summary>
/// Failing reads and writes return every pooled array cleared (CleanRentedBuffers is on by default), like the
/// success paths: <see cref="CountingArrayPool"/> counts every returned array that holds anything but zeros or its fill.
/// </summary>
public sealed class FailurePathHygieneTests
{
    [Fact]
    public void PooledBufferWriter_ClearsWhatWasWrittenIntoAHandedOutSpan_EvenIfNeverAdvanced()
    {
        var pool = new CountingArrayPool();
        var writer = new PooledBufferWriter(pool, initialSize: 64);

        writer.GetSpan(10).Fill(0x42);      // a write that failed before Advance
        writer.Reset();
        Assert.True(writer.GetSpan(10)[..10].IndexOfAnyExcept((byte)0) < 0, "Reset left bytes that were written but not advanced");
        writer.GetSpan(10).Fill(0x43);
        writer.GetSpan(200).Fill(0x44);     // grows: the first array goes back with its unadvanced bytes cleared
        writer.Dispose();                   // the second goes back with them cleared too

        Assert.Equal(2, pool.Rents);
        Assert.Equal(0, pool.Outstanding);
        Assert.Equal(0, pool.DirtyReturns);
    }

    [Fact]
    public void PooledBufferWriter_HandsOutABoundedChunk_SoClearingStaysNearTheWrittenRegion()
    {
        using var writer = new PooledBufferWriter(ArrayPool<byte>.Shared, initialSize: 64 * 1024);

        Assert.Equal(PooledBufferWriter.MinimumChunk, writer.GetSpan().Length);
        Assert.Equal(10_000, writer.GetMemory(10_000).Length);
        Assert.True(writer.Capacity >= 64 * 1024);
    }

    [Fact]
    public void Protobuf_DeserializeOfInvalidBase64_ReturnsItsBufferCleared()
    {
        var pool = new CountingArrayPool();
        var protobuf = new ProtobufEnvelopeSerializer(TestSerializers.Map(TestSerializers.Options(o => o.BufferPool = pool)));
        string valid = protobuf.SerializeToString(Orders.Envelope(20));

        Assert.Throws<InvalidEnvelopeException>(() => protobuf.Deserialize(valid[..^4] + "!!!!")); // the decoder wrote most of it first
        protobuf.Dispose();

        Assert.Equal(0, pool.Outstanding);
        Assert.Equal(0, pool.DirtyReturns);
    }

    [Theory]
    [InlineData("utf8")]
    [InlineData("standard")]
    [InlineData("protobuf")]
    public void AWriteThatFailsMidway_ReturnsItsBuffersCleared(string kind)
    {
        var pool = new CountingArrayPool();
        MessageTypeMap map = TestSerializers.Map(TestSerializers.Options(o =>
        {
            o.BufferPool = pool;
            o.MaxJsonDepth = 16;
        }));
        EnvelopeSerializer serializer = kind switch
        {
            "utf8" => new Utf8JsonEnvelopeSerializer(map),
            "standard" => new StandardJsonEnvelopeSerializer(map),
            _ => new ProtobufEnvelopeSerializer(map),
        };
        var deep = new Node();
        for (int i = 0; i < 40; i++)
        {
            deep = new Node { Child = deep };
        }

        var envelope = new MessageEnvelope<Node> { Id = "1", Source = "/s", Type = "test.node", Message = deep };
        Assert.Throws<InvalidEnvelopeException>(() => serializer.SerializeToString(envelope)); // System.Text.Json wrote 16 levels before it stopped
        serializer.Dispose();

        Assert.Equal(0, pool.Outstanding);
        Assert.Equal(0, pool.DirtyReturns);
    }

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public void AWrapperWhoseEnvelopeStringCannotBeUnescaped_ReturnsItsBufferCleared(bool eventBridge)
    {
        // An escaped lone surrogate: the unescape copies the envelope into the rented array before it fails.
        string envelope = "{\\\"id\\\":\\\"confidential-order-42\\\",\\\"source\\\":\\\"/s\\\",\\\"data\\\":\\\"\\\\ud800\\\"}";
        string body = eventBridge
            ? "{\"version\":\"0\",\"id\":\"eb\",\"detail-type\":\"t\",\"source\":\"/s\",\"time\":\"2025-11-03T14:27:09Z\",\"detail\":\"" + envelope.Replace("\\\\ud800", "\\ud800", StringComparison.Ordinal) + "\"}"
            : "{\"Type\":\"Notification\",\"MessageId\":\"m\",\"TopicArn\":\"arn:aws:sns:x:1:t\",\"Message\":\"" + envelope.Replace("\\\\ud800", "\\ud800", StringComparison.Ordinal) + "\"}";
        var pool = new CountingArrayPool();
        MessageTypeMap map = TestSerializers.Map(TestSerializers.Options(o => o.BufferPool = pool));
        var reader = TestSerializers.Inbound(new Utf8JsonEnvelopeSerializer(map), new ProtobufEnvelopeSerializer(map), map.Options);

        var error = Assert.Throws<InvalidEnvelopeException>(() => reader.Read(new SqsMessage { Body = body }));

        Assert.Equal(InvalidEnvelopeReason.Malformed, error.Reason);
        Assert.True(pool.Rents > 0);
        Assert.Equal(0, pool.Outstanding);
        Assert.Equal(0, pool.DirtyReturns);
    }

    public static TheoryData<string> HostileBodies => new()
    {
        "null",
        "[]",
        "{\"id\":\"1\",\"source\":\"/s\",\"specversion\":\"1.0\",\"type\":\"Orders.OrderPlaced\",\"data\":{\"OrderId\":\"", // truncated
        "{\"id\":\"1\",\"source\":\"/s\",\"specversion\":\"1.0\",\"type\":\"Orders.OrderPlaced\",\"data\":{\"Total\":\"not a number\"}}",
        "{\"id\":\"1\",\"source\":\"/s\",\"specversion\":\"1.0\",\"type\":\"nobody.registered\",\"data\":{}}",
        "{\"Type\":\"Notification\",\"MessageId\":\"m\",\"TopicArn\":\"arn:aws:sns:x:1:t\",\"Message\":\"{\\\"id\\\":\\\"secret-1\\\",\\\"data\\\":\\\"\\ud800\\\"}\"}",
        "{\"Type\":\"Notification\",\"MessageId\":\"m\",\"TopicArn\":\"arn:aws:sns:x:1:t\",\"Message\":\"{\\\"id\\\":\\\"secret-2\\\",\\\"source\\\":\\\"/s\\\",\"}",
        "{\"version\":\"0\",\"id\":\"eb\",\"detail-type\":\"t\",\"source\":\"/s\",\"time\":\"2025-11-03T14:27:09Z\",\"detail\":{\"id\":\"secret-3\",\"data\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}}",
        "CgExEgIvcxoDMS4wIhJPcmRlcnMuT3JkZXJQbGFjZWQ6!!!", // protobuf base64 with a bad tail
        "CgExEgIvcxoDMS4wIhJPcmRlcnMuT3JkZXJQbGFjZWQ6BXNlY3JldA==", // protobuf whose text data is not the type's JSON
    };

    [Theory]
    [MemberData(nameof(HostileBodies))]
    public void EveryHostileBody_IsATypedErrorAndLeavesNoArrayUncleared(string body)
    {
        var pool = new CountingArrayPool();
        MessageTypeMap map = TestSerializers.Map(TestSerializers.Options(o => o.BufferPool = pool));
        using var json = new Utf8JsonEnvelopeSerializer(map);
        using var protobuf = new ProtobufEnvelopeSerializer(map);
        var reader = TestSerializers.Inbound(json, protobuf, map.Options);

        Assert.Throws<InvalidEnvelopeException>(() => reader.Read(new SqsMessage { Body = body }));
        json.Dispose();
        protobuf.Dispose();

        Assert.Equal(0, pool.Outstanding);
        Assert.Equal(0, pool.DirtyReturns + pool.DoubleReturns + pool.ForeignReturns);
    }
}
