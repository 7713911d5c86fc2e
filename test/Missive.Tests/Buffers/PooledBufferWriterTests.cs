using System;
using Missive.Buffers;
using Missive.Tests.Infrastructure;

namespace Missive.Tests.Buffers;

public sealed class PooledBufferWriterTests
{
    [Fact]
    public void Write_PastSeveralGrowths_KeepsEveryByte()
    {
        var pool = new CountingArrayPool();
        using var writer = new PooledBufferWriter(pool, initialSize: 16);
        byte[] expected = new byte[10_000];
        new Random(7).NextBytes(expected);

        for (int offset = 0; offset < expected.Length; offset += 7)
        {
            ReadOnlySpan<byte> chunk = expected.AsSpan(offset, Math.Min(7, expected.Length - offset));
            chunk.CopyTo(writer.GetSpan(chunk.Length));
            writer.Advance(chunk.Length);
        }

        Assert.Equal(expected, writer.WrittenSpan.ToArray());
        Assert.True(pool.Rents > 1);
    }

    [Fact]
    public void Dispose_WithCleaningOn_ReturnsEveryArrayOnceAndZeroed()
    {
        var pool = new CountingArrayPool();
        var writer = new PooledBufferWriter(pool, initialSize: 16, clearOnReturn: true);
        FillWith(writer, 0x42, 5000);

        writer.Dispose();

        Assert.Equal(pool.Rents, pool.Returns);
        Assert.Equal(0, pool.Outstanding);
        Assert.Equal(0, pool.DoubleReturns);
        Assert.Equal(0, pool.DirtyReturns);
    }

    [Fact]
    public void Dispose_WithCleaningOff_LeavesDataInReturnedArrays()
    {
        var pool = new CountingArrayPool();
        var writer = new PooledBufferWriter(pool, initialSize: 16, clearOnReturn: false);
        FillWith(writer, 0x42, 5000);

        writer.Dispose();

        Assert.Equal(pool.Rents, pool.Returns);
        Assert.Equal(pool.Returns, pool.DirtyReturns);
    }

    [Fact]
    public void Dispose_Twice_ReturnsTheArrayOnlyOnce()
    {
        var pool = new CountingArrayPool();
        var writer = new PooledBufferWriter(pool, initialSize: 16);
        FillWith(writer, 1, 10);

        writer.Dispose();
        writer.Dispose();

        Assert.Equal(1, pool.Returns);
        Assert.Equal(0, pool.DoubleReturns);
    }

    [Fact]
    public void Reset_ClearsTheWrittenRegionAndKeepsTheArray()
    {
        var pool = new CountingArrayPool();
        using var writer = new PooledBufferWriter(pool, initialSize: 64);
        FillWith(writer, 0x42, 40);
        Span<byte> before = writer.GetSpan(1);

        writer.Reset();

        Assert.Equal(0, writer.WrittenCount);
        Assert.Equal(1, pool.Rents);
        Assert.Equal(0, pool.Returns);
        Assert.True(writer.GetSpan(40)[..40].IndexOfAnyExcept((byte)0) < 0);
        Assert.Equal(64, writer.Capacity);
        _ = before;
    }

    [Fact]
    public void ResetWithCap_OverTheCap_ReturnsTheArray()
    {
        var pool = new CountingArrayPool();
        using var writer = new PooledBufferWriter(pool, initialSize: 16);
        FillWith(writer, 0x42, 1000);

        writer.Reset(maxRetainedSize: 256);

        Assert.Equal(0, writer.Capacity);
        Assert.Equal(pool.Rents, pool.Returns);
        Assert.Equal(0, pool.DirtyReturns);
    }

    [Fact]
    public void Advance_PastTheSpan_Throws()
    {
        using var writer = new PooledBufferWriter(new CountingArrayPool(), initialSize: 16);
        int available = writer.GetSpan(1).Length;

        Assert.Throws<ArgumentOutOfRangeException>(() => writer.Advance(available + 1));
        Assert.Throws<ArgumentOutOfRangeException>(() => writer.Advance(-1));
    }

    private static void FillWith(PooledBufferWriter writer, byte value, int count)
    {
        for (int i = 0; i < count; i++)
        {
            writer.GetSpan(1)[0] = value;
            writer.Advance(1);
        }
    }
}
