using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Missive.Transport;

namespace Missive.Bus;

/// <summary>
/// Where the sends of one batch publish meet and go out in the transport's batch calls, in the batch's order.
/// </summary>
/// <remarks>
/// <list type="bullet">
/// <item>Each message goes through the whole single-publish path; its send, at the end, hands the request here
/// (<see cref="Entry"/>) and waits for its own entry's outcome. A message that never sends (refused, short-circuited)
/// says so when its publish ends.</item>
/// <item>A call takes the run of messages from the first unsent whose sends have each been handed over or left: it goes
/// when the run holds <see cref="CallSize"/> requests, when it reaches the end of the batch, or, once every message of
/// the batch has started (<see cref="AllStarted"/>), when no message has reached its send for <see cref="IdleFlush"/>
/// (a middleware that lets one message through at a time holds the others until the first's send answers: without
/// this the batch would wait for ever).</item>
/// <item>Calls go one after another, so a FIFO group keeps the batch's order; a call that fails fails its own entries
/// only. A message of a FIFO group whose earlier message failed is not sent (its send fails, naming the earlier
/// failure); other groups and standard destinations go on.</item>
/// <item>A send whose caller cancels before a call takes it is withdrawn: it is never sent, and its publish ends
/// cancelled.</item>
/// </list>
/// </remarks>
internal sealed class BatchGatherer : IDisposable
{
    /// <summary>The requests a call takes at most in every service: a run holding this many goes at once.</summary>
    public const int CallSize = 10;

    /// <summary>How long a run waits with no message reaching its send before it goes with what it holds.</summary>
    public static readonly TimeSpan IdleFlush = TimeSpan.FromMilliseconds(5);

    private readonly IMessageTransport _transport;
    private readonly TimeProvider _timeProvider;
    private readonly CancellationToken _cancellationToken;
    private readonly object _gate = new();
    private readonly Pending?[] _requests; // by the message's place in the batch
    private readonly bool[] _ready; // whether that message handed its request over or left without one
    private int _next; // the first message whose request has not gone in a call
    private Task _tail = Task.CompletedTask; // the last call queued: each waits for the one before
    private Dictionary<(string Destination, string Group), Exception>? _failedGroups; // read and written by the calls, one at a time
    private ITimer? _idle;
    private int _progress; // how many messages have reached their send or left: the idle timer compares it
    private int _progressWhenArmed = -1;
    private bool _allStarted;
    private bool _disposed;

    public BatchGatherer(IMessageTransport transport, int entries, TimeProvider timeProvider, CancellationToken cancellationToken)
    {
        _transport = transport;
        _timeProvider = timeProvider;
        _requests = new Pending?[entries];
        _ready = new bool[entries];
        _cancellationToken = cancellationToken;
    }

    /// <summary>The transport the message at <paramref name="index"/> in the batch publishes through.</summary>
    public Entry NewEntry(int index) => new(this, index);

    /// <summary>
    /// Every message of the batch has started its publish: from now on a run that waits with no message reaching its
    /// send goes after <see cref="IdleFlush"/> (while messages are still being started, the batch is making progress).
    /// </summary>
    public void AllStarted()
    {
        QueuedCall? call;
        lock (_gate)
        {
            _allStarted = true;
            call = TakeRun(idle: false);
        }

        call?.Start();
    }

    /// <summary>Stops the idle timer; calls under way go on.</summary>
    public void Dispose()
    {
        lock (_gate)
        {
            _disposed = true;
            _idle?.Dispose();
        }
    }

    /// <summary>The message at <paramref name="index"/> handed its request over (<paramref name="pending"/>) or left without one (<c>null</c>).</summary>
    private void MarkReady(int index, Pending? pending)
    {
        QueuedCall? call;
        lock (_gate)
        {
            _requests[index] = pending;
            _ready[index] = true;
            _progress++;
            call = TakeRun(idle: false);
        }

        call?.Start(); // outside the lock: when the transport answers at once, the run's sends go on inline from here
    }

