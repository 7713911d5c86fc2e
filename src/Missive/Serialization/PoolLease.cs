using System;
using System.Buffers;
using System.Text.Json;
using Microsoft.Extensions.ObjectPool;
using Missive.Buffers;

namespace Missive.Serialization;

/// <summary>
/// A pooled object on loan: <see cref="Dispose"/> gives it back to its pool, or disposes it when it came from no
/// pool. A <c>ref struct</c>, so a lease lives in one method's <c>using</c> and cannot be copied into a field or
/// a closure, and returned twice. The default lease holds nothing and returns nothing.
/// </summary>
internal ref struct PoolLease<T>
    where T : class
{
    private ObjectPool<T>? _pool;
    private T? _value;

    public PoolLease(ObjectPool<T>? pool, T value)
    {
        _pool = pool;
        _value = value;
    }

    /// <summary>Gets the object on loan.</summary>
    public readonly T Value => _value ?? throw new InvalidOperationException("The lease holds nothing: it is the default lease, or it was given back.");

    /// <summary>Gets whether the lease holds an object.</summary>
    public readonly bool IsEmpty => _value is null;

    /// <summary>Gives the object back (once: a second call does nothing).</summary>
    public void Dispose()
    {
        T? value = _value;
        _value = null;
        if (value is null)
        {
            return;
        }

        if (_pool is not null)
        {
            _pool.Return(value);
        }
        else
        {
            (value as IDisposable)?.Dispose();
        }
    }
}
