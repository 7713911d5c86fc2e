using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Threading;

namespace Missive.Bus;

/// <summary>
/// What the publisher reports about its sends, per destination (queue, topic or event bus), for health checks and
/// dashboards: the failures in a row, the last one's error code and kind, and when it happened. A successful send to a
/// destination clears it. A failure of one call alone (<see cref="TransportFailureKind.Refused"/>: a message over its
/// size limit, a parameter the service rejects) says nothing about the service or the configuration and is not
/// counted. No message content is ever in it.
/// </summary>
public sealed class PublishingHealth
{
    private readonly ConcurrentDictionary<string, Destination> _destinations = new(StringComparer.Ordinal);

    internal PublishingHealth()
    {
    }

    /// <summary>Gets every destination published to, its state as of now, in the order of their names.</summary>
    public IReadOnlyList<PublishingDestinationHealth> Destinations
    {
        get
        {
            var all = new List<PublishingDestinationHealth>(_destinations.Count);
            foreach (KeyValuePair<string, Destination> entry in _destinations)
            {
                all.Add(entry.Value.Snapshot(entry.Key));
            }

            all.Sort(static (a, b) => string.CompareOrdinal(a.Name, b.Name));
            return all;
        }
    }

    /// <summary>A send to <paramref name="destination"/> succeeded: one lookup and one read when nothing failed there before.</summary>
    internal void Succeeded(string destination)
    {
        Destination state = _destinations.GetOrAdd(destination, static _ => new Destination());
        if (Volatile.Read(ref state.ConsecutiveFailures) == 0)
        {
            return;
        }

        lock (state)
        {
            state.ConsecutiveFailures = 0;
        }
    }

    /// <summary>A send to <paramref name="destination"/> failed in the transport at <paramref name="at"/>; a refusal of that call alone is not counted.</summary>
    internal void Failed(string destination, MessageTransportException error, DateTimeOffset at)
    {
        if (error.FailureKind == TransportFailureKind.Refused)
        {
            return;
        }

        Destination state = _destinations.GetOrAdd(destination, static _ => new Destination());
        lock (state)
        {
            state.ConsecutiveFailures++;
            state.Kind = error.FailureKind;
            state.LastErrorCode = error.ErrorCode;
            state.LastError = error.Message;
            state.LastFailureAt = at;
        }
    }

    /// <summary>One destination's state; its fields change under its own lock.</summary>
    private sealed class Destination
    {
        public int ConsecutiveFailures;
        public TransportFailureKind Kind;
        public string? LastErrorCode;
        public string? LastError;
        public DateTimeOffset? LastFailureAt;

        public PublishingDestinationHealth Snapshot(string name)
        {
            lock (this)
            {
                return new PublishingDestinationHealth(name, ConsecutiveFailures, Kind, LastErrorCode, LastError, LastFailureAt);
            }
        }
    }
}
