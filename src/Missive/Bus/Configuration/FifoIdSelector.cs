using System;

namespace Missive.Bus;

/// <summary>Gets the FIFO message group id (and optionally the deduplication id) of a message from the message itself; see <see cref="FifoIdSelector{T}"/>.</summary>
internal abstract class FifoIdSelector
{
    /// <summary>Gets whether every message gets a deduplication id (else the destination must deduplicate by content).</summary>
    public abstract bool HasDeduplicationIds { get; }
}
