using System;
using System.Threading;
using System.Threading.Tasks;
using Polly;
using Polly.Retry;

namespace Missive.Aws.Protocol;

/// <summary>
/// AWS's standard retry mode (https://docs.aws.amazon.com/sdkref/latest/guide/feature-retry-behavior.html,
/// in its 2026 revision) on a Polly retry pipeline:
/// </summary>
/// <remarks>
/// <list type="bullet">
/// <item>At most <c>MaxAttempts</c> attempts (3 by default); only throttling and transient failures are retried.</item>
/// <item>Backoff before retry <c>i</c> (from 0): a random fraction of <c>min(base × 2^i, MaxBackoff)</c>, with a base of
/// 1 second after a throttling error and 50 milliseconds after any other; a larger <c>x-amz-retry-after</c> the
/// service sent is honoured, up to 5 seconds past the computed delay.</item>
/// <item>Entries a batch call failed on the service's side are sent again in a new call (<see cref="BeforeEntryRetryAsync"/>)
/// under the same rules: the same attempts, backoff and quota, as if the entries were a call of their own.</item>
/// <item>A retry quota shared by every call of the transport: 500 tokens; a retry costs 5 after a throttling error
/// and 14 after any other; a call that succeeds on its first attempt gives 1 back, one that succeeds on a retry
/// gives that retry's cost back. With the quota spent, failures are not retried; a long poll first waits the
/// backoff, so that pollers do not spin.</item>
/// </list>
/// Each attempt is a new request through the signing handler, so every attempt is signed afresh.
/// </remarks>
internal sealed class AwsRetryStrategy
{
    public const int QuotaCapacity = 500;
    public const int TransientRetryCost = 14;
    public const int ThrottlingRetryCost = 5;
    private static readonly TimeSpan TransientBase = TimeSpan.FromMilliseconds(50);
    private static readonly TimeSpan ThrottlingBase = TimeSpan.FromSeconds(1);
    private static readonly TimeSpan RetryAfterAllowance = TimeSpan.FromSeconds(5);
    private static readonly ResiliencePropertyKey<bool> LongPollingKey = new("Missive.Aws.LongPolling");
    private static readonly ResiliencePropertyKey<int> RetryCostKey = new("Missive.Aws.RetryCost");

    private readonly ResiliencePipeline _pipeline;
    private readonly TimeSpan _maxBackoff;
    private readonly TimeProvider _timeProvider;
    private readonly Func<double> _random;
    private int _quota = QuotaCapacity;

    public AwsRetryStrategy(int maxAttempts, TimeSpan maxBackoff, TimeProvider timeProvider, Func<double>? random = null)
    {
        _maxBackoff = maxBackoff;
        _timeProvider = timeProvider;
        _random = random ?? Random.Shared.NextDouble;
        MaxAttempts = maxAttempts;
        var builder = new ResiliencePipelineBuilder { TimeProvider = timeProvider };
        if (maxAttempts > 1)
        {
            builder.AddRetry(new RetryStrategyOptions
            {
                MaxRetryAttempts = maxAttempts - 1,
                ShouldHandle = ShouldRetryAsync,
                DelayGenerator = args => ValueTask.FromResult<TimeSpan?>(args.Outcome.Exception is AwsServiceFailure failure ? DelayFor(failure, args.AttemptNumber) : TimeSpan.Zero),
                BackoffType = DelayBackoffType.Constant,
                UseJitter = false,
            });
        }

        _pipeline = builder.Build();
    }

    public int MaxAttempts { get; }

    /// <summary>Gets the tokens left in the retry quota.</summary>
    public int Quota => Volatile.Read(ref _quota);

    /// <summary>Runs <paramref name="attempt"/> until it succeeds, fails for good, or attempts or quota run out.</summary>
    /// <exception cref="AwsServiceFailure">The last failure.</exception>
    public async Task<T> ExecuteAsync<T>(Func<CancellationToken, ValueTask<T>> attempt, bool longPolling, CancellationToken cancellationToken)
    {
        ResilienceContext context = ResilienceContextPool.Shared.Get(cancellationToken);
        context.Properties.Set(LongPollingKey, longPolling);
        try
        {
            T result = await _pipeline.ExecuteAsync(static (ctx, attempt) => attempt(ctx.CancellationToken), context, attempt).ConfigureAwait(false);
            int cost = context.Properties.GetValue(RetryCostKey, 0);
            Refund(cost > 0 ? cost : 1);
            return result;
        }
        finally
        {
            ResilienceContextPool.Shared.Return(context);
        }
    }

