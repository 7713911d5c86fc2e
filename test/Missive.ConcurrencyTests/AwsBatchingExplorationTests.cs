using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Xunit.Abstractions;
using Microsoft.Coyote.Random;
using Microsoft.Coyote.Specifications;
using Microsoft.Extensions.Time.Testing;
using Missive.Aws.Protocol;
using Missive.Transport;

namespace Missive.ConcurrencyTests;

/// <summary>
/// Missive.Aws's batching layer (<see cref="BatchEntryRetry"/> over <see cref="BatchCalls"/>, as <c>AwsTransport</c>
/// composes them for every batch send, publish and put) below HTTP: each call is scripted by the engine (every entry
/// taken; some entries failed on the service's side, throttled or refused; the call refused whole; the call taken and
/// its answer lost; a call that is not cancellation-safe, taking its entries and then throwing the caller's
/// cancellation), over two destinations (one FIFO), with the caller cancelling at any point and retry backoffs on a
/// fake clock. After each schedule:
/// <list type="bullet">
/// <item>no exception, no hang, one result per entry with its own index;</item>
/// <item>every result is true: succeeded means stored; not sent or refused means not stored; only an unknown outcome
/// may hide a stored entry; nothing is stored twice;</item>
/// <item>FIFO: a group's entries are stored in order, and none after an earlier one of its group was not;</item>
/// <item>the retry quota is whole again when every entry succeeded.</item>
/// </list>
/// </summary>
public sealed class AwsBatchingExplorationTests(ITestOutputHelper output)
{
    private const int Entries = 12;
    private static readonly BatchLimits Limits = new(4, long.MaxValue);

    [Fact]
    public void BatchSends_UnderScriptedCallsAndCancellation_KeepTheirInvariants()
        => Exploration.Run(nameof(BatchSends_UnderScriptedCallsAndCancellation_KeepTheirInvariants), SendAsync, iterations: 400, output);

    private static async Task SendAsync()
    {
        var random = Generator.Create();
        var clock = new FakeTimeProvider();
        var retry = new AwsRetryStrategy(3, TimeSpan.FromSeconds(20), clock, static () => 0.5);
        var service = new ScriptedService(random);
        using var cancel = new CancellationTokenSource();
        bool cancels = random.NextInteger(3) == 0;
        (string Destination, string Id, string Group)[] items = [.. Enumerable.Range(0, Entries).Select(i => (i % 3 == 0 ? "q.fifo" : "q", "E-" + i, "g" + (i % 2)))];

        Task<BatchEntryResult[]> sending = BatchEntryRetry.SendByDestinationAsync(
            retry,
            items,
            static item => item.Destination,
            static name => name.EndsWith(".fifo", StringComparison.Ordinal),
            async (name, entries, ct) =>
            {
                // As SqsClient.SendBatchAsync composes it: calls within the limits, then each result at its entry's index.
                BatchEntryResult[] results = await BatchCalls.CallEachAsync(entries, Limits, null, name.EndsWith(".fifo", StringComparison.Ordinal) ? static e => e.Item.Group : null, "Model SendMessageBatch", service.CallAsync, ct);
                for (int i = 0; i < results.Length; i++)
                {
                    results[i] = results[i] with { Index = entries[i].Index };
                }

                return results;
            },
            cancel.Token);
        Task canceller = cancels ? Task.Run(async () =>
        {
            await Task.Yield();
            cancel.Cancel();
        }) : Task.CompletedTask;

        for (int steps = 0; !sending.IsCompleted; steps++)
        {
            Specification.Assert(steps < 2_000, $"no hang: the sends did not end within 2,000 steps of the fake clock; stored [{string.Join(",", service.Stored)}]");
            clock.Advance(TimeSpan.FromMilliseconds(250));
            await Task.Delay(1);
        }

        Specification.Assert(sending.IsCompletedSuccessfully, $"no exception: {sending.Exception}");
        BatchEntryResult[] outcomes = await sending;
        await canceller;

        Specification.Assert(outcomes.Length == Entries, "one result per entry");
        IReadOnlyList<string> stored = service.Stored;
        for (int i = 0; i < Entries; i++)
        {
            BatchEntryResult result = outcomes[i];
            string id = items[i].Id;
            int times = stored.Count(s => s == id);
            Specification.Assert(result.Index == i, $"{id}: result index {result.Index}");
            Specification.Assert(times <= 1, $"{id} was stored {times} times ({result.Outcome}: {result.ErrorMessage})");
            switch (result.Outcome)
            {
                case BatchEntryOutcome.Succeeded:
                    Specification.Assert(times == 1, $"{id} was reported sent but not stored");
                    break;
                case BatchEntryOutcome.NotSent or BatchEntryOutcome.Refused or BatchEntryOutcome.ReceiptGone:
                    Specification.Assert(times == 0, $"{id} was stored but reported {result.Outcome}: {result.ErrorCode} {result.ErrorMessage}");
                    break;
            }
        }

        List<string> fifoStored = [.. stored.Where(id => items.Any(item => item.Id == id && item.Destination == "q.fifo"))];
        foreach (IGrouping<string, (string Destination, string Id, string Group)> group in items.Where(item => item.Destination == "q.fifo").GroupBy(item => item.Group))
        {
            bool gap = false;
            int last = -1;
            foreach ((_, string id, _) in group)
            {
                int at = fifoStored.IndexOf(id);
                if (at < 0)
                {
                    gap = true;
                    continue;
                }

                Specification.Assert(!gap, $"{id} was stored after an earlier entry of its FIFO group was not");
                Specification.Assert(at > last, $"{id} was stored out of its FIFO group's order");
                last = at;
            }
        }

        // AWS's standard retry mode gives back the cost of the retry that succeeded (not of the retries before it), and
        // the cost of a backoff that was cancelled before its retry.
        Specification.Assert(retry.Quota <= AwsRetryStrategy.QuotaCapacity, $"the retry quota is {retry.Quota}, over its capacity");
        if (outcomes.All(o => o.Succeeded) && service.MostPresentations <= 2)
        {
            Specification.Assert(retry.Quota == AwsRetryStrategy.QuotaCapacity, $"the retry quota is {retry.Quota} after every entry succeeded with at most one retry");
        }
    }

