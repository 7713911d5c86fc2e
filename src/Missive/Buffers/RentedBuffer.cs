using System;
using System.Buffers;

namespace Missive.Buffers;

/// <summary>
/// An array rented from an <see cref="ArrayPool{T}"/> for the length of one operation, used with
/// <c>using</c>: on dispose, on every path (failure included), the requested region is zeroed when
/// clearing is on and the array goes back to its pool. The default value holds nothing.
/// </summary>
/// <remarks>
/// The whole requested region is cleared, not only what the caller reports as written: a decoder
/// that fails midway may have written past what it reported.
/// </remarks>
internal ref struct RentedBuffer
{
    private readonly ArrayPool<byte>? _pool;
    private readonly int _length;
    private readonly bool _clearOnReturn;
    private byte[]? _array;

    /// <summary>Rents at least <paramref name="length"/> bytes (at least one).</summary>
    public RentedBuffer(ArrayPool<byte> pool, int length, bool clearOnReturn)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(length);
        _pool = pool;
        _length = length;
        _clearOnReturn = clearOnReturn;
        _array = pool.Rent(Math.Max(1, length));
    }

    /// <summary>Gets whether an array is held.</summary>
    public readonly bool IsEmpty => _array is null;

    /// <summary>Gets the requested region of the array.</summary>
    public readonly Span<byte> Span => _array.AsSpan(0, _length);

    /// <summary>Gets the requested region of the array as memory (for readers that take a sequence).</summary>
    public readonly Memory<byte> Memory => _array.AsMemory(0, _length);

    /// <summary>Gets the array (longer than requested, as pools give).</summary>
    public readonly byte[] Array => _array ?? throw new ObjectDisposedException(nameof(RentedBuffer));

    /// <summary>Clears the requested region (when clearing is on) and returns the array. Safe to call twice.</summary>
    public void Dispose()
    {
        byte[]? array = _array;
        if (array is null)
        {
            return;
        }

        _array = null;
        if (_clearOnReturn)
        {
            array.AsSpan(0, _length).Clear();
        }

        _pool!.Return(array);
    }
}
