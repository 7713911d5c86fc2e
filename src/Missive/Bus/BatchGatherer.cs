using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Missive.Transport;

namespace Missive.Bus;

/// <summary>
/// Where the sends of a batch publish meet: each message goes through the whole single-publish path (envelope,
/// middleware, checks, span, metrics) and its send, at the end, hands the request here and waits. The requests go in the
/// transport's batch calls in the order of the batch, as soon as a run of messages from the first not yet sent has each
/// either handed its request over or finished without one (refused, short-circuited) and holds a call's worth
/// (<see cref="CallSize"/>) of requests, or reaches the end of the batch; the calls go one after another (the transport
/// cuts each list within the service's limits), so a FIFO group keeps its order, and each waiting send gets its own
/// entry's outcome. Sending while the rest of the batch is still being written keeps few requests, bodies and waiting
/// sends alive at once, whatever the batch's size. A call that fails whole fails the calls after it unsent, as the rest
/// of a FIFO group must not go after a part of it failed. Failed entries are not sent again here: the transport's batch
/// calls retry what they retry (<see cref="BatchSends"/>).
/// </summary>
internal sealed class BatchGatherer
{
    /// <summary>The requests a call takes at most in every service: a run holding this many goes at once.</summary>
    public const int CallSize = 10;

    private readonly IMessageTransport _transport;
    private readonly CancellationToken _cancellationToken;
    private readonly Pending?[] _requests; // by the message's place in the batch
    private readonly bool[] _decided; // whether that message handed its request over or finished without one
    private int _next; // the first message whose request has not gone in a call
    private Task _tail = Task.CompletedTask; // the last call queued: each waits for the one before
    private Exception? _failed; // a call that failed whole: the later ones fail with it, unsent

    public BatchGatherer(IMessageTransport transport, int entries, CancellationToken cancellationToken)
    {
        _transport = transport;
        _requests = new Pending?[entries];
        _decided = new bool[entries];
        _cancellationToken = cancellationToken;
    }

    /// <summary>The door to the gatherer of the message at <paramref name="index"/> in the batch: the transport its publish sends through.</summary>
    public Entry NewEntry(int index) => new(this, index);

    /// <summary>The message at <paramref name="index"/> handed its request over (<paramref name="pending"/>) or finished without one (<c>null</c>).</summary>
    private void Decide(int index, Pending? pending)
    {
        List<Pending>? run = null;
        Task previous;
        TaskCompletionSource? queued = null;
        lock (_requests)
        {
            _requests[index] = pending;
            _decided[index] = true;
            int end = _next, ready = 0;
            while (end < _decided.Length && _decided[end])
            {
                ready += _requests[end] is null ? 0 : 1;
                end++;
            }

            if (ready == 0 || (ready < CallSize && end < _decided.Length))
            {
                if (ready == 0)
                {
                    _next = end; // a run of messages that send nothing: nothing to wait for
                }

                return;
            }

            run = new List<Pending>(ready);
            for (int i = _next; i < end; i++)
            {
                if (_requests[i] is { } request)
                {
                    run.Add(request);
                    _requests[i] = null; // the call holds it now
                }
            }

            _next = end;
            previous = _tail;
            queued = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            _tail = queued.Task;
        }

        // Started outside the lock: when the transport answers at once, the sends of the run go on inline from here.
        _ = SendAfterAsync(previous, run, queued);
    }

    private async Task SendAfterAsync(Task previous, List<Pending> run, TaskCompletionSource queued)
    {
        try
        {
            await previous.ConfigureAwait(false);
            if (Volatile.Read(ref _failed) is { } failed)
            {
                Fail(run, failed);
                return;
            }

            try
            {
                await BatchSends.SendAsync(_transport, run, Pending.Sqs, _cancellationToken).ConfigureAwait(false);
                await BatchSends.SendAsync(_transport, run, Pending.Sns, _cancellationToken).ConfigureAwait(false);
                await BatchSends.SendAsync(_transport, run, Pending.EventBridge, _cancellationToken).ConfigureAwait(false);
            }
            catch (Exception e) when (!ContentSafety.IsFatal(e))
            {
                Volatile.Write(ref _failed, e);
                Fail(run, e); // a whole call failed for good: every entry of the run still waiting gets it
            }
        }
        finally
        {
            queued.SetResult();
        }
    }

    private static void Fail(List<Pending> run, Exception e)
    {
        foreach (Pending pending in run)
        {
            pending.Result.TrySetException(e);
        }
    }

    /// <summary>
    /// The transport one message of the batch publishes through: its send hands the request to the gatherer. It counts
    /// once toward the batch, when it hands a request over or, if it never does, when its publish finishes.
    /// </summary>
    internal sealed class Entry(BatchGatherer gatherer, int index) : IMessageTransport
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
                gatherer.Decide(index, null);
            }
        }

        public Task<IReadOnlyList<SqsMessage>> ReceiveAsync(string queueName, int maxMessages, TimeSpan waitTime, TimeSpan? visibilityTimeout = null, CancellationToken cancellationToken = default) => throw Unused();

        public Task<bool> DeleteAsync(string queueName, string receiptHandle, CancellationToken cancellationToken = default) => throw Unused();

        public Task<bool> ChangeVisibilityAsync(string queueName, string receiptHandle, TimeSpan visibilityTimeout, CancellationToken cancellationToken = default) => throw Unused();

        private Task<string> Hand(int kind, object request)
        {
            if (Interlocked.Exchange(ref _counted, 1) != 0)
            {
                throw new InvalidOperationException("A message of a batch publish was sent twice.");
            }

            var pending = new Pending(kind, request, continueInline: true);
            gatherer.Decide(index, pending);
            return pending.Result.Task;
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
