using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Missive.Transport;

namespace Missive.Bus;

/// <summary>
/// The batch calls of a batch publish or of coalesced publishes: the requests of one kind, in order, in the transport's
/// batch calls (which cut them within the service's limits), each request's send completed with its own entry's outcome.
/// </summary>
/// <remarks>
/// <list type="bullet">
/// <item>Retrying is the transport's: its batch calls return each entry's last outcome (the AWS transport sends entries
/// the service failed on its side again under AWS's standard retry mode).</item>
/// <item>Each send ends as its entry's <see cref="BatchEntryResult.Outcome"/> says (<see cref="Complete"/>): an entry
/// not sent because the caller cancelled is cancelled; one that may have been sent fails as such, never cancelled.</item>
/// <item>A call that throws fails the entries of that call only, with its exception; a cancellation thrown once the
/// call had begun fails them as maybe sent.</item>
/// </list>
/// </remarks>
internal static class BatchSends
{
    /// <summary>Sends every request of <paramref name="sending"/> (each already taken with <see cref="Pending.TryStart"/>), one kind after another, and completes each one's send.</summary>
    public static async Task SendAsync(IMessageTransport transport, IReadOnlyList<Pending> sending, CancellationToken cancellationToken)
    {
        for (int kind = Pending.Sqs; kind <= Pending.EventBridge; kind++)
        {
            List<Pending>? entries = null;
            foreach (Pending pending in sending)
            {
                if (pending.Kind == kind)
                {
                    (entries ??= []).Add(pending);
                }
            }

            if (entries is null)
            {
                continue;
            }

            IReadOnlyList<BatchEntryResult> results;
            try
            {
                results = await CallAsync(transport, entries, kind, cancellationToken).ConfigureAwait(false);
            }
            catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
            {
                // The call had begun: its entries may have been taken, and are never reported cancelled.
                foreach (Pending pending in entries)
                {
                    pending.Result.TrySetException(MayHaveBeenSent("the publish was cancelled while its batch call was under way"));
                }

                continue;
            }
            catch (Exception e) when (!ContentSafety.IsFatal(e))
            {
                foreach (Pending pending in entries)
                {
                    pending.Result.TrySetException(e); // this call failed whole: its entries, and no others
                }

                continue;
            }

            for (int i = 0; i < entries.Count; i++)
            {
                if (i >= results.Count)
                {
                    entries[i].Result.TrySetException(MayHaveBeenSent($"the transport's batch call answered {results.Count} results for {entries.Count} entries"));
                }
                else
                {
                    Complete(entries[i], results[i], cancellationToken);
                }
            }
        }
    }

    /// <summary>
    /// Ends one send with its entry's outcome (<see cref="BatchEntryResult.Outcome"/>): its message id; cancelled, when
    /// it was not sent because its caller cancelled; else a <see cref="MessageTransportException"/> that says whether
    /// the service may have taken it (never "cancelled" for what may have been sent).
    /// </summary>
    internal static void Complete(Pending pending, BatchEntryResult result, CancellationToken cancellationToken)
    {
        switch (result.Outcome)
        {
            case BatchEntryOutcome.Succeeded:
                pending.Result.TrySetResult(result.MessageId ?? string.Empty);
                break;
            case BatchEntryOutcome.NotSent when cancellationToken.IsCancellationRequested:
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
            _ => "The service refused this entry of the batch",
        };
        string advice = result.Outcome == BatchEntryOutcome.Unknown ? " " + MayHaveBeenSentAdvice : string.Empty;
        return new(string.IsNullOrEmpty(result.ErrorMessage)
            ? $"{what} ({result.ErrorCode}).{advice}"
            : $"{what} ({result.ErrorCode}): {result.ErrorMessage}{advice}")
        {
            ErrorCode = result.ErrorCode,
            IsTransient = result.Outcome is BatchEntryOutcome.NotSent or BatchEntryOutcome.Unknown,
        };
    }

    /// <summary>What a caller can do about a message that may have been sent.</summary>
    private const string MayHaveBeenSentAdvice = "Publishing it again may deliver it twice: on a FIFO destination, a MessageDeduplicationId (or content-based deduplication) makes publishing it again within five minutes safe; elsewhere, consumers must tolerate a duplicate.";

    private static MessageTransportException MayHaveBeenSent(string why)
        => new($"This entry's outcome is unknown: {why}, so the service may have taken it. {MayHaveBeenSentAdvice}")
        {
            ErrorCode = "OutcomeUnknown",
            IsTransient = true,
        };

    private static Task<IReadOnlyList<BatchEntryResult>> CallAsync(IMessageTransport transport, List<Pending> entries, int kind, CancellationToken cancellationToken)
    {
        switch (kind)
        {
            case Pending.Sqs:
                var sends = new SqsSendRequest[entries.Count];
                for (int i = 0; i < sends.Length; i++)
                {
                    sends[i] = (SqsSendRequest)entries[i].Request;
                }

                return transport.SendBatchAsync(sends, cancellationToken);
            case Pending.Sns:
                var publishes = new SnsPublishRequest[entries.Count];
                for (int i = 0; i < publishes.Length; i++)
                {
                    publishes[i] = (SnsPublishRequest)entries[i].Request;
                }

                return transport.PublishBatchAsync(publishes, cancellationToken);
            default:
                var events = new EventBridgeEntry[entries.Count];
                for (int i = 0; i < events.Length; i++)
                {
                    events[i] = (EventBridgeEntry)entries[i].Request;
                }

                return transport.PutEventBatchAsync(events, cancellationToken);
        }
    }
}
