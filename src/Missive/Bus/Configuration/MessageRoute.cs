using System;
using Missive.Serialization;
using Missive.Transport;

namespace Missive.Bus;

/// <summary>A message type's route: the kind of target, its name, and the envelope format to use.</summary>
internal sealed record MessageRoute(Type MessageType, RouteKind Kind, string Target, EnvelopeFormat? Format)
{
    /// <summary>Gets whether the target is a FIFO queue or topic (its name, URL or ARN ends in <c>.fifo</c>).</summary>
    public bool IsFifo => Kind != RouteKind.EventBridge && FifoRule.IsFifo(Target);
}
