using System;
using System.Diagnostics;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.Time.Testing;

namespace Missive.Tests.Infrastructure;

/// <summary>Drives a <see cref="FakeTimeProvider"/> for tests of the bus in a host.</summary>
internal static class FakeClock
{
    /// <summary>The most real-time checks for quiet before a step is taken anyway (other tests may keep the pool busy).</summary>
    private const int MaxQuietChecks = 50;

    /// <summary>
    /// Advances the fake clock in steps until <paramref name="condition"/> holds, each step only once the bus is idle:
    /// no work item waits for the thread pool and none but this driver's own ran since the last look (see
    /// <see cref="WaitForQuietAsync"/>). Fails when the condition does not hold within <paramref name="limit"/> of the
    /// fake clock (if given) or the tests' patience.
    /// </summary>
    public static async Task AdvanceUntil(this FakeTimeProvider clock, Func<bool> condition, TimeSpan? step = null, TimeSpan? limit = null)
    {
        DateTimeOffset start = clock.GetUtcNow();
        var watch = Stopwatch.StartNew();
        while (true)
        {
            await WaitForQuietAsync();
            if (condition())
            {
                return;
            }

            Assert.True(watch.Elapsed < BusTestHost.Patience, "condition not met in time");
            Assert.True(limit is null || clock.GetUtcNow() - start <= limit, $"condition not met within {limit} of the fake clock");
            clock.Advance(step ?? TimeSpan.FromMilliseconds(50));
        }
    }

    /// <summary>
    /// Waits until the thread pool is quiet: nothing queued, and no work item completed between two looks besides this
    /// wait's own continuation. Tests run in parallel share the pool, so after <see cref="MaxQuietChecks"/> looks it
    /// returns anyway; a test must still hold when a step comes early, as a starved machine's late timers do.
    /// </summary>
    private static async Task WaitForQuietAsync()
    {
        for (int look = 0; look < MaxQuietChecks; look++)
        {
            long before = ThreadPool.CompletedWorkItemCount;
            await Task.Delay(1);
            if (ThreadPool.PendingWorkItemCount == 0 && ThreadPool.CompletedWorkItemCount - before <= 2)
            {
                return;
            }
        }
    }
}
