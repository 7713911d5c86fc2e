using System;
using System.Diagnostics;
using System.Threading.Tasks;
using Microsoft.Extensions.Time.Testing;

namespace Missive.Tests.Infrastructure;

/// <summary>Drives a <see cref="FakeTimeProvider"/> for tests of the bus in a host.</summary>
internal static class FakeClock
{
    /// <summary>
    /// Advances the fake clock in steps, letting the bus's continuations run between them, until <paramref name="condition"/>
    /// holds; fails when it does not within <paramref name="limit"/> of the fake clock (if given) or the tests' patience.
    /// </summary>
    public static async Task AdvanceUntil(this FakeTimeProvider clock, Func<bool> condition, TimeSpan? step = null, TimeSpan? limit = null)
    {
        DateTimeOffset start = clock.GetUtcNow();
        var watch = Stopwatch.StartNew();
        while (!condition())
        {
            Assert.True(watch.Elapsed < BusTestHost.Patience, "condition not met in time");
            Assert.True(limit is null || clock.GetUtcNow() - start <= limit, $"condition not met within {limit} of the fake clock");
            clock.Advance(step ?? TimeSpan.FromMilliseconds(50));
            await Task.Delay(2); // lets the thread pool run what the step set going
        }
    }
}
