using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Missive.Aws.Protocol;
using Missive.Transport;

namespace Missive.Tests.Aws.Unit;

/// <summary>The one splitter of batch calls, against the limits the services' API references state.</summary>
public sealed class BatchCallsTests
{
    /// <summary>Entries (id, size, group) sent by <see cref="BatchCalls.CallEachAsync"/> with a call that fails whole the calls <paramref name="failing"/> names.</summary>
    private static async Task<(BatchEntryResult[] Results, List<string[]> Calls)> SendAsync((string Id, long Size, string? Group)[] entries, bool fifo, params int[] failing)
    {
        var calls = new List<string[]>();
        BatchEntryResult[] results = await BatchCalls.CallEachAsync(
            entries,
            BatchCalls.SqsSend.WithMaxEntrySize(1024 * 1024),
            static e => e.Size,
            fifo ? static e => e.Group : null,
            "SQS SendMessageBatch",
            (list, start, end, chunk, ct) =>
            {
                calls.Add([.. list.Skip(start).Take(end - start).Select(e => e.Id)]);
                if (failing.Contains(calls.Count))
                {
                    throw new MessageTransportException("InternalError") { ErrorCode = "InternalError", StatusCode = 500, FailureKind = TransportFailureKind.Transient };
                }

                for (int i = start; i < end; i++)
                {
                    chunk[i] = BatchEntryResult.Success(i, "m-" + list[i].Id);
                }

                return Task.CompletedTask;
            },
            CancellationToken.None);
        return (results, calls);
    }

    [Fact]
    public async Task CallEach_AnEntryTooLarge_FailsAlone_BeforeAnyCall()
    {
        (BatchEntryResult[] results, List<string[]> calls) = await SendAsync([("a", 100, null), ("big", (1024 * 1024) + 1, null), ("c", 100, null)], fifo: false);

        Assert.Equal("EntryTooLarge", results[1].ErrorCode);
        Assert.True(results[1].SenderFault);
        Assert.True(results[0].Succeeded && results[2].Succeeded);
        Assert.Equal([["a", "c"]], calls);
        Assert.Equal([0, 1, 2], results.Select(r => r.Index));
    }

    [Fact]
    public async Task CallEach_ACallThatFails_FailsItsOwnEntries_KeepsTheEarlierOnes_AndTheLaterCallsGoOn()
    {
        var entries = Enumerable.Range(0, 25).Select(i => ("e" + i, 100L, (string?)"g")).ToArray();

        (BatchEntryResult[] results, List<string[]> calls) = await SendAsync(entries, fifo: false, failing: 2);

        Assert.Equal(3, calls.Count); // a standard queue's group ids keep no order: the third call goes
        Assert.All(results.Take(10), r => Assert.True(r.Succeeded));
        Assert.All(results.Skip(10).Take(10), r => Assert.Contains("may have taken", r.ErrorMessage, StringComparison.Ordinal));
        Assert.All(results.Skip(20), r => Assert.True(r.Succeeded));
    }

    [Fact]
    public async Task CallEach_OnAFifoDestination_AFailedCallStopsTheLaterEntriesOfItsGroups_NotOthers()
    {
        (string, long, string?)[] entries = [.. Enumerable.Range(0, 10).Select(i => ("a" + i, 100L, (string?)"a")), ("a10", 100, "a"), ("b0", 100, "b")];

        (BatchEntryResult[] results, List<string[]> calls) = await SendAsync(entries, fifo: true, failing: 1);

        Assert.Equal(2, calls.Count);
        Assert.Equal(["b0"], calls[1]);
        Assert.Equal("FifoGroupFailedEarlier", results[10].ErrorCode);
        Assert.True(results[11].Succeeded);
    }

    [Fact]
    public void Calls_TakeAtMostTenEntries()
    {
        var handles = new List<string>();
        for (int i = 0; i < 23; i++)
        {
            handles.Add("r" + i);
        }

        Assert.Equal([10, 10, 3], Calls(handles, BatchCalls.SqsReceipts, null));
    }

