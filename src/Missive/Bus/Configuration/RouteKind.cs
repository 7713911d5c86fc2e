namespace Missive.Bus;

/// <summary>Where a message type is published.</summary>
internal enum RouteKind
{
    Sqs,
    Sns,
    EventBridge,
}
