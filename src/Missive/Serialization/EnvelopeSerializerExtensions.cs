using System;
using System.Buffers;
using System.Buffers.Text;
using System.Collections.Generic;
using System.Text;
using Missive.Buffers;

namespace Missive.Serialization;

/// <summary>
/// Convenience doors onto <see cref="IEnvelopeSerializer"/>: each one funnels into the
/// <see cref="IBufferWriter{T}"/> / <see cref="ReadOnlySequence{T}"/> core methods, on a pooled buffer.
/// </summary>
/// <remarks>
/// The buffer is one kept per thread, whatever the serializer: its arrays come from
/// <see cref="ArrayPool{T}.Shared"/> (not <see cref="SerializationOptions.BufferPool"/>) and are always cleared before
/// the buffer is reused or released, as with <see cref="SerializationOptions.CleanRentedBuffers"/> on.
/// </remarks>
public static class EnvelopeSerializerExtensions
{
    /// <summary>
    /// Serializes an envelope to text: the JSON itself for JSON formats, base64 for binary formats
    /// (the form in which binary envelopes travel in SQS and SNS bodies).
    /// </summary>
    /// <typeparam name="T">The message type.</typeparam>
    /// <param name="serializer">The serializer. Must not be null.</param>
    /// <param name="envelope">The envelope. Must not be null.</param>
    /// <returns>The text.</returns>
    public static string SerializeToString<T>(this IEnvelopeSerializer serializer, MessageEnvelope<T> envelope)
    {
        ArgumentNullException.ThrowIfNull(serializer);
        using PoolLease<PooledBufferWriter> lease = RentBuffer();
        PooledBufferWriter buffer = lease.Value;
        serializer.Serialize(buffer, envelope);
        return serializer.Format == EnvelopeFormat.Protobuf ? Convert.ToBase64String(buffer.WrittenSpan) : Encoding.UTF8.GetString(buffer.WrittenSpan);
    }

    /// <summary>
    /// Serializes an envelope to its text form (<see cref="SerializeToString{T}"/>) as UTF-8 bytes, without the string:
    /// the JSON itself, or the base64 of a binary format.
    /// </summary>
    internal static byte[] SerializeToUtf8Text<T>(this IEnvelopeSerializer serializer, MessageEnvelope<T> envelope)
    {
        ArgumentNullException.ThrowIfNull(serializer);
        using PoolLease<PooledBufferWriter> lease = RentBuffer();
        PooledBufferWriter buffer = lease.Value;
        serializer.Serialize(buffer, envelope);
        if (serializer.Format != EnvelopeFormat.Protobuf)
        {
            return buffer.WrittenSpan.ToArray();
        }

        byte[] base64 = new byte[Base64.GetMaxEncodedToUtf8Length(buffer.WrittenCount)];
        Base64.EncodeToUtf8(buffer.WrittenSpan, base64, out _, out int written);
        return written == base64.Length ? base64 : base64.AsSpan(0, written).ToArray();
    }

    /// <summary>
    /// As <see cref="SerializeToUtf8Text{T}"/>, into an array rented from <see cref="ArrayPool{T}.Shared"/>: give it back
    /// through a <see cref="Buffers.RentedBody"/> once nothing reads the bytes any more (it clears them first).
    /// </summary>
    /// <returns>The bytes written, at the start of <paramref name="rented"/>.</returns>
    internal static ReadOnlyMemory<byte> SerializeToRentedUtf8Text<T>(this IEnvelopeSerializer serializer, MessageEnvelope<T> envelope, out byte[] rented)
    {
        ArgumentNullException.ThrowIfNull(serializer);
        using PoolLease<PooledBufferWriter> lease = RentBuffer();
        PooledBufferWriter buffer = lease.Value;
        serializer.Serialize(buffer, envelope);
        if (serializer.Format != EnvelopeFormat.Protobuf)
        {
            rented = ArrayPool<byte>.Shared.Rent(buffer.WrittenCount);
            buffer.WrittenSpan.CopyTo(rented);
            return rented.AsMemory(0, buffer.WrittenCount);
        }

        rented = ArrayPool<byte>.Shared.Rent(Base64.GetMaxEncodedToUtf8Length(buffer.WrittenCount));
        Base64.EncodeToUtf8(buffer.WrittenSpan, rented, out _, out int written);
        return rented.AsMemory(0, written);
    }

    /// <summary>Serializes an envelope to a new array.</summary>
    /// <typeparam name="T">The message type.</typeparam>
    /// <param name="serializer">The serializer. Must not be null.</param>
    /// <param name="envelope">The envelope. Must not be null.</param>
    /// <returns>The bytes.</returns>
    public static byte[] SerializeToArray<T>(this IEnvelopeSerializer serializer, MessageEnvelope<T> envelope)
    {
        ArgumentNullException.ThrowIfNull(serializer);
        using PoolLease<PooledBufferWriter> lease = RentBuffer();
        PooledBufferWriter buffer = lease.Value;
        serializer.Serialize(buffer, envelope);
        return buffer.WrittenSpan.ToArray();
    }

