using System;

namespace Missive.Lexing;

/// <summary>The top-level member names that tell a CloudEvents envelope and the AWS wrappers apart.</summary>
[Flags]
internal enum TopLevelNames
{
    None = 0,
    SpecVersion = 1,
    Type = 2,
    MessageId = 4,
    TopicArn = 8,
    Detail = 16,
    DetailType = 32,
    Source = 64,
    Time = 128,
    Records = 256,

    /// <summary>The names an SNS notification (or control message) has.</summary>
    SnsNotification = Type | MessageId | TopicArn,

    /// <summary>The names an EventBridge event has.</summary>
    EventBridgeEvent = Detail | DetailType | Source | Time,
}
