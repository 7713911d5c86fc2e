using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Missive.Transport;

namespace Missive.Bus;

/// <summary>
/// Where the sends of a batch publish meet: each message goes through the whole single-publish path (envelope,
/// middleware, checks, span, metrics) and its send, at the end, hands the request here and waits. Once every message of
/// the batch has either handed its request over or finished without one (refused, short-circuited), the requests go in
/// the transport's batch calls, in the order of the batch (the transport cuts them into calls within the service's
/// limits, one after another, so a FIFO group keeps its order), and each waiting send gets its own entry's outcome.
/// Failed entries are not sent again here: the transport's batch calls retry what they retry (<see cref="BatchSends"/>).
/// </summary>
internal sealed class BatchGatherer
{
    private readonly IMessageTransport _transport;
    private readonly CancellationToken _cancellationToken;
    private readonly List<Pending> _pending = [];
    private int _outstanding;

    public BatchGatherer(IMessageTransport transport, int entries, CancellationToken cancellationToken)
    {
        _transport = transport;
        _outstanding = entries;
        _cancellationToken = cancellationToken;
    }

    /// <summary>A message's own door to the gatherer: the transport its publish sends through.</summary>
    public Entry NewEntry() => new(this);

    private Task<string> Add(int kind, object request)
    {
        var pending = new Pending(kind, request, continueInline: true);
        lock (_pending)
        {
            _pending.Add(pending);
        }

        return pending.Result.Task;
    }

    /// <summary>One message has handed its request over, or finished without one: the last lets the calls go.</summary>
    private void Arrived()
    {
        if (Interlocked.Decrement(ref _outstanding) == 0)
        {
            _ = FlushAsync();
        }
    }

    private async Task FlushAsync()
    {
        Pending[] all;
        lock (_pending)
        {
            all = _pending.ToArray();
        }

        try
        {
            await BatchSends.SendAsync(_transport, all, Pending.Sqs, _cancellationToken).ConfigureAwait(false);
            await BatchSends.SendAsync(_transport, all, Pending.Sns, _cancellationToken).ConfigureAwait(false);
            await BatchSends.SendAsync(_transport, all, Pending.EventBridge, _cancellationToken).ConfigureAwait(false);
        }
        catch (Exception e) when (!ContentSafety.IsFatal(e))
        {
            foreach (Pending pending in all)
            {
                pending.Result.TrySetException(e); // a whole call failed for good: every entry still waiting gets it
            }
        }
    }

    /// <summary>
    /// The transport one message of the batch publishes through: its send hands the request to the gatherer. It counts
    /// once toward the batch, when it hands a request over or, if it never does, when its publish finishes.
    /// </summary>
    internal sealed class Entry(BatchGatherer gatherer) : IMessageTransport
    {
        private int _counted;

        public Task<string> SendAsync(SqsSendRequest request, CancellationToken cancellationToken = default) => Hand(Pending.Sqs, request);

        public Task<string> PublishAsync(SnsPublishRequest request, CancellationToken cancellationToken = default) => Hand(Pending.Sns, request);

        public Task<string> PutEventAsync(EventBridgeEntry entry, CancellationToken cancellationToken = default) => Hand(Pending.EventBridge, entry);

        /// <summary>The publish is over: if it never handed a request over, the batch no longer waits for it.</summary>
        public void Finish()
        {
            if (Interlocked.Exchange(ref _counted, 1) == 0)
            {
                gatherer.Arrived();
            }
        }

        public Task<IReadOnlyList<SqsMessage>> ReceiveAsync(string queueName, int maxMessages, TimeSpan waitTime, TimeSpan? visibilityTimeout = null, CancellationToken cancellationToken = default) => throw Unused();

        public Task<bool> DeleteAsync(string queueName, string receiptHandle, CancellationToken cancellationToken = default) => throw Unused();

        public Task<bool> ChangeVisibilityAsync(string queueName, string receiptHandle, TimeSpan visibilityTimeout, CancellationToken cancellationToken = default) => throw Unused();

