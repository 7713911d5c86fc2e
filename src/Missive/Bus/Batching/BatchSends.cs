using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Missive.Transport;

namespace Missive.Bus;

/// <summary>
/// The sends of a batch publish or of coalesced publishes in one <see cref="Batcher{TKey, TEntry}"/> call: the requests
/// of each kind in the transport's batch calls (which cut them within the service's limits), and each send ended with
/// its own entry's outcome.
/// </summary>
/// <remarks>
/// <list type="bullet">
/// <item>A send its caller withdrew before the call began is not sent (<see cref="BatchResults.Withdrawn"/>).</item>
/// <item>Retrying is the transport's: its batch calls return each entry's last outcome (the AWS transport sends entries
/// the service failed on its side again under AWS's standard retry mode).</item>
/// <item>A transport call that throws gives its own entries a result, and no others: a cancellation once it had begun
/// may have sent them (<see cref="BatchEntryOutcome.Unknown"/>).</item>
/// <item>Each send ends as its entry's <see cref="BatchEntryResult.Outcome"/> says (<see cref="Complete"/>): an entry
/// not sent because its caller cancelled is cancelled; one that may have been sent fails as such, never cancelled.</item>
/// </list>
/// </remarks>
internal static class BatchSends
{
    /// <summary>
    /// How long a batch call of publishes may take before they fail as maybe sent and the lane's later calls go on:
    /// longer than the AWS transport's own attempts (3 of 30 seconds, with their backoff).
    /// </summary>
    public static readonly TimeSpan CallDeadline = TimeSpan.FromMinutes(2);

    /// <summary>What a caller can do about a message that may have been sent.</summary>
    private const string MayHaveBeenSentAdvice = "Publishing it again may deliver it twice: on a FIFO destination, a MessageDeduplicationId (or content-based deduplication) makes publishing it again within five minutes safe; elsewhere, consumers must tolerate a duplicate.";

    /// <summary>
    /// Sends the requests of <paramref name="entries"/> not withdrawn, one kind after another; one result per entry, in
    /// order. The pooled bodies of the requests sent are held until the transport's calls have ended, whatever became of
    /// the publishes that wait for them (a call abandoned at its deadline still holds them).
    /// </summary>
    public static async Task<IReadOnlyList<BatchEntryResult>> CallAsync(IMessageTransport transport, IReadOnlyList<Pending> entries, CancellationToken cancellationToken)
    {
        var started = new bool[entries.Count];
        for (int i = 0; i < entries.Count; i++)
        {
            started[i] = entries[i].TryStart(); // all at once, before any call: a withdrawal after this comes too late
            if (started[i] && entries[i].Request is SqsSendRequest { RentedBody: { } body })
            {
                body.Hold();
            }
        }

        try
        {
            return await CallStartedAsync(transport, entries, started, cancellationToken).ConfigureAwait(false);
        }
        finally
        {
            for (int i = 0; i < entries.Count; i++)
            {
                if (started[i] && entries[i].Request is SqsSendRequest { RentedBody: { } body })
                {
                    body.Release();
                }
            }
        }
    }

    private static async Task<IReadOnlyList<BatchEntryResult>> CallStartedAsync(IMessageTransport transport, IReadOnlyList<Pending> entries, bool[] started, CancellationToken cancellationToken)
    {
        var results = new BatchEntryResult[entries.Count];
        for (int i = 0; i < entries.Count; i++)
        {
            if (!started[i])
            {
                results[i] = BatchResults.Withdrawn(i);
            }
        }

        for (int kind = Pending.Sqs; kind <= Pending.EventBridge; kind++)
        {
            List<int>? positions = null;
            for (int i = 0; i < entries.Count; i++)
            {
                if (started[i] && entries[i].Kind == kind)
                {
                    (positions ??= []).Add(i);
                }
            }

            if (positions is null)
            {
                continue;
            }

            try
            {
                IReadOnlyList<BatchEntryResult> answered = await CallKindAsync(transport, entries, positions, kind, cancellationToken).ConfigureAwait(false)
                    ?? throw MayHaveBeenSent("the transport's batch call answered null");
                for (int j = 0; j < positions.Count; j++)
                {
                    results[positions[j]] = j < answered.Count
                        ? answered[j] with { Index = positions[j] }
                        : BatchEntryResult.Failure(positions[j], MayHaveBeenSent($"the transport's batch call answered {answered.Count} results for {positions.Count} entries"), BatchEntryOutcome.Unknown);
                }
            }
            catch (Exception e) when (!ContentSafety.IsFatal(e))
            {
                MessageTransportException failure = e switch
                {
                    OperationCanceledException when cancellationToken.IsCancellationRequested => MayHaveBeenSent("the publish was cancelled while its batch call was under way"),
                    MessageTransportException transportFailure => transportFailure,
                    _ => MayHaveBeenSent($"its batch call failed ({e.GetType().Name}: {e.Message})"),
                };
                bool mayBeSent = e is OperationCanceledException || failure.ErrorCode == "OutcomeUnknown";
                foreach (int position in positions)
                {
                    results[position] = mayBeSent ? BatchEntryResult.Failure(position, failure, BatchEntryOutcome.Unknown) : BatchEntryResult.Failure(position, failure);
                }
            }
        }

        return results;
    }