    /// <summary>One batch call as the engine scripts it (see the class summary).</summary>
    private sealed class ScriptedService(Generator random)
    {
        private readonly object _gate = new();
        private readonly List<string> _stored = [];
        private readonly Dictionary<string, int> _presented = [];

        /// <summary>Gets the most calls any one entry was presented in.</summary>
        public int MostPresentations
        {
            get
            {
                lock (_gate)
                {
                    return _presented.Count == 0 ? 0 : _presented.Values.Max();
                }
            }
        }

        public IReadOnlyList<string> Stored
        {
            get
            {
                lock (_gate)
                {
                    return [.. _stored];
                }
            }
        }

        public async Task CallAsync(IReadOnlyList<(int Index, (string Destination, string Id, string Group) Item)> entries, int start, int end, BatchEntryResult[] results, CancellationToken cancellationToken)
        {
            await Task.Yield();
            lock (_gate)
            {
                for (int i = start; i < end; i++)
                {
                    _presented[entries[i].Item.Id] = _presented.GetValueOrDefault(entries[i].Item.Id) + 1;
                }
            }

            int script = random.NextInteger(5);
            if (cancellationToken.IsCancellationRequested && random.NextBoolean())
            {
                // Not cancellation-safe: the entries are taken, and then the caller's cancellation is thrown.
                Store(entries, start, end);
                throw new OperationCanceledException(cancellationToken);
            }

            switch (script)
            {
                case 1:
                    throw new MessageTransportException("Model: the call was refused whole") { StatusCode = 400, ErrorCode = "AccessDenied" };
                case 2:
                    Store(entries, start, end);
                    throw new MessageTransportException("Model: " + ModelQueues.AnswerLost) { StatusCode = 503, FailureKind = TransportFailureKind.Transient, ErrorCode = "ServiceUnavailable" };
                case 3:
                    HashSet<string> failedGroups = []; // a FIFO queue fails a group's later entries of the call after one fails
                    for (int i = start; i < end; i++)
                    {
                        (string destination, string id, string group) = entries[i].Item;
                        if (destination.EndsWith(".fifo", StringComparison.Ordinal) && failedGroups.Contains(group))
                        {
                            results[i] = new BatchEntryResult(i, null, "InternalError", "Model: an earlier entry of its group failed", SenderFault: false);
                            continue;
                        }

                        int fate = random.NextInteger(4);
                        if (fate != 0)
                        {
                            failedGroups.Add(group);
                        }

                        switch (fate)
                        {
                            case 0:
                                Store(entries, i, i + 1);
                                results[i] = BatchEntryResult.Success(i, "m-" + id);
                                break;
                            case 1:
                                results[i] = new BatchEntryResult(i, null, "InternalError", "Model: failed on the service's side", SenderFault: false);
                                break;
                            case 2:
                                results[i] = new BatchEntryResult(i, null, "ThrottlingException", "Model: throttled", SenderFault: false);
                                break;
                            default:
                                results[i] = new BatchEntryResult(i, null, "InvalidParameterValue", "Model: refused for its content", SenderFault: true);
                                break;
                        }
                    }

                    return;
                default:
                    Store(entries, start, end);
                    for (int i = start; i < end; i++)
                    {
                        results[i] = BatchEntryResult.Success(i, "m-" + entries[i].Item.Id);
                    }

                    return;
            }
        }

        private void Store(IReadOnlyList<(int Index, (string Destination, string Id, string Group) Item)> entries, int start, int end)
        {
            lock (_gate)
            {
                for (int i = start; i < end; i++)
                {
                    _stored.Add(entries[i].Item.Id);
                }
            }
        }
    }
}
