using System;
using System.Threading;
using System.Threading.Tasks;

namespace Missive.Bus;

/// <summary>
/// A wait on a <see cref="TimeProvider"/>'s timer, completed by the timer's own callback: a test's fake clock completes
/// it from the thread that advances the clock, and a systematic tester sees a task completed by code it controls.
/// </summary>
internal static class ClockDelay
{
    /// <summary>Completes after <paramref name="delay"/> on <paramref name="clock"/>, or cancelled when <paramref name="cancellationToken"/> is.</summary>
    public static async Task WaitAsync(TimeProvider clock, TimeSpan delay, CancellationToken cancellationToken)
    {
        cancellationToken.ThrowIfCancellationRequested();
        var elapsed = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        using ITimer timer = clock.CreateTimer(static state => ((TaskCompletionSource)state!).TrySetResult(), elapsed, delay, Timeout.InfiniteTimeSpan);
        CancellationTokenRegistration cancelled = cancellationToken.Register(static (state, token) => ((TaskCompletionSource)state!).TrySetCanceled(token), elapsed);
        try
        {
            await elapsed.Task.ConfigureAwait(false);
        }
        finally
        {
            cancelled.Unregister(); // a callback under way completes a task already complete: nothing to wait for
        }
    }
}