    /// <summary>Reads one envelope from memory without copying it.</summary>
    /// <param name="serializer">The serializer. Must not be null.</param>
    /// <param name="source">The envelope bytes.</param>
    /// <returns>The envelope.</returns>
    public static MessageEnvelope Deserialize(this IEnvelopeSerializer serializer, ReadOnlyMemory<byte> source)
    {
        ArgumentNullException.ThrowIfNull(serializer);
        return serializer.Deserialize(new ReadOnlySequence<byte>(source));
    }

    /// <summary>Reads one envelope from a span (copied into a pooled buffer first).</summary>
    /// <param name="serializer">The serializer. Must not be null.</param>
    /// <param name="source">The envelope bytes.</param>
    /// <returns>The envelope.</returns>
    public static MessageEnvelope Deserialize(this IEnvelopeSerializer serializer, ReadOnlySpan<byte> source)
    {
        ArgumentNullException.ThrowIfNull(serializer);
        using PoolLease<PooledBufferWriter> lease = RentBuffer();
        PooledBufferWriter buffer = lease.Value;
        buffer.Write(source);
        return serializer.Deserialize(new ReadOnlySequence<byte>(buffer.WrittenMemory));
    }

    /// <summary>
    /// Reads one envelope from text: JSON for JSON formats, base64 for binary formats (the inverse of
    /// <see cref="SerializeToString{T}(IEnvelopeSerializer, MessageEnvelope{T})"/>).
    /// </summary>
    /// <param name="serializer">The serializer. Must not be null.</param>
    /// <param name="source">The text. Must not be null.</param>
    /// <returns>The envelope.</returns>
    /// <exception cref="InvalidEnvelopeException">The text is not a valid envelope (or not base64, for binary formats).</exception>
    public static MessageEnvelope Deserialize(this IEnvelopeSerializer serializer, string source)
    {
        ArgumentNullException.ThrowIfNull(serializer);
        ArgumentNullException.ThrowIfNull(source);
        using PoolLease<PooledBufferWriter> lease = RentBuffer();
        PooledBufferWriter buffer = lease.Value;
        if (serializer.Format == EnvelopeFormat.Protobuf)
        {
            Span<byte> span = buffer.GetSpan(Base64MaxDecodedLength(source.Length));
            if (!Convert.TryFromBase64String(source, span, out int written))
            {
                throw ThrowHelper.Create(InvalidEnvelopeReason.Malformed, "The text is not valid base64");
            }

            buffer.Advance(written);
        }
        else
        {
            Encoding.UTF8.GetBytes(source, buffer);
        }

        return serializer.Deserialize(new ReadOnlySequence<byte>(buffer.WrittenMemory));
    }

    /// <summary>
    /// Writes a batch of envelopes in the serializer's batch format (<c>application/cloudevents-batch+json</c> for JSON,
    /// <c>CloudEventBatch</c> for protobuf); the <see cref="IEnvelopeSerializer"/> handed out by dependency injection supports it.
    /// </summary>
    /// <param name="serializer">The serializer. Must not be null.</param>
    /// <param name="destination">Where the bytes go. Must not be null.</param>
    /// <param name="envelopes">The envelopes. Must not be null; may be empty.</param>
    /// <returns>The number of bytes written.</returns>
    /// <exception cref="NotSupportedException">The serializer does not implement <see cref="IBatchEnvelopeSerializer"/>.</exception>
    /// <exception cref="InvalidEnvelopeException">An envelope breaks the CloudEvents rules.</exception>
    public static int SerializeBatch(this IEnvelopeSerializer serializer, IBufferWriter<byte> destination, IReadOnlyList<MessageEnvelope> envelopes)
        => AsBatch(serializer).SerializeBatch(destination, envelopes);

    /// <summary>Reads a batch of envelopes in the serializer's batch format.</summary>
    /// <param name="serializer">The serializer. Must not be null.</param>
    /// <param name="source">The batch bytes, in one or more segments.</param>
    /// <returns>The envelopes, in order.</returns>
    /// <exception cref="NotSupportedException">The serializer does not implement <see cref="IBatchEnvelopeSerializer"/>.</exception>
    /// <exception cref="InvalidEnvelopeException">The input is not a valid batch, or holds an invalid envelope.</exception>
    public static IReadOnlyList<MessageEnvelope> DeserializeBatch(this IEnvelopeSerializer serializer, in ReadOnlySequence<byte> source)
        => AsBatch(serializer).DeserializeBatch(source);

    private static IBatchEnvelopeSerializer AsBatch(IEnvelopeSerializer serializer)
    {
        ArgumentNullException.ThrowIfNull(serializer);
        return serializer as IBatchEnvelopeSerializer
            ?? throw new NotSupportedException($"The serializer {serializer.GetType().FullName} does not write or read batches: it does not implement {nameof(IBatchEnvelopeSerializer)}.");
    }

    private static int Base64MaxDecodedLength(int length) => Math.Max(1, (length / 4 * 3) + 3);

    /// <summary>The calling thread's buffer (the conveniences copy out of it before they return).</summary>
    private static PoolLease<PooledBufferWriter> RentBuffer()
        => new(PerThreadBufferWriterPool.Instance, PerThreadBufferWriterPool.Instance.Get());
}
