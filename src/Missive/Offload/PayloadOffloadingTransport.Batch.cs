using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Missive.Transport;

namespace Missive.Offload;

/// <content>Batch sends and publishes whose entries are offloaded one by one, each with its own result.</content>
internal sealed partial class PayloadOffloadingTransport
{
    /// <summary>
    /// A batch whose large entries are stored first: an entry that cannot be offloaded (its attributes refused, its upload
    /// failed) has its own result and the others go in the inner batch call; an entry that is not sent after its upload
    /// says where its payload is. A cancellation while entries are stored sends nothing: what was stored is named.
    /// </summary>
    private static async Task<IReadOnlyList<BatchEntryResult>> OffloadBatchAsync<TRequest>(
        IReadOnlyList<TRequest> requests,
        Func<TRequest, CancellationToken, Task<(TRequest Request, PayloadLocation? Stored)>> offload,
        Func<IReadOnlyList<TRequest>, CancellationToken, Task<IReadOnlyList<BatchEntryResult>>> send,
        CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(requests);
        var results = new BatchEntryResult[requests.Count];
        var locations = new PayloadLocation?[requests.Count];
        var toSend = new List<TRequest>(requests.Count);
        var positions = new List<int>(requests.Count);
        for (int i = 0; i < requests.Count; i++)
        {
            try
            {
                cancellationToken.ThrowIfCancellationRequested();
                (TRequest sent, locations[i]) = await offload(requests[i], cancellationToken).ConfigureAwait(false);
                toSend.Add(sent);
                positions.Add(i);
            }
            catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
            {
                return NothingSent(results, requests.Count, i, positions, locations);
            }
            catch (Exception e) when (!ContentSafety.IsFatal(e))
            {
                results[i] = NotOffloaded(i, e);
            }
        }

        IReadOnlyList<BatchEntryResult> sentResults;
        try
        {
            sentResults = toSend.Count == 0 ? [] : await send(toSend, cancellationToken).ConfigureAwait(false);
        }
        catch (Exception e) when (!ContentSafety.IsFatal(e))
        {
            // The call's failure is each of its entries' own (one result each, as the batch layer would give), with
            // where each stored payload is.
            var failed = new BatchEntryResult[toSend.Count];
            for (int j = 0; j < failed.Length; j++)
            {
                failed[j] = CallFailed(j, e, cancellationToken);
            }

            sentResults = failed;
        }

        return Merge(results, sentResults, positions, locations);
    }

    /// <summary>The result of an entry that could not be offloaded: refused for its own content, else not sent (its upload failed).</summary>
    private static BatchEntryResult NotOffloaded(int index, Exception e) => e switch
    {
        ArgumentException => new BatchEntryResult(index, null, "ReservedMessageAttribute", e.Message, SenderFault: true) { Outcome = BatchEntryOutcome.Refused },
        MessageTransportException { FailureKind: TransportFailureKind.Refused } refused => BatchEntryResult.Failure(index, refused, BatchEntryOutcome.Refused),
        MessageTransportException store => BatchEntryResult.Failure(index, store, BatchEntryOutcome.NotSent),
        _ => new BatchEntryResult(index, null, "PayloadStoreFailed", $"Its payload could not be stored ({e.GetType().Name}): it was not sent.", SenderFault: false) { Outcome = BatchEntryOutcome.NotSent },
    };

    /// <summary>The result of an entry whose inner batch call threw: refused with the call, else maybe sent.</summary>
    private static BatchEntryResult CallFailed(int index, Exception e, CancellationToken cancellationToken) => e switch
    {
        MessageTransportException failure => BatchEntryResult.Failure(index, failure),
        OperationCanceledException when cancellationToken.IsCancellationRequested => new BatchEntryResult(index, null, "Cancelled", "Cancelled while its batch call was under way: the service may have taken it.", SenderFault: false) { Outcome = BatchEntryOutcome.Unknown },
        _ => new BatchEntryResult(index, null, "CallFailed", $"Its batch call failed ({e.GetType().Name}): the service may have taken it.", SenderFault: false) { Outcome = BatchEntryOutcome.Unknown },
    };

    /// <summary>Cancelled while entries were stored: nothing is sent; entries stored so far say where their payloads are.</summary>
    private static BatchEntryResult[] NothingSent(BatchEntryResult[] results, int count, int reached, List<int> positions, PayloadLocation?[] locations)
    {
        foreach (int i in positions)
        {
            results[i] = new BatchEntryResult(i, null, "Cancelled", "Cancelled before its batch call: not sent.", SenderFault: false) { Outcome = BatchEntryOutcome.NotSent };
        }

        for (int i = reached; i < count; i++)
        {
            results[i] = new BatchEntryResult(i, null, "Cancelled", "Cancelled before its batch call: not sent.", SenderFault: false) { Outcome = BatchEntryOutcome.NotSent };
        }

        return WithLocations(results, locations);
    }

    private static BatchEntryResult[] Merge(BatchEntryResult[] results, IReadOnlyList<BatchEntryResult> sent, List<int> positions, PayloadLocation?[] locations)
    {
        for (int j = 0; j < sent.Count; j++)
        {
            int i = positions[j];
            results[i] = sent[j] with { Index = i };
        }

        return WithLocations(results, locations);
    }

    /// <summary>Each entry that did not succeed after its payload was stored says where the payload stays.</summary>
    private static BatchEntryResult[] WithLocations(BatchEntryResult[] results, PayloadLocation?[] locations)
    {
        for (int i = 0; i < results.Length; i++)
        {
            if (!results[i].Succeeded && locations[i] is { } location)
            {
                results[i] = results[i] with { ErrorMessage = $"{results[i].ErrorMessage} The payload had been stored at {location}: it stays there." };
            }
        }

        return results;
    }
}
