using System;
using System.Collections.Generic;
using System.Text;
using Missive.Transport;

namespace Missive.Aws.Protocol;

/// <summary>
/// How many entries one batch call of a service takes, and how much: the one place a list of entries is cut into
/// calls, for SQS, SNS and EventBridge alike. A call takes entries in order while it has fewer than
/// <see cref="BatchLimits.MaxEntries"/> and their sizes stay within <see cref="BatchLimits.MaxPayload"/>; the first
/// entry of a call is always taken (an entry too large on its own is the service's to refuse, with its own error).
/// </summary>
internal static class BatchCalls
{
    /// <summary>SQS <c>SendMessageBatch</c>: 10 entries, 1 MiB of bodies and attributes in all (the SQS API reference).</summary>
    public static readonly BatchLimits SqsSend = new(10, 1024 * 1024);

    /// <summary>SQS <c>DeleteMessageBatch</c> and <c>ChangeMessageVisibilityBatch</c>: 10 entries.</summary>
    public static readonly BatchLimits SqsReceipts = new(10, long.MaxValue);

    /// <summary>SNS <c>PublishBatch</c>: 10 entries, 256 KiB of messages and attributes in all (a topic's default MaximumMessageSize).</summary>
    public static readonly BatchLimits SnsPublish = new(10, 256 * 1024);

    /// <summary>EventBridge <c>PutEvents</c>: 10 entries, whose entry sizes together must be less than 256 KiB.</summary>
    public static readonly BatchLimits EventBridgePutEvents = new(10, (256 * 1024) - 1);

    /// <summary>The end (exclusive) of the call that starts at <paramref name="start"/>.</summary>
    /// <param name="items">The entries.</param>
    /// <param name="start">The first entry of the call.</param>
    /// <param name="limits">The service's limits.</param>
    /// <param name="state">What <paramref name="size"/> needs.</param>
    /// <param name="size">The size an entry counts against <see cref="BatchLimits.MaxPayload"/>; <c>null</c> when there is no size limit.</param>
    public static int End<T, TState>(IReadOnlyList<T> items, int start, BatchLimits limits, TState state, Func<T, TState, long>? size)
    {
        int end = start;
        long payload = 0;
        while (end < items.Count && end - start < limits.MaxEntries)
        {
            if (size is not null)
            {
                long next = size(items[end], state);
                if (end > start && payload + next > limits.MaxPayload)
                {
                    break;
                }

                payload += next;
            }

            end++;
        }

        return end;
    }

    /// <summary>
    /// An EventBridge entry's size as EventBridge counts it ("Calculating PutEvents event entry size", EventBridge user
    /// guide): 14 bytes for a time, then the UTF-8 bytes of the source, the detail type, the detail and each resource.
    /// </summary>
    public static long EventBridgeEntrySize(EventBridgeEntry entry)
    {
        long size = (entry.Time is null ? 0 : 14) + Encoding.UTF8.GetByteCount(entry.Source) + Encoding.UTF8.GetByteCount(entry.DetailType) + Encoding.UTF8.GetByteCount(entry.Detail);
        foreach (string resource in entry.Resources)
        {
            size += Encoding.UTF8.GetByteCount(resource ?? string.Empty);
        }

        return size;
    }
}

/// <summary>A service's limits on one batch call.</summary>
/// <param name="MaxEntries">The most entries.</param>
/// <param name="MaxPayload">The most bytes of the entries together, as the service counts them.</param>
internal readonly record struct BatchLimits(int MaxEntries, long MaxPayload);
