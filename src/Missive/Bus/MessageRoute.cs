using System;
using Missive.Serialization;

namespace Missive.Bus;

/// <summary>Where a message type is published.</summary>
internal enum RouteKind
{
    Sqs,
    Sns,
    EventBridge,
}

/// <summary>A message type's route: the kind of target, its name, and the envelope format to use.</summary>
internal sealed record MessageRoute(Type MessageType, RouteKind Kind, string Target, EnvelopeFormat? Format);
