using System;
using System.Buffers;
using System.Text.Json;
using Microsoft.Extensions.ObjectPool;

namespace Missive.Serialization;

/// <summary>
/// Pools <see cref="Utf8JsonWriter"/> instances: they are pointed at the caller's buffer on use and
/// at a detached placeholder when they come back, so an idle writer holds no reference to a
/// caller's buffer. (Resetting to a <see cref="System.IO.Stream"/> would allocate on every return.)
/// </summary>
internal sealed class Utf8JsonWriterPolicy : PooledObjectPolicy<Utf8JsonWriter>
{
    private readonly JsonWriterOptions _options;

    public Utf8JsonWriterPolicy(JsonWriterOptions options) => _options = options;

    public override Utf8JsonWriter Create() => new(DetachedBufferWriter.Instance, _options);

    public override bool Return(Utf8JsonWriter obj)
    {
        obj.Reset(DetachedBufferWriter.Instance);
        return true;
    }

    /// <summary>The destination of an idle writer: writing to it is a bug, so it throws.</summary>
    private sealed class DetachedBufferWriter : IBufferWriter<byte>
    {
        public static readonly DetachedBufferWriter Instance = new();

        public void Advance(int count) => throw Detached();

        public Memory<byte> GetMemory(int sizeHint = 0) => throw Detached();

        public Span<byte> GetSpan(int sizeHint = 0) => throw Detached();

        private static InvalidOperationException Detached() => new("A pooled Utf8JsonWriter was used after it was returned to its pool.");
    }
}
