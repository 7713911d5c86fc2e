using System;

namespace Missive.Bus;

/// <summary>Gets the FIFO message group id (and optionally the deduplication id) of a message from the message itself; see <see cref="FifoIdSelector{T}"/>.</summary>
internal abstract class FifoIdSelector
{
    /// <summary>Gets whether every message gets a deduplication id (else the destination must deduplicate by content).</summary>
    public abstract bool HasDeduplicationIds { get; }
}

/// <summary>The selectors of one message type.</summary>
internal sealed class FifoIdSelector<T> : FifoIdSelector
{
    private readonly Func<T, string> _groupId;
    private readonly Func<T, string>? _deduplicationId;

    public FifoIdSelector(Func<T, string> groupId, Func<T, string>? deduplicationId)
    {
        _groupId = groupId;
        _deduplicationId = deduplicationId;
    }

    public override bool HasDeduplicationIds => _deduplicationId is not null;

    public string GroupId(T message) => _groupId(message);

    public string? DeduplicationId(T message) => _deduplicationId?.Invoke(message);
}