    /// <summary>
    /// Ends one send with its entry's outcome (<see cref="BatchEntryResult.Outcome"/>): its message id; cancelled, when
    /// it was not sent because its caller cancelled; else a <see cref="MessageTransportException"/> that says whether
    /// the service may have taken it (never "cancelled" for what may have been sent). A withdrawn send is over already.
    /// </summary>
    public static void Complete(Pending pending, BatchEntryResult result, CancellationToken cancellationToken)
    {
        switch (result.Outcome)
        {
            case BatchEntryOutcome.Succeeded:
                pending.Result.TrySetResult(result.MessageId ?? string.Empty);
                break;
            case BatchEntryOutcome.NotSent when cancellationToken.IsCancellationRequested || result.ErrorCode == BatchResults.WithdrawnCode:
                pending.Result.TrySetCanceled(cancellationToken);
                break;
            default:
                pending.Result.TrySetException(EntryFailed(result));
                break;
        }
    }

    /// <summary>The failure of one entry that did not succeed, saying whether the service may have taken it.</summary>
    internal static MessageTransportException EntryFailed(BatchEntryResult result)
    {
        string what = result.Outcome switch
        {
            BatchEntryOutcome.Unknown => "The service may have taken this entry of the batch",
            BatchEntryOutcome.NotSent => "This entry of the batch was not sent",
            _ => "This entry of the batch was refused",
        };
        string advice = result.Outcome == BatchEntryOutcome.Unknown ? " " + MayHaveBeenSentAdvice : string.Empty;
        return new(string.IsNullOrEmpty(result.ErrorMessage)
            ? $"{what} ({result.ErrorCode}).{advice}"
            : $"{what} ({result.ErrorCode}): {result.ErrorMessage}{advice}")
        {
            ErrorCode = result.ErrorCode,
            FailureKind = result.Outcome is BatchEntryOutcome.NotSent or BatchEntryOutcome.Unknown ? TransportFailureKind.Transient : TransportFailureKind.Refused,
        };
    }

    private static MessageTransportException MayHaveBeenSent(string why)
        => new($"This entry's outcome is unknown: {why}, so the service may have taken it.")
        {
            ErrorCode = "OutcomeUnknown",
            FailureKind = TransportFailureKind.Transient,
        };

    private static Task<IReadOnlyList<BatchEntryResult>> CallKindAsync(IMessageTransport transport, IReadOnlyList<Pending> entries, List<int> positions, int kind, CancellationToken cancellationToken)
    {
        switch (kind)
        {
            case Pending.Sqs:
                var sends = new SqsSendRequest[positions.Count];
                for (int i = 0; i < sends.Length; i++)
                {
                    sends[i] = (SqsSendRequest)entries[positions[i]].Request;
                }

                return transport.SendBatchAsync(sends, cancellationToken);
            case Pending.Sns:
                var publishes = new SnsPublishRequest[positions.Count];
                for (int i = 0; i < publishes.Length; i++)
                {
                    publishes[i] = (SnsPublishRequest)entries[positions[i]].Request;
                }

                return transport.PublishBatchAsync(publishes, cancellationToken);
            default:
                var events = new EventBridgeEntry[positions.Count];
                for (int i = 0; i < events.Length; i++)
                {
                    events[i] = (EventBridgeEntry)entries[positions[i]].Request;
                }

                return transport.PutEventBatchAsync(events, cancellationToken);
        }
    }
}
