using System;

namespace Missive.Serialization.Payloads;

/// <summary>A <c>byte[]</c> message.</summary>
internal sealed class ByteArrayPayloadCodec : BinaryPayloadCodec<byte[]>
{
    protected override ReadOnlyMemory<byte> GetBytes(byte[] message) => message;

    protected override byte[] FromArray(byte[] data) => data;
}
