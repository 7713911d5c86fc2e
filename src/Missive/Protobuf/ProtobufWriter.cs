using System;
using System.Buffers;
using System.Runtime.CompilerServices;
using System.Text;

namespace Missive.Protobuf;

/// <summary>
/// Writes protobuf wire data into an <see cref="IBufferWriter{T}"/>: asks for a span, writes into it,
/// and advances the output only on <see cref="Flush"/> or when it needs a new span.
/// </summary>
internal ref struct ProtobufWriter
{
    /// <summary>The smallest span asked of the output, so short fields do not each cost a call.</summary>
    private const int MinimumRequest = 256;

    private readonly IBufferWriter<byte> _output;
    private Span<byte> _span;
    private int _buffered;
    private long _committed;

    public ProtobufWriter(IBufferWriter<byte> output)
    {
        _output = output;
        _span = default;
        _buffered = 0;
        _committed = 0;
    }

    /// <summary>Gets the number of bytes written, flushed or not.</summary>
    public readonly long BytesWritten => _committed + _buffered;

    /// <summary>Gets the output, for payload writers that write to it directly after a <see cref="Flush"/>.</summary>
    public readonly IBufferWriter<byte> Output => _output;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void WriteByte(byte value)
    {
        Reserve(1)[0] = value;
        _buffered++;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void WriteVarint(ulong value)
    {
        if (value < 0x80)
        {
            WriteByte((byte)value);
            return;
        }

        // Reserve may flush (resetting _buffered), so it must run before _buffered is read.
        int written = ProtobufPrimitives.WriteVarint(Reserve(ProtobufPrimitives.MaxVarintLength), value);
        _buffered += written;
    }

    /// <summary>Writes an int32 field value: negative numbers sign-extended to 64 bits, as protobuf requires.</summary>
    public void WriteInt32(int value) => WriteVarint((ulong)(long)value);

    /// <summary>Writes a length prefix and a string's UTF-8 bytes, whose count the caller computed.</summary>
    public void WriteString(string value, int byteCount)
    {
        WriteVarint((uint)byteCount);
        Span<byte> span = Reserve(byteCount);
        Encoding.UTF8.GetBytes(value, span);
        _buffered += byteCount;
    }

    /// <summary>Writes a length prefix and bytes.</summary>
    public void WriteBytes(ReadOnlySpan<byte> value)
    {
        WriteVarint((uint)value.Length);
        value.CopyTo(Reserve(value.Length));
        _buffered += value.Length;
    }

    /// <summary>Writes a Timestamp message body (seconds, nanos; zero fields left out).</summary>
    public void WriteTimestampBody(long seconds, int nanos)
    {
        if (seconds != 0)
        {
            WriteByte(CloudEventProto.Timestamp.SecondsTag);
            WriteVarint((ulong)seconds);
        }

        if (nanos != 0)
        {
            WriteByte(CloudEventProto.Timestamp.NanosTag);
            WriteVarint((uint)nanos);
        }
    }

    /// <summary>Advances the output past what was written; the next write asks for a new span.</summary>
    public void Flush()
    {
        if (_buffered > 0)
        {
            _output.Advance(_buffered);
            _committed += _buffered;
            _buffered = 0;
        }

        _span = default;
    }

    /// <summary>Tells the writer that <paramref name="count"/> bytes were written to <see cref="Output"/> directly after a flush.</summary>
    public void AddDirectlyWritten(long count) => _committed += count;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private Span<byte> Reserve(int size)
    {
        if (_span.Length - _buffered < size)
        {
            Grow(size);
        }

        return _span[_buffered..];
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void Grow(int size)
    {
        Flush();
        _span = _output.GetSpan(Math.Max(size, MinimumRequest));
    }
}
