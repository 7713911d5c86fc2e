using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Missive.Transport;

namespace Missive.Bus;

/// <summary>
/// Gathers the sends of concurrent publishes to one destination into batch calls (<see cref="BatchSends"/>), as a
/// group commit does.
/// </summary>
/// <remarks>
/// <list type="bullet">
/// <item>A send to a destination with no call under way goes at once, alone: at low load a publish waits for nothing.</item>
/// <item>While a call is under way, the sends that come are gathered and go when it ends, when 10 have come, or when
/// the window since the first of them has passed, whichever is first.</item>
/// <item>Each publish awaits its own entry's outcome. The calls of one destination go one after another, in the order
/// their sends came, so a FIFO group keeps its order.</item>
/// <item>A publish cancelled before its call begins (gathering, or queued behind a call under way) is withdrawn: it
/// returns at once, cancelled, and nothing of it is sent; once its call has begun, it ends with the service's answer.</item>
/// <item>Everything that is not a send goes straight to the transport.</item>
/// </list>
/// </remarks>
internal sealed class PublishCoalescer : IMessageTransport
{
    private const int MaxEntries = 10;

    private readonly IMessageTransport _transport;
    private readonly TimeSpan _window;
    private readonly TimeProvider _timeProvider;
    private readonly object _gate = new();
    private readonly Dictionary<(int Kind, string Destination), Destination> _destinations = [];

    public PublishCoalescer(IMessageTransport transport, TimeSpan window, TimeProvider timeProvider)
    {
        _transport = transport;
        _window = window;
        _timeProvider = timeProvider;
    }

    /// <inheritdoc />
    public bool IsReceiveCancellationSafe => _transport.IsReceiveCancellationSafe;

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

    private async Task<string> AddAsync(int kind, string name, object request, CancellationToken cancellationToken)
    {
        cancellationToken.ThrowIfCancellationRequested();
        var pending = new Pending(kind, request, continueInline: false);
        List<Pending>? now = null, gathering = null;
        Destination destination;
        lock (_gate)
        {
            if (!_destinations.TryGetValue((kind, name), out destination!))
            {
                destination = new Destination(this);
                _destinations[(kind, name)] = destination;
            }

            if (destination.Calls == 0 && destination.Open is null)
            {
                now = [pending]; // nothing under way: it goes at once
            }
            else
            {
                destination.Open ??= [];
                destination.Open.Add(pending);
                if (destination.Open.Count == MaxEntries)
                {
                    now = destination.Open; // full: it goes now, and the next send opens another
                    destination.Open = null;
                }
                else if (destination.Open.Count == 1)
                {
                    gathering = destination.Open; // the first of a gathering starts its window
                }
            }

            if (now is not null)
            {
                Queue(destination, now);
            }
        }

        if (gathering is not null)
        {
            CloseAfterWindow(destination, gathering);
        }

        // Registered only for a token that can be cancelled (the closure is then the cost of cancelling).
        CancellationTokenRegistration registration = cancellationToken.CanBeCanceled
            ? cancellationToken.Register(() => Withdraw(destination, pending, cancellationToken))
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

    /// <summary>A publish cancelled while its call has not begun: withdrawn (its send cancelled), and out of the gathering if it is there.</summary>
    private void Withdraw(Destination destination, Pending pending, CancellationToken token)
    {
        if (!pending.TryWithdraw(token))
        {
            return; // its call has begun: the service's answer decides
        }

        lock (_gate)
        {
            destination.Open?.Remove(pending); // a queued call skips it when it begins
        }
    }

    /// <summary>Starts the window of a destination's new gathering: when it has passed, the gathering goes unless it went before.</summary>
    private void CloseAfterWindow(Destination destination, List<Pending> gathering)
    {
        lock (_gate)
        {
            destination.Windowed = gathering;
            destination.Window ??= _timeProvider.CreateTimer(static state => ((Destination)state!).Coalescer.OnWindow((Destination)state!), destination, Timeout.InfiniteTimeSpan, Timeout.InfiniteTimeSpan);
        }

        destination.Window.Change(_window, Timeout.InfiniteTimeSpan);
    }

    private void OnWindow(Destination destination)
    {
        lock (_gate)
        {
            if (destination.Open is { } open && ReferenceEquals(open, destination.Windowed))
            {
                destination.Open = null; // its window passed before it went (full, or when the call before it ended)
                Queue(destination, open);
            }
        }
    }

    /// <summary>Queues a call after the ones under way for the destination (under the gate), so their order holds.</summary>
    private void Queue(Destination destination, List<Pending> entries)
    {
        destination.Calls++;
        destination.Tail = SendAfterAsync(destination.Tail, destination, entries);
    }

    private async Task SendAfterAsync(Task previous, Destination destination, List<Pending> entries)
    {
        await previous.ConfigureAwait(false); // never faults: every call completes its entries itself
        await Task.Yield(); // this call does not run on in the previous one's continuation
        List<Pending> sending;
        lock (_gate)
        {
            // Under the gate: a gathering may still be filling when it is queued. Those withdrawn meanwhile are left out.
            sending = new List<Pending>(entries.Count);
            foreach (Pending pending in entries)
            {
                if (pending.TryStart())
                {
                    sending.Add(pending);
                }
            }

            if (ReferenceEquals(destination.Open, entries))
            {
                destination.Open = null;
            }
        }

        if (sending.Count > 0)
        {
            await BatchSends.SendAsync(_transport, sending, CancellationToken.None).ConfigureAwait(false);
        }

        lock (_gate)
        {
            destination.Calls--;
            if (destination.Calls == 0 && destination.Open is { Count: > 0 } gathered)
            {
                destination.Open = null; // what gathered while the call was under way goes now
                Queue(destination, gathered);
            }
        }
    }

    /// <summary>A destination's state: the sends gathering, and how many calls are queued or under way.</summary>
    private sealed class Destination(PublishCoalescer coalescer)
    {
        public PublishCoalescer Coalescer { get; } = coalescer;

        /// <summary>Gets or sets the timer of the gathering windows (one per destination, armed per gathering).</summary>
        public ITimer? Window { get; set; }

        /// <summary>Gets or sets the gathering whose window the timer counts.</summary>
        public List<Pending>? Windowed { get; set; }

        public List<Pending>? Open { get; set; }

        public int Calls { get; set; }

        public Task Tail { get; set; } = Task.CompletedTask;
    }
}
