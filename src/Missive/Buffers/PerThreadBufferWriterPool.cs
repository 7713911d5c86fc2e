using System;
using Microsoft.Extensions.ObjectPool;

namespace Missive.Buffers;

/// <summary>
/// One <see cref="PooledBufferWriter"/> kept per thread, in the manner of System.Text.Json's writer cache, for the
/// text and array conveniences on any serializer.
/// </summary>
/// <remarks>
/// <list type="bullet">
/// <item>The conveniences write a whole envelope into a buffer of their own and copy it out before returning, so one
/// writer per thread serves them without locking.</item>
/// <item>A rent while the thread's writer is out (a serializer calling a convenience from inside one) gets a new
/// writer, disposed when it comes back.</item>
/// <item>Arrays come from <see cref="System.Buffers.ArrayPool{T}.Shared"/> and are cleared before reuse or release.</item>
/// </list>
/// </remarks>
internal sealed class PerThreadBufferWriterPool : ObjectPool<PooledBufferWriter>
{
    /// <summary>The largest array a thread's idle writer keeps (as <c>SerializationOptions.MaxRetainedBufferSize</c>'s default).</summary>
    private const int MaxRetainedSize = 256 * 1024;

    [ThreadStatic]
    private static PooledBufferWriter? s_idle;

    public static readonly PerThreadBufferWriterPool Instance = new();

    [ThreadStatic]
    private static System.Text.Json.Utf8JsonWriter? s_json;

    private PerThreadBufferWriterPool()
    {
    }

    /// <summary>
    /// This thread's <see cref="System.Text.Json.Utf8JsonWriter"/> (default options, no validation) pointed at
    /// <paramref name="destination"/>: for JSON written whole and copied out before anything else on the thread writes
    /// with it. Flush it before reading what it wrote.
    /// </summary>
    public static System.Text.Json.Utf8JsonWriter JsonWriter(PooledBufferWriter destination)
    {
        System.Text.Json.Utf8JsonWriter writer = s_json ??= new System.Text.Json.Utf8JsonWriter(destination, new System.Text.Json.JsonWriterOptions { SkipValidation = true });
        writer.Reset(destination);
        return writer;
    }

    public override PooledBufferWriter Get()
    {
        PooledBufferWriter? idle = s_idle;
        if (idle is null)
        {
            return new PooledBufferWriter();
        }

        s_idle = null;
        return idle;
    }

    public override void Return(PooledBufferWriter obj)
    {
        if (s_idle is null)
        {
            obj.Reset(MaxRetainedSize);
            s_idle = obj;
        }
        else
        {
            obj.Dispose();
        }
    }
}
