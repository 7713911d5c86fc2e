using System;
using System.Collections.Concurrent;
using System.Threading;
using System.Threading.Tasks;

namespace Missive.Offload;

/// <summary>
/// A payload store in process memory, for the in-memory broker, samples and tests; thread-safe. No other process can read
/// it: on a transport that delivers to other processes the host does not start with it unless
/// <see cref="PayloadOffloadOptions.AllowInProcessStore"/> says so.
/// </summary>
/// <param name="bucket">The bucket it stores in (a name only; every bucket lives in this one store).</param>
public sealed class InMemoryPayloadStore(string bucket = "missive-payloads") : IPayloadStore
{
    private readonly ConcurrentDictionary<PayloadLocation, byte[]> _objects = new();

    /// <inheritdoc />
    public string Bucket { get; } = string.IsNullOrEmpty(bucket) ? throw new ArgumentException("A bucket name is needed.", nameof(bucket)) : bucket;

    /// <inheritdoc />
    public string Description => $"this process's memory (InMemoryPayloadStore, bucket '{Bucket}')";

    /// <inheritdoc />
    /// <remarks><c>false</c>: payloads live in this process's memory.</remarks>
    public bool IsSharedAcrossProcesses => false;

    /// <summary>Gets how many payloads are stored.</summary>
    public int Count => _objects.Count;

    /// <summary>Whether a payload is stored at <paramref name="location"/>.</summary>
    /// <param name="location">The location.</param>
    /// <returns><c>true</c> when it is.</returns>
    public bool Contains(PayloadLocation location) => _objects.ContainsKey(location);

    /// <summary>Stores a payload at a location of the caller's choosing (as another producer would have).</summary>
    /// <param name="location">The location.</param>
    /// <param name="payload">The payload.</param>
    public void Put(PayloadLocation location, ReadOnlySpan<byte> payload) => _objects[location] = payload.ToArray();

    /// <inheritdoc />
    public Task<PayloadLocation> PutAsync(ReadOnlyMemory<byte> payload, CancellationToken cancellationToken = default)
    {
        cancellationToken.ThrowIfCancellationRequested();
        var location = new PayloadLocation(Bucket, Guid.NewGuid().ToString("D"));
        _objects[location] = payload.ToArray();
        return Task.FromResult(location);
    }

    /// <inheritdoc />
    public Task<ReadOnlyMemory<byte>> GetAsync(PayloadLocation location, long maxLength, CancellationToken cancellationToken = default)
    {
        cancellationToken.ThrowIfCancellationRequested();
        if (!_objects.TryGetValue(location, out byte[]? payload))
        {
            throw new MessageTransportException($"No payload is stored at {location} in this process's memory: the in-memory store holds only what this process stored since it started, so another process's payload, or one stored before a restart, is not there. Where messages cross processes, keep payloads in a shared store (UseS3PayloadStore).") { ErrorCode = "NoSuchKey" };
        }

        if (payload.Length > maxLength)
        {
            throw new MessageTransportException($"The payload at {location} is {payload.Length} bytes, over the {maxLength} a reader takes (PayloadOffloadOptions.MaxPayloadSize).") { ErrorCode = "PayloadTooLarge" };
        }

        return Task.FromResult<ReadOnlyMemory<byte>>(payload);
    }

    /// <inheritdoc />
    public Task DeleteAsync(PayloadLocation location, CancellationToken cancellationToken = default)
    {
        cancellationToken.ThrowIfCancellationRequested();
        _objects.TryRemove(location, out _);
        return Task.CompletedTask;
    }
}
