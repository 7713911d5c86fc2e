using System.Collections.Concurrent;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Missive.Bus;

namespace Missive.Tests.Native;

/// <summary>The envelopes a test's handlers got, whatever their type (register it as a singleton).</summary>
public sealed class HandledEnvelopes
{
    public ConcurrentQueue<MessageEnvelope> All { get; } = new();

    public int Count => All.Count;

    public MessageEnvelope<T> Single<T>() => Assert.Single(All.OfType<MessageEnvelope<T>>());
}

/// <summary>Handles a message by keeping its envelope in <see cref="HandledEnvelopes"/>.</summary>
public sealed class EnvelopeRecorder<T>(HandledEnvelopes handled) : IMessageHandler<T>
{
    public Task HandleAsync(MessageEnvelope<T> envelope, CancellationToken cancellationToken)
    {
        handled.All.Enqueue(envelope);
        return Task.CompletedTask;
    }
}
