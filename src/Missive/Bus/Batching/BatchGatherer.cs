using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Missive.Transport;

namespace Missive.Bus;

/// <summary>
/// Where the sends of one batch publish meet and go out in the transport's batch calls, in the batch's order: it puts
/// the requests in the batch's order, and a <see cref="Batcher{TKey, TEntry}"/> lane decides when each call goes.
/// </summary>
/// <remarks>
/// <list type="bullet">
/// <item>Each message goes through the whole single-publish path; its send, at the end, hands the request here
/// (<see cref="Entry"/>) and waits for its own entry's outcome. A message that never sends (refused, short-circuited)
/// says so when its publish ends.</item>
/// <item>Requests enter the lane in the batch's order, each once every message before it has handed its request over
/// or left. A call goes when it holds <see cref="CallSize"/> requests, when the batch's last message is in, or, once
/// every message of the batch has started (<see cref="AllStarted"/>), when no request has come for
/// <see cref="IdleFlush"/> (a middleware that lets one message through at a time holds the others until the first's
/// send answers: without this the batch would wait for ever).</item>
/// <item>Calls go one after another, so a FIFO group keeps the batch's order; a call that fails fails its own entries
/// only. A message of a FIFO group whose earlier message failed is not sent (its send fails, naming the earlier
/// failure); other groups and standard destinations go on. Each call has a deadline (<see cref="BatchSends.CallDeadline"/>).</item>
/// <item>A send whose caller cancels before a call takes it is withdrawn: it is never sent, and its publish ends
/// cancelled.</item>
/// </list>
/// </remarks>
internal sealed class BatchGatherer : IDisposable
{
    /// <summary>The requests a call takes at most in every service: a run holding this many goes at once.</summary>
    public const int CallSize = 10;

    /// <summary>How long the lane waits with no request coming, once every message has started, before it goes with what it holds.</summary>
    public static readonly TimeSpan IdleFlush = TimeSpan.FromMilliseconds(5);

    private const int Lane = 0;

    private static readonly BatchPolicy Policy = new()
    {
        MaxEntries = CallSize,
        IdleWait = IdleFlush,
        MaxConcurrentCalls = 1,
        CallDeadline = BatchSends.CallDeadline,
        OrderingGroup = static pending => ((Pending)pending).FifoGroup,
    };

    private readonly object _gate = new();
    private readonly Pending?[] _requests; // by the message's place in the batch
    private readonly bool[] _ready; // whether that message handed its request over or left without one
    private readonly Batcher<int, Pending> _batcher;
    private readonly Dictionary<Pending.FifoGroupKey, Exception> _failedGroups = []; // written by the completions, one call at a time
    private int _next; // the first message not yet in the lane
    private readonly List<Pending> _run = []; // what the feeding thread puts in next (one feeder at a time)
    private bool _feeding; // a thread is putting ready messages into the lane, in order

    public BatchGatherer(IMessageTransport transport, int entries, TimeProvider timeProvider, CancellationToken cancellationToken)
    {
        _requests = new Pending?[entries];
        _ready = new bool[entries];
        _batcher = new Batcher<int, Pending>(
            static _ => Policy,
            (_, sending, deadline) => CallAsync(transport, sending, deadline, cancellationToken),
            (pending, result) => Complete(pending, result, cancellationToken),
            timeProvider);
    }

    /// <summary>
    /// One call of the batch's sends, cancelled by its deadline or by the batch's caller. Not a linked token source: its
    /// disposal would wait for a cancellation callback running on another thread; the registrations are unregistered
    /// without waiting.
    /// </summary>
    private static async Task<IReadOnlyList<BatchEntryResult>> CallAsync(IMessageTransport transport, IReadOnlyList<Pending> sending, CancellationToken deadline, CancellationToken caller)
    {
        if (!caller.CanBeCanceled)
        {
            return await BatchSends.CallAsync(transport, sending, deadline).ConfigureAwait(false);
        }

        var either = new CancellationTokenSource(); // no timer of its own: nothing to dispose
        CancellationTokenRegistration byDeadline = deadline.Register(static state => ((CancellationTokenSource)state!).Cancel(), either);
        CancellationTokenRegistration byCaller = caller.Register(static state => ((CancellationTokenSource)state!).Cancel(), either);
        try
        {
            return await BatchSends.CallAsync(transport, sending, either.Token).ConfigureAwait(false);
        }
        finally
        {
            byDeadline.Unregister();
            byCaller.Unregister();
        }
    }

    /// <summary>Ends a send; one not sent because its FIFO group failed earlier carries that failure as its inner exception.</summary>
    private void Complete(Pending pending, BatchEntryResult result, CancellationToken cancellationToken)
    {
        if (result.ErrorCode == BatchResults.GroupFailedEarlierCode && pending.FifoGroup is { } group && _failedGroups.TryGetValue(group, out Exception? earlier))
        {
            pending.Result.TrySetException(new MessageTransportException(result.ErrorMessage!, earlier)
            {
                ErrorCode = result.ErrorCode,
                FailureKind = (earlier as MessageTransportException)?.FailureKind ?? TransportFailureKind.Refused,
            });
            return;
        }

        BatchSends.Complete(pending, result, cancellationToken);
        if (pending.FifoGroup is { } failedGroup && pending.Result.Task.Exception?.InnerException is { } failure)
        {
            _failedGroups.TryAdd(failedGroup, failure);
        }
    }

