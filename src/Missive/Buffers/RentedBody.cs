using System;
using System.Buffers;
using System.Threading;

namespace Missive.Buffers;

/// <summary>
/// A message body written into an array rented from <see cref="ArrayPool{T}.Shared"/> for one send, and given back
/// (its written bytes cleared: it held a message) when its last holder lets go: the publisher holds it for its send, and a batch call holds it until the transport's call has really
/// ended, even when the call was abandoned at its deadline and its publish already failed. So no body is back in the pool
/// while a call that holds it can still read it.
/// </summary>
internal sealed class RentedBody
{
    private byte[]? _array;
    private readonly int _length;
    private int _holders = 1; // the publisher that rented it

    public RentedBody(byte[] array, int length)
    {
        _array = array;
        _length = length;
    }

    /// <summary>One more holder (a call that reads the body).</summary>
    public void Hold() => Interlocked.Increment(ref _holders);

    /// <summary>A holder lets go; the last gives the array back, cleared.</summary>
    public void Release()
    {
        if (Interlocked.Decrement(ref _holders) == 0 && Interlocked.Exchange(ref _array, null) is { } array)
        {
            array.AsSpan(0, _length).Clear();
            ArrayPool<byte>.Shared.Return(array);
        }
    }
}
