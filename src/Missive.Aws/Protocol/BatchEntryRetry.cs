using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Missive.Transport;

namespace Missive.Aws.Protocol;

/// <summary>
/// Sends again, in new calls under AWS's standard retry mode, the entries of a batch call that the service failed on
/// its side.
/// </summary>
/// <remarks>
/// <list type="bullet">
/// <item>Failed on the service's side and not taken (<see cref="BatchEntryOutcome.NotSent"/> and not the sender's fault:
/// throttling, an internal error); each new
/// call waits as <see cref="AwsRetryStrategy.BeforeEntryRetryAsync"/> says. An entry whose call may have reached the
/// service (<see cref="BatchEntryOutcome.Unknown"/>) is not sent again: that call had its own retries, and another send
/// could deliver it twice.</item>
/// <item>The sender's faults, what is left when the attempts or the quota run out, and the entries of a call sending
/// them again that fails whole stay as their entries' failures.</item>
/// <item>A cancellation during a backoff ends the retries: every entry keeps its last outcome, and nothing is thrown
/// over entries the service took.</item>
/// <item>Nothing is sent again on a FIFO destination: a later message of the failed one's group may already be sent,
/// and sending it again would put it after that one.</item>
/// </list>
/// </remarks>
internal static class BatchEntryRetry
{
    /// <summary>
    /// Sends <paramref name="items"/> destination by destination (in the order each first appears), each as
    /// <see cref="SendAsync"/> does, and returns one result per item, in order.
    /// </summary>
    /// <param name="retry">The transport's retry strategy.</param>
    /// <param name="items">The entries. Must not hold null.</param>
    /// <param name="destination">An entry's queue, topic or bus.</param>
    /// <param name="ordered">Whether a destination is FIFO (then nothing is sent again).</param>
    /// <param name="call">The batch calls over some entries of one destination: one result per entry given, in order, with the entry's index.</param>
    /// <param name="cancellationToken">Cancels the calls and the backoff; never thrown over entries.</param>
    /// <remarks>
    /// A destination whose calls cannot begin (its URL cannot be resolved, or the caller cancelled first) fails its own
    /// entries unsent, and the other destinations keep their results.
    /// </remarks>
    public static async Task<BatchEntryResult[]> SendByDestinationAsync<T>(AwsRetryStrategy retry, IReadOnlyList<T> items, Func<T, string> destination, Func<string, bool> ordered, Func<string, IReadOnlyList<(int Index, T Item)>, CancellationToken, Task<BatchEntryResult[]>> call, CancellationToken cancellationToken)
    {
        var results = new BatchEntryResult[items.Count];
        foreach ((string name, List<(int Index, T Item)> entries) in GroupBy(items, destination))
        {
            try
            {
                await SendAsync(retry, entries, ordered(name), (some, ct) => call(name, some, ct), results, cancellationToken).ConfigureAwait(false);
            }
            catch (MessageTransportException e)
            {
                Fail(entries, results, BatchEntryResult.Failure(0, e, BatchEntryOutcome.NotSent)); // nothing of this destination was sent
            }
            catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
            {
                // Cancelled before this destination's first call (resolving its URL): never thrown over another's results.
                Fail(entries, results, BatchEntryResult.Failure(0, BatchCalls.Cancelled("The batch", underWay: false), BatchEntryOutcome.NotSent));
            }
        }

        return results;
    }

    /// <summary>Sends <paramref name="entries"/> with <paramref name="call"/>, and again those that failed on the service's side, as the strategy allows.</summary>
    /// <param name="retry">The transport's retry strategy.</param>
    /// <param name="entries">The entries, each with its index in <paramref name="results"/>.</param>
    /// <param name="ordered">Whether the destination is FIFO (then nothing is sent again).</param>
    /// <param name="call">The batch calls over some of the entries: one result per entry given, in order, with the entry's index.</param>
    /// <param name="results">Where each entry's last outcome is put, at its index.</param>
    /// <param name="cancellationToken">Cancels the calls and the backoff.</param>
    public static async Task SendAsync<T>(AwsRetryStrategy retry, IReadOnlyList<(int Index, T Item)> entries, bool ordered, Func<IReadOnlyList<(int Index, T Item)>, CancellationToken, Task<BatchEntryResult[]>> call, BatchEntryResult[] results, CancellationToken cancellationToken)
    {
        int tokens = 0;
        for (int attempt = 0; ; attempt++)
        {
            BatchEntryResult[] outcomes;
            try
            {
                outcomes = await call(entries, cancellationToken).ConfigureAwait(false);
            }
            catch (Exception e) when (attempt > 0 && (e is MessageTransportException || (e is OperationCanceledException && cancellationToken.IsCancellationRequested)))
            {
                // A call sending entries again failed whole (after its own retries) or was cancelled before it began:
                // they keep the failure they had, and what the first call sent stays reported sent.
                return;
            }

            List<(int Index, T Item)>? again = null;
            bool throttling = false;
            for (int i = 0; i < outcomes.Length; i++)
            {
                BatchEntryResult outcome = outcomes[i];
                results[outcome.Index] = outcome;
                if (outcome.Outcome == BatchEntryOutcome.NotSent && !outcome.SenderFault && !ordered)
                {
                    (again ??= []).Add(entries[i]);
                    throttling |= AwsErrorCodes.IsThrottling(outcome.ErrorCode, null);
                }
            }

            if (again is not null && cancellationToken.IsCancellationRequested)
            {
                return; // cancelled: nothing is sent again, and the entries keep their last outcome
            }

            if (again is null)
            {
                if (tokens > 0)
                {
                    retry.EntriesRetried(tokens);
                }

                return;
            }

            try
            {
                tokens = await retry.BeforeEntryRetryAsync(throttling, attempt, cancellationToken).ConfigureAwait(false);
            }
            catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
            {
                return; // cancelled during the backoff: the entries keep the failure they had (not sent), the others their results
            }

            if (tokens == 0)
            {
                return;
            }

            entries = again;
        }
    }

    /// <summary>Gives <paramref name="failure"/> to each of <paramref name="entries"/> that has no result yet.</summary>
    private static void Fail<T>(List<(int Index, T Item)> entries, BatchEntryResult[] results, BatchEntryResult failure)
    {
        foreach ((int index, _) in entries)
        {
            if (results[index] == default)
            {
                results[index] = failure with { Index = index };
            }
        }
    }

    /// <summary>The entries of each destination, in the order destinations first appear (a batch names few: a list is searched).</summary>
    private static List<(string Name, List<(int Index, T Item)> Entries)> GroupBy<T>(IReadOnlyList<T> items, Func<T, string> key)
    {
        var groups = new List<(string Name, List<(int Index, T Item)> Entries)>(1);
        for (int i = 0; i < items.Count; i++)
        {
            T item = items[i] ?? throw new ArgumentException("A batch cannot hold null entries.", nameof(items));
            string name = key(item);
            int at = 0;
            while (at < groups.Count && !string.Equals(groups[at].Name, name, StringComparison.Ordinal))
            {
                at++;
            }

            if (at == groups.Count)
            {
                groups.Add((name, new List<(int Index, T Item)>(items.Count - i)));
            }

            groups[at].Entries.Add((i, item));
        }

        return groups;
    }
}
