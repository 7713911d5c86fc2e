using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Missive.Transport;

namespace Missive.Aws.Sqs;

/// <summary>
/// The SQS calls of the transport, spoken either by the built-in client (<see cref="SqsClient"/>: the AWS JSON protocol
/// over the transport's own signed HTTP) or through the AWS SDK's <c>IAmazonSQS</c> (<see cref="SdkSqsClient"/>).
/// Everything above it (batch cutting, entry retries, FIFO rules, the bus) is the same on both.
/// </summary>
internal interface ISqsOperations
{
    /// <summary>Gets what the client is and where it sends, for the transport's startup line.</summary>
    string Description { get; }

    Task<string> GetQueueUrlAsync(string queue, CancellationToken cancellationToken);

    Task<(bool Fifo, bool ContentBasedDeduplication)> GetFifoAttributesAsync(string queue, CancellationToken cancellationToken);

    Task<string> SendAsync(SqsSendRequest request, CancellationToken cancellationToken);

    /// <summary>Sends the requests of one queue in calls within SQS's batch limits; one result per request, in order, with the request's index.</summary>
    Task<BatchEntryResult[]> SendBatchAsync(string queue, IReadOnlyList<(int Index, SqsSendRequest Request)> requests, CancellationToken cancellationToken);

    Task<IReadOnlyList<SqsMessage>> ReceiveAsync(string queue, int maxMessages, TimeSpan waitTime, TimeSpan? visibilityTimeout, CancellationToken cancellationToken);

    /// <summary>Deletes one message; <c>false</c> when SQS says the receipt is gone.</summary>
    Task<bool> DeleteAsync(string queue, string receiptHandle, CancellationToken cancellationToken);

    /// <summary>Changes one message's visibility; <c>false</c> when SQS says the receipt is gone.</summary>
    Task<bool> ChangeVisibilityAsync(string queue, string receiptHandle, TimeSpan visibilityTimeout, CancellationToken cancellationToken);

    Task<BatchEntryResult[]> DeleteBatchAsync(string queue, IReadOnlyList<string> receiptHandles, CancellationToken cancellationToken);

    Task<BatchEntryResult[]> ChangeVisibilityBatchAsync(string queue, IReadOnlyList<string> receiptHandles, TimeSpan visibilityTimeout, CancellationToken cancellationToken);
}
