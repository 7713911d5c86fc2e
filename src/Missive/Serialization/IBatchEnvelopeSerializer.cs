using System.Buffers;
using System.Collections.Generic;

namespace Missive.Serialization;

/// <summary>Writes and reads batches of CloudEvents envelopes (for example <c>application/cloudevents-batch+json</c>).</summary>
public interface IBatchEnvelopeSerializer
{
    /// <summary>Gets the content type of the batch format.</summary>
    string BatchContentType { get; }

    /// <summary>Writes a batch of envelopes, each of a registered message type.</summary>
    /// <param name="destination">Where the bytes go. Must not be null.</param>
    /// <param name="envelopes">The envelopes. Must not be null; may be empty.</param>
    /// <returns>The number of bytes written.</returns>
    /// <exception cref="InvalidEnvelopeException">An envelope breaks the CloudEvents rules.</exception>
    int SerializeBatch(IBufferWriter<byte> destination, IReadOnlyList<MessageEnvelope> envelopes);

    /// <summary>Reads a batch of envelopes.</summary>
    /// <param name="source">The batch bytes, in one or more segments.</param>
    /// <returns>The envelopes, in order.</returns>
    /// <exception cref="InvalidEnvelopeException">The input is not a valid batch, or holds an invalid envelope.</exception>
    IReadOnlyList<MessageEnvelope> DeserializeBatch(in ReadOnlySequence<byte> source);
}
