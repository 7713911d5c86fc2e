namespace Missive.Transport;

/// <summary>What a received SQS body turned out to be.</summary>
public enum InboundMessageKind
{
    /// <summary>An envelope published straight to the queue, or through SNS with raw delivery.</summary>
    Raw = 0,

    /// <summary>An envelope inside an SNS notification.</summary>
    SnsNotification = 1,

    /// <summary>An envelope inside an EventBridge event.</summary>
    EventBridgeEvent = 2,

    /// <summary>An SNS <c>SubscriptionConfirmation</c> or <c>UnsubscribeConfirmation</c>: not a message, nothing to handle.</summary>
    SnsControlMessage = 3,

    /// <summary>
    /// S3's test event (<c>s3:TestEvent</c>, sent to a queue when an event notification is configured), recognised when
    /// the queue reads native messages: not a message, nothing to handle.
    /// </summary>
    S3TestEvent = 4,
}
