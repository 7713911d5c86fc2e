using System;
using System.Threading;
using System.Threading.Tasks;

namespace Missive.Bus;

/// <summary>
/// A deadline on a transport call that holds whatever the transport does with its token: the caller stops waiting when
/// the deadline fires, and a call that ends later is left to end on its own (its failure observed).
/// </summary>
internal static class CallDeadline
{
    /// <summary>Starts <paramref name="call"/>, a synchronous throw made a faulted task.</summary>
    public static Task<T> Start<T>(Func<CancellationToken, Task<T>> call, CancellationToken cancellationToken)
    {
        try
        {
            return call(cancellationToken);
        }
        catch (Exception e) when (!ContentSafety.IsFatal(e))
        {
            return Task.FromException<T>(e);
        }
    }

    /// <summary>
    /// Whether <paramref name="call"/> ends within <paramref name="deadline"/> on <paramref name="clock"/>. A call still
    /// running then is left to end on its own, its failure observed. The wait is a timer completing a task (as
    /// <see cref="ClockDelay"/>), not a token's callback.
    /// </summary>
    public static Task<bool> EndsWithinAsync(Task call, TimeProvider clock, TimeSpan deadline)
    {
        if (call.IsCompleted)
        {
            return Task.FromResult(true);
        }

        var ended = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
        ITimer timer = clock.CreateTimer(static state => ((TaskCompletionSource<bool>)state!).TrySetResult(false), ended, deadline, Timeout.InfiniteTimeSpan);
        _ = SignalWhenEndedAsync(call, ended, timer);
        return ended.Task;
    }

    /// <summary>Waits for the call (observing its failure), then says it ended, unless its deadline said so first.</summary>
    private static async Task SignalWhenEndedAsync(Task call, TaskCompletionSource<bool> ended, ITimer timer)
    {
        try
        {
            await call.ConfigureAwait(false);
        }
        catch (Exception e) when (!ContentSafety.IsFatal(e))
        {
            // Observed here; the caller reads the call's outcome itself when it ended in time.
        }

        timer.Dispose();
        ended.TrySetResult(true);
    }
}