        private Task<string> Hand(int kind, object request)
        {
            Task<string> result = gatherer.Add(kind, request);
            if (Interlocked.Exchange(ref _counted, 1) == 0)
            {
                gatherer.Arrived();
            }

            return result;
        }

        private static NotSupportedException Unused() => new("A batch publish only sends.");
    }
}

/// <summary>
/// The batch calls of a batch publish or of coalesced publishes: the requests of one kind, in order, in the transport's
/// batch calls (which cut them within the service's limits), each request's send completed with its own entry's outcome.
/// Retrying is the transport's: its batch calls return each entry's last outcome (the AWS transport sends entries the
/// service failed on its side again under AWS's standard retry mode); a failure left is that entry's
/// <see cref="MessageTransportException"/>, transient when it was not the sender's fault.
/// </summary>
internal static class BatchSends
{
    /// <summary>Sends the requests of one kind among <paramref name="all"/> in the transport's batch calls, in order, and completes each one's send.</summary>
    public static async Task SendAsync(IMessageTransport transport, IReadOnlyList<Pending> all, int kind, CancellationToken cancellationToken)
    {
        var entries = new List<Pending>();
        foreach (Pending pending in all)
        {
            if (pending.Kind == kind)
            {
                entries.Add(pending);
            }
        }

        if (entries.Count == 0)
        {
            return;
        }

        IReadOnlyList<BatchEntryResult> results = await CallAsync(transport, entries, kind, cancellationToken).ConfigureAwait(false);
        for (int i = 0; i < entries.Count; i++)
        {
            BatchEntryResult result = results[i];
            if (result.Succeeded)
            {
                entries[i].Result.TrySetResult(result.MessageId ?? string.Empty);
            }
            else
            {
                entries[i].Result.TrySetException(new MessageTransportException($"The service refused this entry of the batch: {result.ErrorCode}: {result.ErrorMessage}")
                {
                    ErrorCode = result.ErrorCode,
                    IsTransient = !result.SenderFault,
                });
            }
        }
    }

    private static Task<IReadOnlyList<BatchEntryResult>> CallAsync(IMessageTransport transport, List<Pending> entries, int kind, CancellationToken cancellationToken)
    {
        switch (kind)
        {
            case Pending.Sqs:
                var sends = new SqsSendRequest[entries.Count];
                for (int i = 0; i < sends.Length; i++)
                {
                    sends[i] = (SqsSendRequest)entries[i].Request;
                }

                return transport.SendBatchAsync(sends, cancellationToken);
            case Pending.Sns:
                var publishes = new SnsPublishRequest[entries.Count];
                for (int i = 0; i < publishes.Length; i++)
                {
                    publishes[i] = (SnsPublishRequest)entries[i].Request;
                }

                return transport.PublishBatchAsync(publishes, cancellationToken);
            default:
                var events = new EventBridgeEntry[entries.Count];
                for (int i = 0; i < events.Length; i++)
                {
                    events[i] = (EventBridgeEntry)entries[i].Request;
                }

                return transport.PutEventsAsync(events, cancellationToken);
        }
    }
}

/// <summary>A request handed over, and the send waiting for its outcome.</summary>
/// <param name="kind">What the request is (<see cref="Sqs"/>, <see cref="Sns"/>, <see cref="EventBridge"/>).</param>
/// <param name="request">The request.</param>
/// <param name="continueInline">
/// Whether the send goes on inline when its outcome is set, on the thread that sets it: for the messages of one batch
/// publish, whose waiting sends are the batch's own publish paths (a hop to the thread pool per message doubled the
/// CPU a message costs); not for coalesced publishes, whose callers' own code follows each send and must not hold up
/// the calls of others.
/// </param>
internal sealed class Pending(int kind, object request, bool continueInline)
{
    public const int Sqs = 0, Sns = 1, EventBridge = 2;

    public int Kind { get; } = kind;

    public object Request { get; } = request;

    public TaskCompletionSource<string> Result { get; } = new(continueInline ? TaskCreationOptions.None : TaskCreationOptions.RunContinuationsAsynchronously);
}
