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
/// <item>A failed entry's send fails with a <see cref="MessageTransportException"/>, transient when it was not the
/// sender's fault.</item>
/// <item>A call that throws fails the entries of that call only, with its exception.</item>
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
                BatchEntryResult result = i < results.Count ? results[i] : default;
                if (i >= results.Count)
                {
                    entries[i].Result.TrySetException(new MessageTransportException($"The transport's batch call answered {results.Count} results for {entries.Count} entries: this entry's outcome is unknown (it may have been sent)."));
                }
                else if (result.Succeeded)
                {
                    entries[i].Result.TrySetResult(result.MessageId ?? string.Empty);
                }
                else
                {
                    entries[i].Result.TrySetException(EntryFailed(result));
                }
            }
        }
    }

    /// <summary>The failure of one entry the service refused.</summary>
    internal static MessageTransportException EntryFailed(BatchEntryResult result)
        => new(string.IsNullOrEmpty(result.ErrorMessage)
            ? $"The service refused this entry of the batch ({result.ErrorCode})."
            : $"The service refused this entry of the batch ({result.ErrorCode}): {result.ErrorMessage}")
        {
            ErrorCode = result.ErrorCode,
            IsTransient = !result.SenderFault,
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
