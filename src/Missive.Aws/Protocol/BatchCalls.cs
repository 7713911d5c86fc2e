using System;
using System.Collections.Generic;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using Missive.Transport;

namespace Missive.Aws.Protocol;

/// <summary>
/// How a list of entries is cut into a service's batch calls, and what each entry learns: the one place it is done, for
/// SQS, SNS and EventBridge alike.
/// </summary>
/// <remarks>
/// <list type="bullet">
/// <item>A call takes entries in order while it has fewer than <see cref="BatchLimits.MaxEntries"/> and their sizes stay
/// within <see cref="BatchLimits.MaxPayload"/>; the first entry of a call is always taken.</item>
/// <item>An entry larger than <see cref="BatchLimits.MaxEntrySize"/> fails alone, before any call, naming its size and
/// the limit (<c>EntryTooLarge</c>).</item>
/// <item>A call that fails whole fails its own entries (saying whether the service may have taken them); the calls
/// before it keep their results and the calls after it go on, except for the later entries of a FIFO group that had an
/// entry fail, which fail unsent (a later message must not go after an earlier one that did not).</item>
/// <item>A cancellation stops the calls and is never thrown over entries: the entries of the call under way learn that
/// they may have been taken (<see cref="BatchEntryOutcome.Unknown"/>), the later ones that they were not sent.</item>
/// </list>
/// </remarks>
internal static class BatchCalls
{
    /// <summary>The default largest message SQS, SNS and EventBridge take: 1 MiB (SQS since August 2025, body and attributes; an SNS topic whose MaximumMessageSize is raised to it; EventBridge since January 2026).</summary>
    public const int DefaultMaxEntrySize = 1024 * 1024;

    /// <summary>The error code of an entry not sent because its caller cancelled.</summary>
    public const string CancelledCode = "Cancelled";

    /// <summary>The error code of an entry whose call was under way when its caller cancelled (it may have been taken).</summary>
    public const string CancelledUnderWayCode = "CancelledUnderWay";

    /// <summary>SQS <c>SendMessageBatch</c>: 10 entries, 1 MiB of bodies and attributes in all (the SQS API reference).</summary>
    public static readonly BatchLimits SqsSend = new(10, 1024 * 1024);

    /// <summary>SQS <c>DeleteMessageBatch</c> and <c>ChangeMessageVisibilityBatch</c>: 10 entries.</summary>
    public static readonly BatchLimits SqsReceipts = new(10, long.MaxValue);

    /// <summary>SNS <c>PublishBatch</c>: 10 entries, 256 KiB of messages and attributes in all (a topic's default MaximumMessageSize); a larger message goes alone.</summary>
    public static readonly BatchLimits SnsPublish = new(10, 256 * 1024);

    /// <summary>EventBridge <c>PutEvents</c>: 10 entries, whose entry sizes together must be less than 256 KiB; a larger entry goes alone.</summary>
    public static readonly BatchLimits EventBridgePutEvents = new(10, (256 * 1024) - 1);

