using System;
using System.Buffers;

namespace Missive.Buffers;

/// <summary>
/// An <see cref="IBufferWriter{T}"/> over one array rented from an <see cref="ArrayPool{T}"/>,
/// grown by renting a larger array and copying.
/// </summary>
/// <remarks>
/// When <c>clearOnReturn</c> is on (the default, from <c>SerializationOptions.CleanRentedBuffers</c>),
/// the written region of an array is zeroed before the array goes back to the pool, on growth, on
/// <see cref="Reset()"/> and on <see cref="Dispose"/>, so that envelope bytes never linger in memory
/// another pool user will be handed. Only the written region is cleared: the rest was never written
/// by this writer. Not thread-safe.
/// </remarks>
public sealed class PooledBufferWriter : IBufferWriter<byte>, IDisposable
{
    private readonly ArrayPool<byte> _pool;
    private readonly int _initialSize;
    private readonly bool _clearOnReturn;
    private byte[] _buffer;
    private int _written;

    /// <summary>Creates a writer on <see cref="ArrayPool{T}.Shared"/> with a 2048-byte first array that clears what it returns.</summary>
    public PooledBufferWriter()
        : this(ArrayPool<byte>.Shared)
    {
    }

    /// <summary>Creates a writer.</summary>
    /// <param name="pool">The pool to rent arrays from. Must not be null.</param>
    /// <param name="initialSize">The size of the first array, rented on the first write.</param>
    /// <param name="clearOnReturn">Whether to zero the written region before returning an array.</param>
    public PooledBufferWriter(ArrayPool<byte> pool, int initialSize = 2048, bool clearOnReturn = true)
    {
        ArgumentNullException.ThrowIfNull(pool);
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(initialSize);
        _pool = pool;
        _initialSize = initialSize;
        _clearOnReturn = clearOnReturn;
        _buffer = [];
    }

    /// <summary>Gets the number of bytes written.</summary>
    public int WrittenCount => _written;

    /// <summary>Gets the size of the array currently held (0 when none is held).</summary>
    public int Capacity => _buffer.Length;

    /// <summary>Gets the bytes written so far.</summary>
    public ReadOnlySpan<byte> WrittenSpan => _buffer.AsSpan(0, _written);

    /// <summary>Gets the bytes written so far.</summary>
    public ReadOnlyMemory<byte> WrittenMemory => _buffer.AsMemory(0, _written);

    /// <inheritdoc />
    public void Advance(int count)
    {
        if ((uint)count > (uint)(_buffer.Length - _written))
        {
            ThrowHelper.ThrowArgumentOutOfRange(nameof(count), "Cannot advance past the end of the buffer.");
        }

        _written += count;
    }

    /// <inheritdoc />
    public Memory<byte> GetMemory(int sizeHint = 0)
    {
        EnsureCapacity(sizeHint);
        return _buffer.AsMemory(_written);
    }

    /// <inheritdoc />
    public Span<byte> GetSpan(int sizeHint = 0)
    {
        EnsureCapacity(sizeHint);
        return _buffer.AsSpan(_written);
    }

    /// <summary>Forgets what was written (clearing it when clearing is on) and keeps the array for reuse.</summary>
    public void Reset()
    {
        if (_clearOnReturn)
        {
            _buffer.AsSpan(0, _written).Clear();
        }

        _written = 0;
    }

    /// <summary>
    /// Forgets what was written and returns the array to the pool if it is larger than
    /// <paramref name="maxRetainedSize"/>; a smaller array is kept (cleared when clearing is on).
    /// </summary>
    /// <param name="maxRetainedSize">The largest array an idle writer may keep.</param>
    internal void Reset(int maxRetainedSize)
    {
        if (_buffer.Length > maxRetainedSize)
        {
            ReturnBuffer();
        }
        else
        {
            Reset();
        }
    }

    /// <summary>Returns the array to the pool (cleared when clearing is on). The writer can be used again afterwards.</summary>
    public void Dispose() => ReturnBuffer();

    private void ReturnBuffer()
    {
        byte[] buffer = _buffer;
        int written = _written;
        _buffer = [];
        _written = 0;
        if (buffer.Length != 0)
        {
            if (_clearOnReturn)
            {
                buffer.AsSpan(0, written).Clear();
            }

            _pool.Return(buffer);
        }
    }

    private void EnsureCapacity(int sizeHint)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(sizeHint);
        if (sizeHint == 0)
        {
            sizeHint = 1;
        }

        if (sizeHint > _buffer.Length - _written)
        {
            Grow(sizeHint);
        }
    }

    private void Grow(int sizeHint)
    {
        int current = _buffer.Length;
        int needed = checked(_written + sizeHint);
        int newSize = current == 0 ? Math.Max(_initialSize, sizeHint) : Math.Max(needed, current <= Array.MaxLength / 2 ? current * 2 : Array.MaxLength);
        if (newSize < needed)
        {
            throw new InvalidOperationException("The buffer cannot grow past the largest array size.");
        }

        byte[] next = _pool.Rent(newSize);
        byte[] previous = _buffer;
        if (previous.Length != 0)
        {
            previous.AsSpan(0, _written).CopyTo(next);
            if (_clearOnReturn)
            {
                previous.AsSpan(0, _written).Clear();
            }

            _pool.Return(previous);
        }

        _buffer = next;
    }
}
