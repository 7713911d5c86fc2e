using System.Buffers;

namespace Missive.Serialization;

/// <summary>
/// Writes and reads CloudEvents envelopes in one wire format. Implementations are thread-safe and
/// meant to be singletons.
/// </summary>
public interface IEnvelopeSerializer
{
    /// <summary>Gets the content type of the format (for example <c>application/cloudevents+json</c>).</summary>
    string ContentType { get; }

    /// <summary>
    /// Gets the wire format this serializer writes and reads. A binary format (<see cref="EnvelopeFormat.Protobuf"/>)
    /// travels in SQS and SNS bodies as base64 text.
    /// </summary>
    EnvelopeFormat Format { get; }

    /// <summary>
    /// Gets the registered message types the serializer reads into, or <c>null</c> when it does not say (the default, for
    /// a serializer of an application's own). Missive's serializers give theirs: the inbound reader reads native messages
    /// as those types, and the outbound writer publishes them without an envelope.
    /// </summary>
    MessageTypeMap? MessageTypes => null;

    /// <summary>Writes the whole envelope into <paramref name="destination"/>.</summary>
    /// <typeparam name="T">The message type; it must be registered.</typeparam>
    /// <param name="destination">Where the bytes go. Must not be null.</param>
    /// <param name="envelope">The envelope. Must not be null and must be valid.</param>
    /// <returns>The number of bytes written.</returns>
    /// <exception cref="InvalidEnvelopeException">The envelope breaks the CloudEvents rules, or its data cannot be written
    /// (<see cref="InvalidEnvelopeReason.InvalidData"/>); after a failure while writing, <paramref name="destination"/> may
    /// already hold the start of the envelope: discard it.</exception>
    /// <exception cref="MessageBusConfigurationException"><typeparamref name="T"/> is not registered.</exception>
    int Serialize<T>(IBufferWriter<byte> destination, MessageEnvelope<T> envelope);

    /// <summary>Reads one envelope; the message type comes from the registered type map.</summary>
    /// <param name="source">The envelope bytes, in one or more segments.</param>
    /// <returns>The envelope: a <see cref="MessageEnvelope{T}"/> of the registered message type.</returns>
    /// <exception cref="InvalidEnvelopeException">The input is not a valid envelope of a registered type.</exception>
    MessageEnvelope Deserialize(in ReadOnlySequence<byte> source);
}
