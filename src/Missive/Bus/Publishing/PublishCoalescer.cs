using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Missive.Transport;

namespace Missive.Bus;

/// <summary>
/// Gathers the sends of concurrent publishes to one destination into batch calls, as a group commit does: a
/// <see cref="Batcher{TKey, TEntry}"/> lane per destination whose calls go one after another.
/// </summary>
/// <remarks>
/// <list type="bullet">
/// <item>A send to a destination with no call under way or waiting goes at once, alone: at low load a publish waits for
/// nothing.</item>
/// <item>While a call is under way, the sends that come are gathered: a gathering closes when 10 have come or when the
/// window since its first send has passed, and goes when the calls before it have ended; what is still gathering when
/// the last call ends goes then.</item>
/// <item>Each publish awaits its own entry's outcome. The calls of one destination go one after another, in the order
/// their sends came, so a FIFO group keeps its order.</item>
/// <item>A publish cancelled before its call begins (gathering, or queued behind a call under way) is withdrawn: it
/// returns at once, cancelled, and nothing of it is sent; once its call has begun, it ends with the service's answer.</item>
/// <item>Each call has a deadline (<see cref="BatchSends.CallDeadline"/>) held whatever the transport does with its
/// token: a transport that never answers fails that call's publishes as maybe sent, and the destination's later calls
/// go on.</item>
/// <item>FIFO: a message of a group whose earlier message failed while it waited is not sent (it fails, naming the
/// earlier failure); nor, while a call abandoned at its deadline may still land, is any message of that call's groups,
/// so that none overtakes it. Other groups, and publishes made once the failure was known, go on.</item>
/// <item>Everything that is not a send goes straight to the transport.</item>
/// </list>
/// </remarks>
internal sealed class PublishCoalescer : IMessageTransport, IDisposable
{
    private readonly IMessageTransport _transport;
    private readonly Batcher<(int Kind, string Destination), Pending> _batcher;

    public PublishCoalescer(IMessageTransport transport, TimeSpan window, TimeProvider timeProvider)
    {
        _transport = transport;
        var policy = new BatchPolicy
        {
            MaxWait = window,
            SendWhenIdle = true,
            StartOffThread = true,
            MaxConcurrentCalls = 1,
            CallDeadline = BatchSends.CallDeadline,
            OrderingGroup = static pending => ((Pending)pending).FifoGroup,
            GroupFailuresHoldForLane = false, // publishes that come later are the application's own: they go
        };
        _batcher = new Batcher<(int Kind, string Destination), Pending>(
            _ => policy,
            (_, entries, token) => BatchSends.CallAsync(_transport, entries, token),
            static (pending, result) => BatchSends.Complete(pending, result, CancellationToken.None),
            timeProvider);
    }

    /// <inheritdoc />
    public bool IsReceiveCancellationSafe => _transport.IsReceiveCancellationSafe;

    /// <inheritdoc />
    public bool DeliversToOtherProcesses => _transport.DeliversToOtherProcesses;

    /// <inheritdoc />
    public string Description => _transport.Description + ", publishes coalesced";

    /// <inheritdoc />
    /// <remarks>As the transport: each send's task completes when its batch call is over.</remarks>
    public bool IsDoneWithBodiesWhenCallsComplete => _transport.IsDoneWithBodiesWhenCallsComplete;

    public Task<string> SendAsync(SqsSendRequest request, CancellationToken cancellationToken = default) => AddAsync(Pending.Sqs, request.QueueName, request, cancellationToken);

    public Task<string> PublishAsync(SnsPublishRequest request, CancellationToken cancellationToken = default) => AddAsync(Pending.Sns, request.TopicArn, request, cancellationToken);

    public Task<string> PutEventAsync(EventBridgeEntry entry, CancellationToken cancellationToken = default) => AddAsync(Pending.EventBridge, entry.EventBusName, entry, cancellationToken);

    public Task<IReadOnlyList<SqsMessage>> ReceiveAsync(string queueName, int maxMessages, TimeSpan waitTime, TimeSpan? visibilityTimeout = null, CancellationToken cancellationToken = default)
        => _transport.ReceiveAsync(queueName, maxMessages, waitTime, visibilityTimeout, cancellationToken);

    public Task<bool> DeleteAsync(string queueName, string receiptHandle, CancellationToken cancellationToken = default) => _transport.DeleteAsync(queueName, receiptHandle, cancellationToken);

    public Task<bool> ChangeVisibilityAsync(string queueName, string receiptHandle, TimeSpan visibilityTimeout, CancellationToken cancellationToken = default)
        => _transport.ChangeVisibilityAsync(queueName, receiptHandle, visibilityTimeout, cancellationToken);

    /// <summary>Stops the gathering windows' timers; calls under way go on.</summary>
    public void Dispose() => _batcher.Dispose();

    private async Task<string> AddAsync(int kind, string name, object request, CancellationToken cancellationToken)
    {
        cancellationToken.ThrowIfCancellationRequested();
        var pending = new Pending(kind, request, continueInline: false);
        _batcher.Add((kind, name), pending);

        // Registered only for a token that can be cancelled (the closure is then the cost of cancelling).
        CancellationTokenRegistration registration = cancellationToken.CanBeCanceled
            ? cancellationToken.Register(static (state, token) => ((Pending)state!).TryWithdraw(token), pending)
            : default;
        try
        {
            return await pending.Result.Task.ConfigureAwait(false);
        }
        finally
        {
            registration.Unregister(); // without waiting for a withdrawal under way: the send has its outcome
        }
    }
}
