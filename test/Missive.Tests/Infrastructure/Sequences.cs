using System;
using System.Buffers;
using System.Collections.Generic;

namespace Missive.Tests.Infrastructure;

/// <summary>Builds multi-segment sequences so every reader test also runs with values straddling segments.</summary>
public static class Sequences
{
    /// <summary>How a test splits its input.</summary>
    public enum Split
    {
        Single,
        OneByte,
        OneByteWithEmpty,
        Random,
    }

    public static readonly TheoryData<Split> AllSplits = new() { Split.Single, Split.OneByte, Split.OneByteWithEmpty, Split.Random };

    public static ReadOnlySequence<byte> Create(byte[] data, Split split, int seed = 12345) => split switch
    {
        Split.Single => new ReadOnlySequence<byte>(data),
        Split.OneByte => FromChunks(Chunk(data, _ => 1), withEmpty: false),
        Split.OneByteWithEmpty => FromChunks(Chunk(data, _ => 1), withEmpty: true),
        _ => FromChunks(Chunk(data, RandomSizes(seed)), withEmpty: false),
    };

    private static Func<int, int> RandomSizes(int seed)
    {
        var random = new Random(seed);
        return _ => random.Next(1, 33);
    }

    private static List<byte[]> Chunk(byte[] data, Func<int, int> size)
    {
        var chunks = new List<byte[]>();
        int offset = 0;
        while (offset < data.Length)
        {
            int length = Math.Min(size(offset), data.Length - offset);
            chunks.Add(data.AsSpan(offset, length).ToArray());
            offset += length;
        }

        return chunks;
    }

    public static ReadOnlySequence<byte> FromChunks(IReadOnlyList<byte[]> chunks, bool withEmpty)
    {
        if (chunks.Count == 0)
        {
            return ReadOnlySequence<byte>.Empty;
        }

        var first = new Segment(chunks[0], 0);
        Segment last = first;
        for (int i = 1; i < chunks.Count; i++)
        {
            if (withEmpty)
            {
                last = last.Append(ReadOnlyMemory<byte>.Empty);
            }

            last = last.Append(chunks[i]);
        }

        return new ReadOnlySequence<byte>(first, 0, last, last.Memory.Length);
    }

    private sealed class Segment : ReadOnlySequenceSegment<byte>
    {
        public Segment(ReadOnlyMemory<byte> memory, long runningIndex)
        {
            Memory = memory;
            RunningIndex = runningIndex;
        }

        public Segment Append(ReadOnlyMemory<byte> memory)
        {
            var next = new Segment(memory, RunningIndex + Memory.Length);
            Next = next;
            return next;
        }
    }
}
