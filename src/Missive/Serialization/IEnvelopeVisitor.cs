namespace Missive.Serialization;

/// <summary>Runs generic code on an envelope whose message type is known only at run time (batches).</summary>
internal interface IEnvelopeVisitor
{
    void Visit<T>(MessageEnvelope<T> envelope, MessageTypeInfo<T> info);
}