    /// <summary>
    /// Sends <paramref name="items"/> in calls within <paramref name="limits"/>, each call on its own (see the remarks),
    /// and returns one result per item, in order, each with the item's position as its index.
    /// </summary>
    /// <param name="items">The entries.</param>
    /// <param name="limits">The service's limits.</param>
    /// <param name="size">An entry's size as the service counts it, or <c>null</c> when there is no size limit.</param>
    /// <param name="fifoGroup">An entry's FIFO group, or <c>null</c> when entries keep no order.</param>
    /// <param name="operation">The call, for errors (for example <c>SQS SendMessageBatch</c>).</param>
    /// <param name="call">One call over <c>list[start..end)</c>, filling <c>results[start..end)</c>.</param>
    /// <param name="cancellationToken">Cancels the calls.</param>
    public static async Task<BatchEntryResult[]> CallEachAsync<T>(IReadOnlyList<T> items, BatchLimits limits, Func<T, long>? size, Func<T, string?>? fifoGroup, string operation, Func<IReadOnlyList<T>, int, int, BatchEntryResult[], CancellationToken, Task> call, CancellationToken cancellationToken)
    {
        var results = new BatchEntryResult[items.Count];
        HashSet<string>? failedGroups = null;
        (IReadOnlyList<T> work, int[]? positions) = Sendable(items, limits, size, fifoGroup, operation, results, ref failedGroups);
        BatchEntryResult[] scratch = positions is null ? results : new BatchEntryResult[work.Count]; // by position in work
        for (int start = 0, end; start < work.Count; start = end)
        {
            end = size is null ? End<T, int>(work, start, limits, 0, null) : End(work, start, limits, size, static (item, measure) => measure(item));
            if (cancellationToken.IsCancellationRequested)
            {
                CancelFrom(operation, scratch, start, underWayEnd: start, work.Count);
                end = work.Count;
            }
            else
            {
                try
                {
                    await call(work, start, end, scratch, cancellationToken).ConfigureAwait(false);
                }
                catch (MessageTransportException e)
                {
                    bool refused = e.StatusCode is >= 400 and < 500 && !e.IsTransient;
                    for (int i = start; i < end; i++)
                    {
                        scratch[i] = BatchEntryResult.Failure(i, CallFailed(operation, e, refused), refused ? BatchEntryOutcome.NotSent : BatchEntryOutcome.Unknown);
                    }
                }
                catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
                {
                    // Never thrown over entries: those of the call under way may have been taken, the later ones were not sent.
                    CancelFrom(operation, scratch, start, underWayEnd: end, work.Count);
                    end = work.Count;
                }
            }

            bool groupFailed = false;
            for (int i = start; i < end; i++)
            {
                int position = positions?[i] ?? i;
                results[position] = scratch[i] with { Index = position };
                if (!scratch[i].Succeeded && fifoGroup?.Invoke(work[i]) is { } group)
                {
                    groupFailed |= (failedGroups ??= new HashSet<string>(StringComparer.Ordinal)).Add(group);
                }
            }

            if (groupFailed && end < work.Count)
            {
                // The rest without the failed groups' later entries (they fail unsent), cut into calls from its start.
                var rest = new List<T>(work.Count - end);
                var restPositions = new List<int>(work.Count - end);
                for (int i = end; i < work.Count; i++)
                {
                    int position = positions?[i] ?? i;
                    if (fifoGroup!(work[i]) is { } later && failedGroups!.Contains(later))
                    {
                        results[position] = BatchEntryResult.Failure(position, GroupFailedEarlier(operation, later), BatchEntryOutcome.NotSent);
                    }
                    else
                    {
                        rest.Add(work[i]);
                        restPositions.Add(position);
                    }
                }

                work = rest;
                positions = [.. restPositions];
                scratch = new BatchEntryResult[work.Count];
                end = 0;
            }
        }

        return results;
    }

    /// <summary>The entries that may be sent (with their positions when some are left out); those too large get their failure now.</summary>
    private static (IReadOnlyList<T> Work, int[]? Positions) Sendable<T>(IReadOnlyList<T> items, BatchLimits limits, Func<T, long>? size, Func<T, string?>? fifoGroup, string operation, BatchEntryResult[] results, ref HashSet<string>? failedGroups)
    {
        List<T>? kept = null;
        List<int>? positions = null;
        for (int i = 0; i < items.Count; i++)
        {
            long bytes = size?.Invoke(items[i]) ?? 0;
            string? group = fifoGroup?.Invoke(items[i]);
            bool groupFailed = group is not null && failedGroups is not null && failedGroups.Contains(group);
            if (bytes > limits.MaxEntrySize || groupFailed)
            {
                if (kept is null)
                {
                    kept = new List<T>(items.Count);
                    positions = new List<int>(items.Count);
                    for (int j = 0; j < i; j++)
                    {
                        kept.Add(items[j]);
                        positions.Add(j);
                    }
                }

                results[i] = groupFailed
                    ? BatchEntryResult.Failure(i, GroupFailedEarlier(operation, group!), BatchEntryOutcome.NotSent)
                    : BatchEntryResult.Failure(i, TooLarge(operation, bytes, limits.MaxEntrySize), BatchEntryOutcome.Refused);
                if (group is not null)
                {
                    (failedGroups ??= new HashSet<string>(StringComparer.Ordinal)).Add(group);
                }

                continue;
            }

            kept?.Add(items[i]);
            positions?.Add(i);
        }

        return kept is null ? (items, null) : (kept, [.. positions!]);
    }

