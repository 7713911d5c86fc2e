using System.Buffers;
using Missive.Serialization;

namespace Missive.Tests.Infrastructure;

/// <summary>
/// Forwards to a provider, hiding which one it is: an <see cref="Transport.InboundMessageReader"/> over it does not
/// read an EventBridge detail in place (it does so only with the library's own provider), so it is the reference
/// the in-place read is compared with.
/// </summary>
public sealed class ForwardingSerializerProvider(IEnvelopeSerializerProvider inner) : IEnvelopeSerializerProvider
{
    public IEnvelopeSerializer PublishSerializer => inner.PublishSerializer;

    public IEnvelopeSerializer GetSerializer(EnvelopeFormat format) => inner.GetSerializer(format);

    public MessageEnvelope Deserialize(in ReadOnlySequence<byte> source, EnvelopeFormat? format = null) => inner.Deserialize(source, format);
}