    /// <summary>
    /// Before entries that a batch call failed on the service's side go again in a new call, as retry
    /// <paramref name="retry"/> (0 for the first): whether the attempts and the quota allow it and, if they do, the
    /// backoff, waited here.
    /// </summary>
    /// <param name="throttling">Whether any of the entries failed for throttling (the longer backoff, the smaller cost).</param>
    /// <param name="retry">The retry about to be made, from 0.</param>
    /// <param name="cancellationToken">Cancels the wait.</param>
    /// <returns>The tokens the retry took from the quota (give them back with <see cref="EntriesRetried"/> if it succeeds), or 0 when the entries are not to be sent again.</returns>
    public async ValueTask<int> BeforeEntryRetryAsync(bool throttling, int retry, CancellationToken cancellationToken)
    {
        int cost = throttling ? ThrottlingRetryCost : TransientRetryCost;
        if (retry >= MaxAttempts - 1 || !TryTake(cost))
        {
            return 0;
        }

        try
        {
            await Task.Delay(DelayFor(throttling, null, retry), _timeProvider, cancellationToken).ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
            Refund(cost); // no retry was made: its tokens go back
            throw;
        }

        return cost;
    }

    /// <summary>Entries sent again all succeeded: the tokens their retry took go back to the quota, as for a call that succeeds on a retry.</summary>
    /// <param name="tokens">What <see cref="BeforeEntryRetryAsync"/> took.</param>
    public void EntriesRetried(int tokens) => Refund(tokens);

    /// <summary>The backoff before retry <paramref name="retry"/> (0 for the first retry) after <paramref name="failure"/>.</summary>
    public TimeSpan DelayFor(AwsServiceFailure failure, int retry) => DelayFor(failure.IsThrottling, failure.RetryAfter, retry);

    private TimeSpan DelayFor(bool throttling, TimeSpan? retryAfter, int retry)
    {
        TimeSpan @base = throttling ? ThrottlingBase : TransientBase;
        double ceiling = Math.Min(@base.TotalMilliseconds * Math.Pow(2, Math.Min(retry, 30)), _maxBackoff.TotalMilliseconds);
        var delay = TimeSpan.FromMilliseconds(_random() * ceiling);
        if (retryAfter is { } asked && asked > delay)
        {
            delay = asked < delay + RetryAfterAllowance ? asked : delay + RetryAfterAllowance;
        }

        return delay;
    }

    private async ValueTask<bool> ShouldRetryAsync(RetryPredicateArguments<object> args)
    {
        // Polly asks about the last attempt's outcome too: no retry follows it, so it costs nothing.
        if (args.Outcome.Exception is not AwsServiceFailure { IsTransient: true } failure || args.Context.CancellationToken.IsCancellationRequested
            || args.AttemptNumber >= MaxAttempts - 1)
        {
            return false;
        }

        int cost = failure.IsThrottling ? ThrottlingRetryCost : TransientRetryCost;
        if (!TryTake(cost))
        {
            if (args.Context.Properties.GetValue(LongPollingKey, false))
            {
                await Task.Delay(DelayFor(failure, args.AttemptNumber), _timeProvider, args.Context.CancellationToken).ConfigureAwait(false);
            }

            return false;
        }

        args.Context.Properties.Set(RetryCostKey, cost);
        return true;
    }

    private bool TryTake(int cost)
    {
        while (true)
        {
            int current = Volatile.Read(ref _quota);
            if (current < cost)
            {
                return false;
            }

            if (Interlocked.CompareExchange(ref _quota, current - cost, current) == current)
            {
                return true;
            }
        }
    }

    private void Refund(int tokens)
    {
        while (true)
        {
            int current = Volatile.Read(ref _quota);
            int next = Math.Min(QuotaCapacity, current + tokens);
            if (next == current || Interlocked.CompareExchange(ref _quota, next, current) == current)
            {
                return;
            }
        }
    }
}
