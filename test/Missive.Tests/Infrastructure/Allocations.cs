using System;

namespace Missive.Tests.Infrastructure;

/// <summary>Bytes allocated on the current thread per call, after a warm-up (no timing is ever asserted).</summary>
public static class Allocations
{
    public static long PerCall(Action action)
    {
        for (int i = 0; i < 100; i++)
        {
            action();
        }

        const int Iterations = 200;
        long before = GC.GetAllocatedBytesForCurrentThread();
        for (int i = 0; i < Iterations; i++)
        {
            action();
        }

        return (GC.GetAllocatedBytesForCurrentThread() - before) / Iterations;
    }

    public static long PerCall<T>(Func<T> func) => PerCall(() => { _ = func(); });

    /// <summary>
    /// The least of three measurements: what the code itself allocates per call in steady state, without a
    /// one-off allocation of the runtime (a pool trimmed by a GC, a method recompiled) that lands in one window.
    /// </summary>
    public static long SteadyPerCall(Action action)
        => Math.Min(PerCall(action), Math.Min(PerCall(action), PerCall(action)));
}
