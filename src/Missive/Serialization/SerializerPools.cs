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
