using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Missive.Transport;

namespace Missive.Tests.Infrastructure;

/// <summary>
/// A transport whose visibility and delete batch calls wait until the test answers them: each call is recorded with
/// the fake clock's time, and <see cref="WaitForCallsAsync"/> waits (on the calls, not on a clock) until enough came.
/// </summary>
internal sealed class ScriptedVisibilityTransport(TimeProvider clock) : IMessageTransport
{
    private readonly object _gate = new();
    private readonly List<Call> _calls = [];
    private readonly List<(int Count, TaskCompletionSource Signal)> _waiters = [];

    /// <summary>Gets or sets whether calls answer at once (successfully) instead of waiting for the test.</summary>
    public bool AnswerAtOnce { get; set; }

    /// <summary>Gets or sets whether a call ignores its token (it ends only when the test answers it), as a transport that cannot take back a request it sent.</summary>
    public bool IgnoreCancellation { get; set; }

    public IReadOnlyList<Call> Calls
    {
        get
        {
            lock (_gate)
            {
                return [.. _calls];
            }
        }
    }

    /// <summary>Waits until at least <paramref name="count"/> calls were made (a real-time guard against a hang, never a sleep).</summary>
    public async Task<Call> WaitForCallsAsync(int count)
    {
        TaskCompletionSource signal;
        lock (_gate)
        {
            if (_calls.Count >= count)
            {
                return _calls[count - 1];
            }

            signal = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            _waiters.Add((count, signal));
        }

        await signal.Task.WaitAsync(TimeSpan.FromSeconds(30));
        lock (_gate)
        {
            return _calls[count - 1];
        }
    }

    public Task<IReadOnlyList<BatchEntryResult>> ChangeVisibilityBatchAsync(string queueName, IReadOnlyList<string> receiptHandles, TimeSpan visibilityTimeout, CancellationToken cancellationToken = default)
        => Record("ChangeVisibility", receiptHandles, visibilityTimeout, cancellationToken);

    public Task<IReadOnlyList<BatchEntryResult>> DeleteBatchAsync(string queueName, IReadOnlyList<string> receiptHandles, CancellationToken cancellationToken = default)
        => Record("Delete", receiptHandles, null, cancellationToken);

    public Task<string> SendAsync(SqsSendRequest request, CancellationToken cancellationToken = default) => throw new NotSupportedException();

    public Task<string> PublishAsync(SnsPublishRequest request, CancellationToken cancellationToken = default) => throw new NotSupportedException();

    public Task<string> PutEventAsync(EventBridgeEntry entry, CancellationToken cancellationToken = default) => throw new NotSupportedException();

    public Task<IReadOnlyList<SqsMessage>> ReceiveAsync(string queueName, int maxMessages, TimeSpan waitTime, TimeSpan? visibilityTimeout = null, CancellationToken cancellationToken = default) => throw new NotSupportedException();

    public Task<bool> DeleteAsync(string queueName, string receiptHandle, CancellationToken cancellationToken = default) => throw new NotSupportedException();

    public Task<bool> ChangeVisibilityAsync(string queueName, string receiptHandle, TimeSpan visibilityTimeout, CancellationToken cancellationToken = default) => throw new NotSupportedException();

    private Task<IReadOnlyList<BatchEntryResult>> Record(string operation, IReadOnlyList<string> handles, TimeSpan? visibility, CancellationToken cancellationToken)
    {
        var call = new Call(operation, [.. handles], visibility, clock.GetUtcNow(), cancellationToken);
        List<TaskCompletionSource> ready = [];
        lock (_gate)
        {
            _calls.Add(call);
            _waiters.RemoveAll(w =>
            {
                if (w.Count <= _calls.Count)
                {
                    ready.Add(w.Signal);
                    return true;
                }

                return false;
            });
        }

        if (AnswerAtOnce)
        {
            call.Succeed();
        }

        ready.ForEach(r => r.TrySetResult());
        return IgnoreCancellation ? call.Answer.Task : call.Answer.Task.WaitAsync(cancellationToken);
    }

    /// <summary>One call: what it asked, when, with which token, and its answer (set by the test).</summary>
    internal sealed class Call(string operation, string[] handles, TimeSpan? visibility, DateTimeOffset at, CancellationToken token)
    {
        public string Operation { get; } = operation;

        public string[] Handles { get; } = handles;

        public TimeSpan? Visibility { get; } = visibility;

        public DateTimeOffset At { get; } = at;

        public CancellationToken Token { get; } = token;

        public TaskCompletionSource<IReadOnlyList<BatchEntryResult>> Answer { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public void Succeed() => Answer.TrySetResult(Handles.Select((_, i) => BatchEntryResult.Success(i, null)).ToArray());
    }
}
