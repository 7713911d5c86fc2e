using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Missive.Aws.Protocol;
using Missive.Buffers;
using Missive.Transport;

namespace Missive.Aws.Sqs;

/// <summary>Receiving: <c>ReceiveMessage</c>, its answer read by <see cref="SqsReceiveAnswer"/>.</summary>
internal sealed partial class SqsClient
{
    /// <summary>The system attributes the bus reads, asked for on every receive (SQS returns none unasked).</summary>
    internal static readonly string[] SystemAttributeNames =
    [
        SqsSystemAttributes.ApproximateReceiveCount,
        SqsSystemAttributes.ApproximateFirstReceiveTimestamp,
        SqsSystemAttributes.SentTimestamp,
        SqsSystemAttributes.SenderId,
        SqsSystemAttributes.MessageGroupId,
        SqsSystemAttributes.MessageDeduplicationId,
        SqsSystemAttributes.SequenceNumber,
        SqsSystemAttributes.DeadLetterQueueSourceArn,
    ];

    public async Task<IReadOnlyList<SqsMessage>> ReceiveAsync(string queue, int maxMessages, TimeSpan waitTime, TimeSpan? visibilityTimeout, CancellationToken cancellationToken)
    {
        string url = await GetQueueUrlAsync(queue, cancellationToken).ConfigureAwait(false);
        int waitSeconds = (int)Math.Clamp(Math.Ceiling(waitTime.TotalSeconds), 0, 20);
        using PooledBufferWriter body = AwsJson.Write((url, maxMessages, waitSeconds, visibilityTimeout), static (w, s) =>
        {
            w.WriteString("QueueUrl", s.url);
            w.WriteNumber("MaxNumberOfMessages", Math.Clamp(s.maxMessages, 1, 10));
            w.WriteNumber("WaitTimeSeconds", s.waitSeconds);
            if (s.visibilityTimeout is { } visibility)
            {
                w.WriteNumber("VisibilityTimeout", Seconds(visibility));
            }

            w.WriteStartArray("MessageAttributeNames");
            w.WriteStringValue("All");
            w.WriteEndArray();
            w.WriteStartArray("MessageSystemAttributeNames");
            foreach (string name in SystemAttributeNames)
            {
                w.WriteStringValue(name);
            }

            w.WriteEndArray();
        });
        using AwsResponse response = await PostAsync("ReceiveMessage", body.WrittenMemory, queue, TimeSpan.FromSeconds(waitSeconds), AwsAnswer.ReceiveLimit(maxMessages), cancellationToken).ConfigureAwait(false);
        var skipped = new List<(string? MessageId, string Problem)>();
        List<SqsMessage> received = SqsReceiveAnswer.Read(response, _verifyDigests, skipped);
        foreach ((string? messageId, string problem) in skipped)
        {
            AwsLog.ReceivedMessageSkipped(_logger, messageId ?? "(without a readable id)", queue, problem);
        }

        return received;
    }
}