    /// <summary>An entry larger than the service takes: refused before any call.</summary>
    public static MessageTransportException TooLarge(string operation, long size, long limit)
        => new($"{operation}: this entry is {size:N0} bytes, more than the {limit:N0} the service takes for one message (body and attributes); it was not sent, and the other entries were. {TooLargeAdvice}")
        {
            ErrorCode = "EntryTooLarge",
        };

    /// <summary>A message larger than <paramref name="destination"/> takes: refused before the call.</summary>
    public static MessageTransportException TooLarge(string operation, string destination, long size, long limit)
        => new($"{operation} to {destination}: the message is {size:N0} bytes, more than the {limit:N0} the service takes for one message (body and attributes); it was not sent. {TooLargeAdvice}")
        {
            ErrorCode = "EntryTooLarge",
        };

    private const string TooLargeAdvice = "Keep large bodies in S3 with UsePayloadOffload() and UseS3PayloadStore (docs/large-messages.md), send a smaller message, or raise the limit in AwsTransportOptions (MaxSqsMessageSize, MaxSnsMessageSize, MaxEventBridgeEntrySize) if the destination takes more.";

    /// <summary>The failure of an entry whose call failed whole: the service may have taken it unless it refused the call.</summary>
    private static MessageTransportException CallFailed(string operation, MessageTransportException e, bool refused)
    {
        return new($"{operation}: the call carrying this entry failed ({e.Message}). {(refused ? "The service refused the call: the entry was not sent." : "The service may have taken the entry (the call failed on its side, or its answer was lost): sending it again may deliver it twice.")}", e)
        {
            ErrorCode = e.ErrorCode,
            RequestId = e.RequestId,
            StatusCode = e.StatusCode,
            FailureKind = e.FailureKind,
        };
    }

    /// <summary>
    /// The entries from <paramref name="start"/> after a cancellation: those before <paramref name="underWayEnd"/> were in
    /// the call under way (<see cref="BatchEntryOutcome.Unknown"/>), the others were not sent.
    /// </summary>
    private static void CancelFrom(string operation, BatchEntryResult[] scratch, int start, int underWayEnd, int count)
    {
        for (int i = start; i < count; i++)
        {
            bool underWay = i < underWayEnd;
            scratch[i] = BatchEntryResult.Failure(i, Cancelled(operation, underWay), underWay ? BatchEntryOutcome.Unknown : BatchEntryOutcome.NotSent);
        }
    }

    /// <summary>The failure of an entry after its caller cancelled: <c>Cancelled</c> when it was not sent, <c>CancelledUnderWay</c> when its call may have reached the service.</summary>
    internal static MessageTransportException Cancelled(string operation, bool underWay)
        => new(underWay
            ? $"{operation}: cancelled while the call carrying this entry was under way: the service may have taken it."
            : $"{operation}: cancelled before the call for this entry: it was not sent.")
        {
            ErrorCode = underWay ? CancelledUnderWayCode : CancelledCode,
            FailureKind = TransportFailureKind.Transient,
        };

    private static MessageTransportException GroupFailedEarlier(string operation, string group)
        => new($"{operation}: not sent, as an earlier message of its FIFO group '{group}' failed and a later one must not go after it.")
        {
            ErrorCode = "FifoGroupFailedEarlier",
        };

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
