namespace Missive.Transport;

/// <summary>Names of SQS system attributes.</summary>
public static class SqsSystemAttributes
{
    /// <summary>How many times the message was received, this receipt included.</summary>
    public const string ApproximateReceiveCount = "ApproximateReceiveCount";

    /// <summary>When the message was sent, in Unix epoch milliseconds.</summary>
    public const string SentTimestamp = "SentTimestamp";

    /// <summary>When the message was first received, in Unix epoch milliseconds.</summary>
    public const string ApproximateFirstReceiveTimestamp = "ApproximateFirstReceiveTimestamp";

    /// <summary>The sender's account or principal id.</summary>
    public const string SenderId = "SenderId";

    /// <summary>The FIFO message group.</summary>
    public const string MessageGroupId = "MessageGroupId";

    /// <summary>The FIFO deduplication id.</summary>
    public const string MessageDeduplicationId = "MessageDeduplicationId";

    /// <summary>The FIFO sequence number.</summary>
    public const string SequenceNumber = "SequenceNumber";

    /// <summary>The ARN of the queue a dead-lettered message came from.</summary>
    public const string DeadLetterQueueSourceArn = "DeadLetterQueueSourceArn";
}
