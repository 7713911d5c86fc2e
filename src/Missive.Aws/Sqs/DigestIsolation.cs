using System;
using System.Collections.Concurrent;

namespace Missive.Aws.Sqs;

/// <summary>
/// Which queues receive one message at a time for now: after the SDK failed a whole receive for one message's digest,
/// until the messages received with it (invisible, with no receipt to release them) have come back and been received
/// again: two visibility timeouts (they come back after one). A later failure extends it. Thread-safe.
/// </summary>
internal sealed class DigestIsolation(TimeProvider clock)
{
    private readonly ConcurrentDictionary<string, DateTimeOffset> _until = new(StringComparer.Ordinal);

    /// <summary>Whether receives from <paramref name="queue"/> take one message each now.</summary>
    public bool ReceivesAlone(string queue)
    {
        if (_until.IsEmpty || !_until.TryGetValue(queue, out DateTimeOffset until))
        {
            return false;
        }

        if (clock.GetUtcNow() < until)
        {
            return true;
        }

        _until.TryRemove(new(queue, until));
        return false;
    }

    /// <summary>A receive from <paramref name="queue"/> failed for one message's digest: receive one at a time for two of <paramref name="visibility"/>.</summary>
    public void Isolate(string queue, TimeSpan visibility)
    {
        DateTimeOffset until = clock.GetUtcNow() + (2 * visibility);
        _until.AddOrUpdate(queue, until, (_, earlier) => earlier > until ? earlier : until);
    }
}
