namespace Missive.Transport;

/// <summary>What a received document is: an envelope, or one of the AWS wrappers around one.</summary>
internal enum WrapperShape
{
    /// <summary>The document is the envelope.</summary>
    Raw,

    /// <summary>An SNS notification: the envelope is its <c>Message</c> string.</summary>
    SnsNotification,

    /// <summary>An SNS subscription or unsubscription confirmation: no envelope.</summary>
    SnsControl,

    /// <summary>An EventBridge event: the envelope is its <c>detail</c>.</summary>
    EventBridgeEvent,
}