    /// <summary>The idle window passed: if no message reached its send meanwhile, the run goes with what it holds.</summary>
    private void OnIdle()
    {
        QueuedCall? call;
        lock (_gate)
        {
            bool stalled = _progress == _progressWhenArmed; // else progress was made: wait another window from now
            _progressWhenArmed = -1;
            call = TakeRun(idle: stalled);
        }

        call?.Start();
    }

    /// <summary>Takes the run from the first unsent message when it may go, else arms the idle timer for it. Under the lock.</summary>
    private QueuedCall? TakeRun(bool idle)
    {
        int end = _next, requests = 0;
        while (end < _ready.Length && _ready[end])
        {
            requests += _requests[end] is null ? 0 : 1;
            end++;
        }

        if (requests == 0)
        {
            _next = end; // messages that send nothing: nothing to wait for
            return null;
        }

        if (requests < CallSize && end < _ready.Length && !idle)
        {
            ArmIdle();
            return null;
        }

        var run = new List<Pending>(requests);
        for (int i = _next; i < end; i++)
        {
            if (_requests[i] is { } request)
            {
                run.Add(request);
                _requests[i] = null; // the call holds it now
            }
        }

        _next = end;
        var call = new QueuedCall(this, _tail, run);
        _tail = call.Done;
        return call;
    }

    private void ArmIdle()
    {
        if (_progressWhenArmed >= 0 || _disposed || !_allStarted)
        {
            return; // armed already: when it fires it looks at the progress made since
        }

        _progressWhenArmed = _progress;
        _idle ??= _timeProvider.CreateTimer(static state => ((BatchGatherer)state!).OnIdle(), this, Timeout.InfiniteTimeSpan, Timeout.InfiniteTimeSpan);
        _idle.Change(IdleFlush, Timeout.InfiniteTimeSpan);
    }

    /// <summary>Sends a run once the calls before it are over; sends nothing of a FIFO group that failed earlier.</summary>
    private async Task SendAsync(Task previous, List<Pending> run)
    {
        await previous.ConfigureAwait(false);
        var sending = new List<Pending>(run.Count);
        foreach (Pending pending in run)
        {
            if (pending.FifoGroup is { } group && _failedGroups is not null && _failedGroups.TryGetValue(group, out Exception? earlier))
            {
                if (pending.TryStart())
                {
                    pending.Result.TrySetException(new MessageTransportException($"Not sent: an earlier message of its FIFO group '{group.Group}' in this batch failed ({earlier.Message}), and a later message must not go after it.", earlier)
                    {
                        ErrorCode = (earlier as MessageTransportException)?.ErrorCode,
                        IsTransient = (earlier as MessageTransportException)?.IsTransient ?? false,
                    });
                }
            }
            else if (pending.TryStart())
            {
                sending.Add(pending); // not withdrawn by its caller: it goes
            }
        }

        if (sending.Count > 0)
        {
            await BatchSends.SendAsync(_transport, sending, _cancellationToken).ConfigureAwait(false);
        }

        foreach (Pending pending in run)
        {
            if (pending.FifoGroup is { } group && pending.Result.Task.IsFaulted)
            {
                (_failedGroups ??= [])[group] = pending.Result.Task.Exception!.InnerException!;
            }
        }
    }

    /// <summary>A run queued behind the calls before it.</summary>
    private sealed class QueuedCall(BatchGatherer gatherer, Task previous, List<Pending> run)
    {
        private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public Task Done => _done.Task;

        public void Start() => _ = RunAsync();

        private async Task RunAsync()
        {
            try
            {
                await gatherer.SendAsync(previous, run).ConfigureAwait(false);
            }
            catch (Exception e) when (!ContentSafety.IsFatal(e))
            {
                foreach (Pending pending in run)
                {
                    pending.Result.TrySetException(e); // not expected: BatchSends completes every entry itself
                }
            }
            finally
            {
                _done.SetResult();
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
