using System.Buffers;

namespace Missive.Serialization;

/// <summary>
/// Chooses envelope serializers: the one publishers write with, and, on receive, the one that
/// matches the input, so subscribers read every available format whatever the publisher chose.
/// </summary>
public interface IEnvelopeSerializerProvider
{
    /// <summary>Gets the serializer publishers use unless they ask for another format.</summary>
    IEnvelopeSerializer PublishSerializer { get; }

    /// <summary>Gets the registered message types the serializers read into: the JSON serializer's (<see cref="IEnvelopeSerializer.MessageTypes"/>), or <c>null</c>.</summary>
    MessageTypeMap? MessageTypes => GetSerializer(EnvelopeFormat.Json).MessageTypes;

    /// <summary>Gets the serializer that writes a format.</summary>
    /// <param name="format">The format.</param>
    /// <returns>The serializer.</returns>
    /// <exception cref="MessageBusConfigurationException">The format may not be written (protobuf without <c>EnableExperimentalFeatures()</c>).</exception>
    IEnvelopeSerializer GetSerializer(EnvelopeFormat format);

    /// <summary>
    /// Reads one envelope in whichever format it is: <paramref name="format"/> when given (for example
    /// from the content type the transport carried), else by its first significant byte (<c>{</c> after
    /// optional whitespace is JSON, anything else protobuf).
    /// </summary>
    /// <param name="source">The envelope bytes (protobuf as bytes, not base64).</param>
    /// <param name="format">The format, or <c>null</c> to detect it.</param>
    /// <returns>The envelope.</returns>
    /// <exception cref="InvalidEnvelopeException">The input is not a valid envelope, or is in a format that is not available.</exception>
    MessageEnvelope Deserialize(in ReadOnlySequence<byte> source, EnvelopeFormat? format = null);
}
