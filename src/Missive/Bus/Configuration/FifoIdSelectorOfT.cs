using System;

namespace Missive.Bus;

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
