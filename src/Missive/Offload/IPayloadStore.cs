using System;
using System.Threading;
using System.Threading.Tasks;

namespace Missive.Offload;

/// <summary>Where the bodies of messages larger than their service takes are kept while their messages carry pointers.</summary>
/// <remarks>
/// <list type="bullet">
/// <item>The in-memory store (<see cref="InMemoryPayloadStore"/>) is the default, for the in-memory broker and tests; Missive.Aws has the S3 store.</item>
/// <item>A failure is a <see cref="MessageTransportException"/> with an <see cref="MessageTransportException.ErrorCode"/>
/// (<c>NoSuchKey</c>, <c>AccessDenied</c>, <c>PayloadTooLarge</c>, …), never the payload.</item>
/// </list>
/// </remarks>
public interface IPayloadStore
{
    /// <summary>Gets the bucket <see cref="PutAsync"/> stores in (readers fetch from it, and from the buckets the options add).</summary>
    string Bucket { get; }

    /// <summary>Gets where the store keeps payloads, for the bus's startup line (by default, the bucket's name); never a secret.</summary>
    string Description => $"the bucket '{Bucket}'";

    /// <summary>
    /// Gets whether another process can read what this one stores (S3 can; <see cref="InMemoryPayloadStore"/> cannot).
    /// By default <c>true</c>. On a transport that delivers to other processes, the host does not start with a store that
    /// says no, unless <see cref="PayloadOffloadOptions.AllowInProcessStore"/> says so.
    /// </summary>
    bool IsSharedAcrossProcesses => true;

    /// <summary>Stores a payload under a new key (a lowercase UUID, after the store's prefix, if any).</summary>
    /// <param name="payload">The payload: the message body, UTF-8. Valid only until the returned task completes (it may be
    /// a pooled buffer the bus reuses): a store that keeps the bytes past the call copies them.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    /// <returns>Where it was stored.</returns>
    Task<PayloadLocation> PutAsync(ReadOnlyMemory<byte> payload, CancellationToken cancellationToken = default);

    /// <summary>Reads a stored payload, refusing one longer than <paramref name="maxLength"/> before reading it all.</summary>
    /// <param name="location">Where it lies.</param>
    /// <param name="maxLength">The most bytes to read.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    /// <returns>The payload, in one array of its length.</returns>
    Task<ReadOnlyMemory<byte>> GetAsync(PayloadLocation location, long maxLength, CancellationToken cancellationToken = default);

    /// <summary>Deletes a stored payload (deleting one that is not there succeeds, as S3's DeleteObject does).</summary>
    /// <param name="location">Where it lies.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    /// <returns>A task that completes when it is deleted.</returns>
    Task DeleteAsync(PayloadLocation location, CancellationToken cancellationToken = default);
}