    /// <summary>The transport the message at <paramref name="index"/> in the batch publishes through.</summary>
    public Entry NewEntry(int index) => new(this, index);

    /// <summary>
    /// Every message of the batch has started its publish: from now on the lane goes after <see cref="IdleFlush"/> with no
    /// request coming (while messages are still being started, the batch is making progress).
    /// </summary>
    public void AllStarted() => _batcher.StartIdleFlush(Lane);

    /// <summary>Stops the lane's timer; calls under way go on.</summary>
    public void Dispose() => _batcher.Dispose();

    /// <summary>
    /// The message at <paramref name="index"/> handed its request over (<paramref name="pending"/>) or left without one
    /// (<c>null</c>): the messages now ready in the batch's order enter the lane. One thread at a time puts them in, outside
    /// the lock (a call may start, and answer, inline); another that comes meanwhile leaves them to it.
    /// </summary>
    private void MarkReady(int index, Pending? pending)
    {
        lock (_gate)
        {
            _requests[index] = pending;
            _ready[index] = true;
            if (_feeding)
            {
                return;
            }

            _feeding = true;
        }

        while (true)
        {
            bool last;
            _run.Clear();
            lock (_gate)
            {
                while (_next < _ready.Length && _ready[_next])
                {
                    if (_requests[_next] is { } request)
                    {
                        _run.Add(request);
                        _requests[_next] = null; // the lane holds it now
                    }

                    _next++;
                }

                last = _next == _ready.Length;
                if (_run.Count == 0 && !last)
                {
                    _feeding = false;
                    return;
                }
            }

            if (_run.Count > 0)
            {
                _batcher.AddRange(Lane, _run, flush: last); // the lane copies them: the list is this feeder's again
            }
            else
            {
                _batcher.Flush(Lane);
            }

            if (last)
            {
                return; // the whole batch is in (feeding stays taken: nothing is left to put in)
            }
        }
    }

    /// <summary>
    /// The transport one message of the batch publishes through: its send hands the request to the gatherer. It counts
    /// once toward the batch, when it hands a request over or, if it never does, when its publish ends.
    /// </summary>
    internal sealed class Entry(BatchGatherer gatherer, int index) : IMessageTransport
    {
        private int _counted;

        public Task<string> SendAsync(SqsSendRequest request, CancellationToken cancellationToken = default) => HandOver(Pending.Sqs, request, cancellationToken);

        public Task<string> PublishAsync(SnsPublishRequest request, CancellationToken cancellationToken = default) => HandOver(Pending.Sns, request, cancellationToken);

        public Task<string> PutEventAsync(EventBridgeEntry entry, CancellationToken cancellationToken = default) => HandOver(Pending.EventBridge, entry, cancellationToken);

        /// <summary>The publish is over: if it never handed a request over, the batch no longer waits for it.</summary>
        public void Finish()
        {
            if (Interlocked.Exchange(ref _counted, 1) == 0)
            {
                gatherer.MarkReady(index, null);
            }
        }

        public Task<IReadOnlyList<SqsMessage>> ReceiveAsync(string queueName, int maxMessages, TimeSpan waitTime, TimeSpan? visibilityTimeout = null, CancellationToken cancellationToken = default) => throw Unused();

        public Task<bool> DeleteAsync(string queueName, string receiptHandle, CancellationToken cancellationToken = default) => throw Unused();

        public Task<bool> ChangeVisibilityAsync(string queueName, string receiptHandle, TimeSpan visibilityTimeout, CancellationToken cancellationToken = default) => throw Unused();

        private Task<string> HandOver(int kind, object request, CancellationToken cancellationToken)
        {
            if (Interlocked.Exchange(ref _counted, 1) != 0)
            {
                throw new InvalidOperationException("A message of a batch publish was sent twice.");
            }

            var pending = new Pending(kind, request, continueInline: true);
            gatherer.MarkReady(index, pending);
            return cancellationToken.CanBeCanceled && !pending.Result.Task.IsCompleted ? WithdrawnOnCancelAsync(pending, cancellationToken) : pending.Result.Task;
        }

        /// <summary>Waits for the send's outcome; a cancellation before a call takes it withdraws it.</summary>
        private static async Task<string> WithdrawnOnCancelAsync(Pending pending, CancellationToken cancellationToken)
        {
            CancellationTokenRegistration withdraw = cancellationToken.Register(static (state, token) => ((Pending)state!).TryWithdraw(token), pending);
            try
            {
                return await pending.Result.Task.ConfigureAwait(false);
            }
            finally
            {
                withdraw.Unregister(); // without waiting for a callback under way: once the send has its outcome, a withdrawal does nothing
            }
        }

        private static NotSupportedException Unused() => new("A batch publish only sends.");
    }
}
