using System;

namespace Missive.Serialization.Payloads;

/// <summary>A <see cref="ReadOnlyMemory{T}"/> of bytes message.</summary>
internal sealed class MemoryPayloadCodec : BinaryPayloadCodec<ReadOnlyMemory<byte>>
{
    protected override ReadOnlyMemory<byte> GetBytes(ReadOnlyMemory<byte> message) => message;

    protected override ReadOnlyMemory<byte> FromArray(byte[] data) => data;
}
