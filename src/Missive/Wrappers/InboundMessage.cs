namespace Missive.Transport;

/// <summary>The outcome of reading a received SQS message.</summary>
/// <param name="Kind">What the body was.</param>
/// <param name="Envelope">The envelope, or <c>null</c> for an SNS control message.</param>
public readonly record struct InboundMessage(InboundMessageKind Kind, MessageEnvelope? Envelope);
