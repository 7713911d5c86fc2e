using System;
using System.Buffers;
using System.Text.Json;
using Microsoft.Extensions.ObjectPool;
using Missive.Buffers;

namespace Missive.Serialization;

/// <summary>
/// The pooled objects a serializer writes with, rented as leases that go back when disposed (<c>using</c>): buffer
/// writers for staging, and <see cref="Utf8JsonWriter"/>s for a whole envelope or for a value one level down in it
/// (whose depth limit is one less). One instance per serializer, built from its frozen settings.
/// </summary>
internal sealed class SerializerPools : IDisposable
{
    private readonly DefaultObjectPool<PooledBufferWriter> _buffers;
    private readonly DefaultObjectPool<Utf8JsonWriter> _envelopeWriters;
    private readonly DefaultObjectPool<Utf8JsonWriter> _valueWriters;

    public SerializerPools(SerializerSettings settings)
    {
        var provider = new DefaultObjectPoolProvider();
        _buffers = (DefaultObjectPool<PooledBufferWriter>)provider.Create(
            new PooledBufferWriterPolicy(settings.BufferPool, settings.InitialBufferSize, settings.CleanRentedBuffers, settings.MaxRetainedBufferSize));
        _envelopeWriters = (DefaultObjectPool<Utf8JsonWriter>)provider.Create(new Utf8JsonWriterPolicy(settings.JsonWriterOptions));
        _valueWriters = (DefaultObjectPool<Utf8JsonWriter>)provider.Create(
            new Utf8JsonWriterPolicy(settings.JsonWriterOptions with { MaxDepth = settings.JsonWriterOptions.MaxDepth - 1 }));
    }

    /// <summary>Rents an empty buffer writer; its array is cleared on return as the settings say.</summary>
    public PoolLease<PooledBufferWriter> RentBuffer() => new(_buffers, _buffers.Get());

    /// <summary>Rents a writer for a whole envelope (or batch), pointed at <paramref name="destination"/>.</summary>
    public PoolLease<Utf8JsonWriter> RentEnvelopeWriter(IBufferWriter<byte> destination) => Rent(_envelopeWriters, destination);

    /// <summary>Rents a writer for a value written on its own one level down in the envelope object (the data).</summary>
    public PoolLease<Utf8JsonWriter> RentValueWriter(IBufferWriter<byte> destination) => Rent(_valueWriters, destination);

    /// <summary>Returns the idle objects' arrays to their array pool.</summary>
    public void Dispose()
    {
        // The provider made disposing pools (the pooled types are disposable): they dispose what they hold.
        ((IDisposable)_buffers).Dispose();
        ((IDisposable)_envelopeWriters).Dispose();
        ((IDisposable)_valueWriters).Dispose();
    }

    private static PoolLease<Utf8JsonWriter> Rent(DefaultObjectPool<Utf8JsonWriter> pool, IBufferWriter<byte> destination)
    {
        Utf8JsonWriter writer = pool.Get();
        writer.Reset(destination);
        return new PoolLease<Utf8JsonWriter>(pool, writer);
    }
}

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
