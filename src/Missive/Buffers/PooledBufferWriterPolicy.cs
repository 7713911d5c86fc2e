using System.Buffers;
using Microsoft.Extensions.ObjectPool;

namespace Missive.Buffers;

/// <summary>
/// Creates <see cref="PooledBufferWriter"/> instances for an <see cref="ObjectPool{T}"/> and, when
/// one comes back, clears it and lets it keep its array only up to a size cap, so an idle pool never
/// pins a large array that a single big envelope once needed.
/// </summary>
internal sealed class PooledBufferWriterPolicy : PooledObjectPolicy<PooledBufferWriter>
{
    private readonly ArrayPool<byte> _pool;
    private readonly int _initialSize;
    private readonly bool _clearOnReturn;
    private readonly int _maxRetainedSize;

    public PooledBufferWriterPolicy(ArrayPool<byte> pool, int initialSize, bool clearOnReturn, int maxRetainedSize)
    {
        _pool = pool;
        _initialSize = initialSize;
        _clearOnReturn = clearOnReturn;
        _maxRetainedSize = maxRetainedSize;
    }

    public override PooledBufferWriter Create() => new(_pool, _initialSize, _clearOnReturn);

    public override bool Return(PooledBufferWriter obj)
    {
        obj.Reset(_maxRetainedSize);
        return true;
    }
}
