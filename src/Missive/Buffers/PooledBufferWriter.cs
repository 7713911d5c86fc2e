using System;
using System.Buffers;

namespace Missive.Buffers;

/// <summary>
/// An <see cref="IBufferWriter{T}"/> over one array rented from an <see cref="ArrayPool{T}"/>,
/// grown by renting a larger array and copying.
/// </summary>
/// <remarks>
/// When <c>clearOnReturn</c> is on (the default, from <c>SerializationOptions.CleanRentedBuffers</c>),
/// everything the writer ever handed out is zeroed before the array goes back to the pool (on growth and on
/// <see cref="Dispose"/>) or is reused (on <see cref="Reset()"/>), so that envelope bytes never linger in memory
/// another user will be handed: not only the written region, but also what a caller wrote into a span from
/// <see cref="GetSpan"/> or <see cref="GetMemory"/> and never advanced over (a write that failed midway).
/// To keep that region small, a span or memory handed out is at most <see cref="MinimumChunk"/> bytes or the size
/// hint, whichever is larger, not the whole free part of the array. Not thread-safe.
/// </remarks>
public sealed class PooledBufferWriter : IBufferWriter<byte>, IDisposable
{
    /// <summary>What <see cref="GetSpan"/> and <see cref="GetMemory"/> hand out at most, unless the size hint asks for more.</summary>
    public const int MinimumChunk = 4096;

    private readonly ArrayPool<byte> _pool;
    private readonly int _initialSize;
    private readonly bool _clearOnReturn;
    private byte[] _buffer;
    private int _written;
    private int _touched; // the end of the furthest span or memory handed out: what may hold bytes, advanced or not

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
        int length = HandOut(sizeHint); // may grow: read _buffer after it
        return _buffer.AsMemory(_written, length);
    }

    /// <inheritdoc />
    public Span<byte> GetSpan(int sizeHint = 0)
    {
        int length = HandOut(sizeHint);
        return _buffer.AsSpan(_written, length);
    }

    /// <summary>Forgets what was written (clearing it when clearing is on) and keeps the array for reuse.</summary>
    public void Reset()
    {
        if (_clearOnReturn)
        {
            _buffer.AsSpan(0, UsedLength).Clear();
        }

        _written = 0;
        _touched = 0;
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
        int used = UsedLength;
        _buffer = [];
        _written = 0;
        _touched = 0;
        if (buffer.Length != 0)
        {
            if (_clearOnReturn)
            {
                buffer.AsSpan(0, used).Clear();
            }

            _pool.Return(buffer);
        }
    }

    /// <summary>The part of the array that may hold bytes: the written region and any span handed out beyond it.</summary>
    private int UsedLength => Math.Max(_written, _touched);

    /// <summary>Makes room for <paramref name="sizeHint"/> bytes and returns how many to hand out, remembering how far that reaches.</summary>
    private int HandOut(int sizeHint)
    {
        EnsureCapacity(sizeHint);
        int length = Math.Min(_buffer.Length - _written, Math.Max(sizeHint, MinimumChunk));
        _touched = Math.Max(_touched, _written + length);
        return length;
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
                previous.AsSpan(0, UsedLength).Clear();
            }

            _pool.Return(previous);
        }

        _buffer = next;
        _touched = _written; // the new array holds only the copy so far
    }
}
