using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Missive.Transport;

namespace Missive.Bus;

/// <summary>
/// Gathers the sends of concurrent publishes to one destination for at most a window, or until 10 have come, and sends
/// them in one batch call (<see cref="BatchSends"/>), each publish awaiting its own entry's outcome. The sends of one
/// destination go in the order they came, one call after another, so a FIFO group keeps its order. A publish cancelled
/// before its call begins is taken out (nothing is sent); once the call has begun, it ends with the service's answer.
/// Everything that is not a send goes straight to the transport.
/// </summary>
internal sealed class PublishCoalescer : IMessageTransport
{
    private const int MaxEntries = 10;

    private readonly IMessageTransport _transport;
    private readonly TimeSpan _window;
    private readonly object _gate = new();
    private readonly Dictionary<(int Kind, string Destination), List<Pending>> _open = [];
    private readonly Dictionary<(int Kind, string Destination), Task> _tails = [];

    public PublishCoalescer(IMessageTransport transport, TimeSpan window)
    {
        _transport = transport;
        _window = window;
    }

    /// <inheritdoc />
    public bool IsReceiveCancellationSafe => _transport.IsReceiveCancellationSafe;

    public Task<string> SendAsync(SqsSendRequest request, CancellationToken cancellationToken = default) => AddAsync(Pending.Sqs, request.QueueName, request, cancellationToken);

    public Task<string> PublishAsync(SnsPublishRequest request, CancellationToken cancellationToken = default) => AddAsync(Pending.Sns, request.TopicArn, request, cancellationToken);

    public Task<string> PutEventAsync(EventBridgeEntry entry, CancellationToken cancellationToken = default) => AddAsync(Pending.EventBridge, entry.EventBusName, entry, cancellationToken);

    public Task<IReadOnlyList<SqsMessage>> ReceiveAsync(string queueName, int maxMessages, TimeSpan waitTime, TimeSpan? visibilityTimeout = null, CancellationToken cancellationToken = default)
        => _transport.ReceiveAsync(queueName, maxMessages, waitTime, visibilityTimeout, cancellationToken);

    public Task<bool> DeleteAsync(string queueName, string receiptHandle, CancellationToken cancellationToken = default) => _transport.DeleteAsync(queueName, receiptHandle, cancellationToken);

    public Task<bool> ChangeVisibilityAsync(string queueName, string receiptHandle, TimeSpan visibilityTimeout, CancellationToken cancellationToken = default)
        => _transport.ChangeVisibilityAsync(queueName, receiptHandle, visibilityTimeout, cancellationToken);

    private async Task<string> AddAsync(int kind, string destination, object request, CancellationToken cancellationToken)
    {
        cancellationToken.ThrowIfCancellationRequested();
        var key = (kind, destination);
        var pending = new Pending(kind, request);
        List<Pending> list;
        bool first = false, full = false;
        lock (_gate)
        {
            if (!_open.TryGetValue(key, out list!))
            {
                list = [];
                _open[key] = list;
                first = true;
            }

            list.Add(pending);
            if (list.Count == MaxEntries)
            {
                _open.Remove(key); // full: it goes now, and the next send opens another
                full = true;
            }
        }

        if (full)
        {
            Flush(key, list);
        }
        else if (first)
        {
            _ = FlushAfterWindowAsync(key, list);
        }

        // Registered only for a token that can be cancelled (the closure is then the cost of cancelling).
        using CancellationTokenRegistration registration = cancellationToken.CanBeCanceled
            ? cancellationToken.Register(() => Withdraw(key, list, pending, cancellationToken))
            : default;
        return await pending.Result.Task.ConfigureAwait(false);
    }

    /// <summary>A publish cancelled while its call has not begun: taken out, and its send cancelled.</summary>
    private void Withdraw((int, string) key, List<Pending> list, Pending pending, CancellationToken token)
    {
        lock (_gate)
        {
            if (!_open.TryGetValue(key, out List<Pending>? open) || !ReferenceEquals(open, list) || !open.Remove(pending))
            {
                return; // its call has begun: the service's answer decides
            }
        }

        pending.Result.TrySetCanceled(token);
    }

    private async Task FlushAfterWindowAsync((int, string) key, List<Pending> list)
    {
        await Task.Delay(_window).ConfigureAwait(false);
        lock (_gate)
        {
            if (!_open.TryGetValue(key, out List<Pending>? open) || !ReferenceEquals(open, list))
            {
                return; // it filled up and went already
            }

            _open.Remove(key);
        }

        Flush(key, list);
    }

    /// <summary>Sends a gathered list after the one before it to the same destination, so their order holds.</summary>
    private void Flush((int Kind, string Destination) key, List<Pending> list)
    {
        lock (_gate)
        {
            Task previous = _tails.TryGetValue(key, out Task? tail) ? tail : Task.CompletedTask;
            _tails[key] = SendAfterAsync(previous, key.Kind, list);
        }
    }

    private async Task SendAfterAsync(Task previous, int kind, List<Pending> list)
    {
        await previous.ConfigureAwait(ConfigureAwaitOptions.SuppressThrowing);
        Pending[] entries;
        lock (_gate)
        {
            entries = list.ToArray(); // a cancelled publish may have left it until now
        }

        if (entries.Length == 0)
        {
            return;
        }

        try
        {
            await BatchSends.SendAsync(_transport, entries, kind, CancellationToken.None).ConfigureAwait(false);
        }
        catch (Exception e) when (!ContentSafety.IsFatal(e))
        {
            foreach (Pending pending in entries)
            {
                pending.Result.TrySetException(e);
            }
        }
    }
}
