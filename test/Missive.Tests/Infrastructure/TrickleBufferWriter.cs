using System;
using System.Buffers;

namespace Missive.Tests.Infrastructure;

/// <summary>An <see cref="IBufferWriter{T}"/> that never hands out more than it was asked for (at least one byte), so writers must cope with tiny spans.</summary>
public sealed class TrickleBufferWriter : IBufferWriter<byte>
{
    private byte[] _data = new byte[16];
    private int _written;
    private int _lastHandedOut;

    public ReadOnlySpan<byte> WrittenSpan => _data.AsSpan(0, _written);

    public void Advance(int count)
    {
        if (count < 0 || count > _lastHandedOut)
        {
            throw new InvalidOperationException($"Advanced {count} after handing out {_lastHandedOut}.");
        }

        _written += count;
        _lastHandedOut = 0;
    }

    public Memory<byte> GetMemory(int sizeHint = 0)
    {
        int size = Math.Max(sizeHint, 1);
        if (_data.Length - _written < size)
        {
            Array.Resize(ref _data, Math.Max(_data.Length * 2, _written + size));
        }

        _lastHandedOut = size;
        return _data.AsMemory(_written, size);
    }

    public Span<byte> GetSpan(int sizeHint = 0) => GetMemory(sizeHint).Span;
}
