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
    /// <summary>
    /// Calls <paramref name="call"/> with a token cancelled after <paramref name="deadline"/> on <paramref name="clock"/>,
    /// and returns its result if it ends by then.
    /// </summary>
    /// <exception cref="TimeoutException">The call had not ended when its deadline fired (it was abandoned), or it ended cancelled by the deadline.</exception>
    public static async Task<T> CallAsync<T>(Func<CancellationToken, Task<T>> call, TimeSpan deadline, TimeProvider clock, string what)
    {
        using var cancel = new CancellationTokenSource(deadline, clock);
        Task<T> task = Start(call, cancel.Token);
        if (!await EndsBeforeAsync(task, cancel.Token).ConfigureAwait(false))
        {
            throw TimedOut(what, deadline, null);
        }

        try
        {
            return await task.ConfigureAwait(false);
        }
        catch (OperationCanceledException e) when (cancel.IsCancellationRequested)
        {
            throw TimedOut(what, deadline, e); // the transport honoured the deadline's token
        }
    }

    private static TimeoutException TimedOut(string what, TimeSpan deadline, Exception? inner)
        => new($"{what} did not answer within {deadline.TotalSeconds:0.###} s: it was abandoned (it may still land).", inner);

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
    /// Whether <paramref name="call"/> ends before <paramref name="deadline"/> fires. A call still running then is left
    /// to end on its own, its failure observed.
    /// </summary>
    public static async Task<bool> EndsBeforeAsync(Task call, CancellationToken deadline)
    {
        if (call.IsCompleted)
        {
            return true;
        }

        var fired = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        CancellationTokenRegistration registration = deadline.Register(static state => ((TaskCompletionSource)state!).TrySetResult(), fired);
        try
        {
            if (await Task.WhenAny(call, fired.Task).ConfigureAwait(false) == call)
            {
                return true;
            }

            _ = call.ContinueWith(static t => _ = t.Exception, CancellationToken.None, TaskContinuationOptions.OnlyOnFaulted | TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
            return false;
        }
        finally
        {
            registration.Unregister(); // a callback under way completes a task no one waits for
        }
    }
}