    [Theory]
    [InlineData("sqs", 1024 * 1024, new[] { 4, 4, 2 })] // 250 KiB each: four fit in 1 MiB
    [InlineData("sns", 256 * 1024, new[] { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 })] // one per call within 256 KiB
    public void Calls_StayWithinTheServicesPayload(string service, int limit, int[] expected)
    {
        var sizes = new List<long>();
        for (int i = 0; i < 10; i++)
        {
            sizes.Add(250 * 1024);
        }

        BatchLimits limits = service == "sqs" ? BatchCalls.SqsSend : BatchCalls.SnsPublish;

        Assert.Equal(limit, limits.MaxPayload);
        Assert.Equal(expected, Calls(sizes, limits, static (size, _) => size));
    }

    [Fact]
    public void AnEntryOverTheLimitOnItsOwn_IsSentAlone_ForTheServiceToRefuse()
    {
        List<long> sizes = [10, 2 * 1024 * 1024, 10, 10];

        Assert.Equal([1, 1, 2], Calls(sizes, BatchCalls.SqsSend, static (size, _) => size));
    }

    [Theory]
    [InlineData("sqs")]
    [InlineData("sns")]
    [InlineData("eventbridge")]
    public void AtTheLimitAnEntryFits_AndOneByteMoreGoesInTheNextCall(string service)
    {
        BatchLimits limits = service switch { "sqs" => BatchCalls.SqsSend, "sns" => BatchCalls.SnsPublish, _ => BatchCalls.EventBridgePutEvents };
        long quarter = limits.MaxPayload / 4;
        List<long> exact = [quarter, quarter, quarter, limits.MaxPayload - (3 * quarter), 1];
        List<long> over = [quarter, quarter, quarter, limits.MaxPayload - (3 * quarter) + 1, 1];

        Assert.Equal([4, 1], Calls(exact, limits, static (size, _) => size));
        Assert.Equal([3, 2], Calls(over, limits, static (size, _) => size));
    }

    [Fact]
    public void CountAndSize_AtOnce_EachCallEndsAtWhicheverComesFirst()
    {
        // 12 small, then 3 of 400 KiB, then 12 small: 10 | 2 small and 2 large (1 MiB would be passed by the third) | 1 large and 9 small | 3 small.
        var sizes = new List<long>();
        for (int i = 0; i < 12; i++)
        {
            sizes.Add(100);
        }

        for (int i = 0; i < 3; i++)
        {
            sizes.Add(400 * 1024);
        }

        for (int i = 0; i < 12; i++)
        {
            sizes.Add(100);
        }

        Assert.Equal([10, 4, 10, 3], Calls(sizes, BatchCalls.SqsSend, static (size, _) => size));
    }

    [Fact]
    public void AnEventBridgeEntry_CountsAsTheUserGuideSays()
    {
        // 14 bytes for a time, then the UTF-8 bytes of Source, DetailType, Detail and each resource.
        var entry = new EventBridgeEntry { EventBusName = "not counted", Source = "é/s", DetailType = "t", Detail = "{}", Resources = ["arn:r"], Time = DateTimeOffset.UnixEpoch };
        var untimed = new EventBridgeEntry { EventBusName = "b", Source = "s", DetailType = "t", Detail = "{}" };

        Assert.Equal(14 + 4 + 1 + 2 + 5, BatchCalls.EventBridgeEntrySize(entry));
        Assert.Equal(1 + 1 + 2, BatchCalls.EventBridgeEntrySize(untimed));
        Assert.True(BatchCalls.EventBridgePutEvents.MaxPayload < 256 * 1024); // "must be less than 256KB"
    }

    private static List<int> Calls<T>(IReadOnlyList<T> items, BatchLimits limits, Func<T, int, long>? size)
    {
        var calls = new List<int>();
        for (int start = 0, end; start < items.Count; start = end)
        {
            end = BatchCalls.End(items, start, limits, 0, size);
            calls.Add(end - start);
        }

        return calls;
    }
}
