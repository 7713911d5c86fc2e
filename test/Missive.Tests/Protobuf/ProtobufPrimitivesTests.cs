using System;
using Missive.Protobuf;
using Missive.Tests.Infrastructure;

namespace Missive.Tests.Protobuf;

public sealed class ProtobufPrimitivesTests
{
    /// <summary>Every boundary where a varint gains a byte (2^7k - 1 and 2^7k), and the extremes.</summary>
    public static TheoryData<ulong> VarintBoundaries()
    {
        var data = new TheoryData<ulong> { 0, ulong.MaxValue };
        for (int bits = 7; bits < 64; bits += 7)
        {
            data.Add((1UL << bits) - 1);
            data.Add(1UL << bits);
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(VarintBoundaries))]
    public void VarintSize_EqualsTheBytesWritten(ulong value)
    {
        Span<byte> buffer = stackalloc byte[ProtobufPrimitives.MaxVarintLength];
        int written = ProtobufPrimitives.WriteVarint(buffer, value);

        Assert.Equal(ProtobufPrimitives.VarintSize(value), written);
        Assert.True(buffer[written - 1] < 0x80, "the last byte has no continuation bit");
        for (int i = 0; i < written - 1; i++)
        {
            Assert.True(buffer[i] >= 0x80, "every byte but the last has the continuation bit");
        }

        Assert.Equal(value, Decode(buffer[..written]));
    }

    [Theory]
    [InlineData(0, 1)]
    [InlineData(127, 1)]
    [InlineData(128, 2)]
    [InlineData(int.MaxValue, 5)]
    [InlineData(-1, 10)]
    [InlineData(int.MinValue, 10)]
    public void Int32Size_SignExtendsNegativesToTenBytes(int value, int expected)
        => Assert.Equal(expected, ProtobufPrimitives.Int32Size(value));

    [Theory]
    [InlineData(0, 1)]
    [InlineData(127, 128)]
    [InlineData(128, 130)]
    [InlineData(16383, 16385)]
    [InlineData(16384, 16387)]
    public void LengthDelimitedSize_IsPrefixPlusBody(int length, int expected)
        => Assert.Equal(expected, ProtobufPrimitives.LengthDelimitedSize(length));

    [Theory]
    [InlineData(0L, 0)]
    [InlineData(-1L, 999_999_900)]
    [InlineData(1_762_180_029L, 441_827_300)]
    public void Timestamp_RoundTripsThroughSecondsAndNanos(long seconds, int nanos)
    {
        Assert.True(ProtobufPrimitives.TryFromTimestamp(seconds, nanos, out DateTimeOffset value));
        ProtobufPrimitives.ToTimestamp(value, out long s, out int n);

        Assert.Equal((seconds, nanos), (s, n));
        Assert.False(ProtobufPrimitives.TryFromTimestamp(seconds, 1_000_000_000, out _));
    }

    public static TheoryData<string> CorpusNames() => EnvelopeCorpus.Names();

    /// <summary>
    /// A batch item's length prefix is the event size computed up front (ComputeSize), and the event after
    /// it is written by the same code as a single event: the prefix must equal the bytes that follow it.
    /// </summary>
    [Theory]
    [MemberData(nameof(CorpusNames))]
    public void ComputedEventSize_EqualsTheBytesWritten(string name)
    {
        using var serializer = new ProtobufEnvelopeSerializer(TestSerializers.Map(EnvelopeCorpus.Options()));
        var batch = new TrickleBufferWriter();

        int total = serializer.SerializeBatch(batch, [EnvelopeCorpus.Get(name)]);

        ReadOnlySpan<byte> written = batch.WrittenSpan;
        Assert.Equal(total, written.Length);
        Assert.Equal(CloudEventProto.Batch.EventsTag, written[0]);
        ulong prefix = DecodePrefix(written[1..], out int prefixLength);
        Assert.Equal((ulong)(written.Length - 1 - prefixLength), prefix);
    }

    private static ulong DecodePrefix(ReadOnlySpan<byte> bytes, out int length)
    {
        length = 0;
        while (bytes[length] >= 0x80)
        {
            length++;
        }

        length++;
        return Decode(bytes[..length]);
    }

    private static ulong Decode(ReadOnlySpan<byte> bytes)
    {
        ulong value = 0;
        for (int i = 0; i < bytes.Length; i++)
        {
            value |= (ulong)(bytes[i] & 0x7F) << (7 * i);
        }

        return value;
    }
}
