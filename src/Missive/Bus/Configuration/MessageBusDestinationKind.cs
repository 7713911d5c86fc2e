using System;
using System.Collections.Generic;

namespace Missive.Bus;

/// <summary>The kinds of destination a message type is published to.</summary>
public enum MessageBusDestinationKind
{
    /// <summary>An SQS queue.</summary>
    Queue,

    /// <summary>An SNS topic.</summary>
    Topic,

    /// <summary>An EventBridge event bus.</summary>
    EventBus,
}
