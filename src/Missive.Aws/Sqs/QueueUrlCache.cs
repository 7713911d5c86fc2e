using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;

namespace Missive.Aws.Sqs;

/// <summary>
/// Queue URLs by queue name, for both SQS clients: an absolute URL is its own, a configured one is used as it is, any
/// other name is looked up once (one lookup shared by concurrent callers, not cancelled by any one of them) and kept
/// until it fails or the queue is found gone.
/// </summary>
internal sealed class QueueUrlCache(IReadOnlyDictionary<string, Uri> configured, Func<string, Task<string>> lookUp)
{
    private readonly ConcurrentDictionary<string, Task<string>> _urls = new(StringComparer.Ordinal);

    /// <summary>Gets the URL of <paramref name="queue"/> (a name or a URL).</summary>
    public Task<string> GetAsync(string queue, CancellationToken cancellationToken)
    {
        ArgumentException.ThrowIfNullOrEmpty(queue);
        if (Uri.TryCreate(queue, UriKind.Absolute, out Uri? absolute) && (absolute.Scheme == Uri.UriSchemeHttps || absolute.Scheme == Uri.UriSchemeHttp))
        {
            return Task.FromResult(queue);
        }

        if (configured.TryGetValue(queue, out Uri? url))
        {
            // One completed task per configured queue, made on first use: no task per call.
            return _urls.GetOrAdd(queue, static (_, url) => Task.FromResult(url.AbsoluteUri), url);
        }

        return _urls.GetOrAdd(queue, static (name, self) => self.LookUpAsync(name), this).WaitAsync(cancellationToken);
    }

    /// <summary>Forgets a queue's URL (SQS says the queue does not exist: it may be created again under a new URL).</summary>
    public void Forget(string queue) => _urls.TryRemove(queue, out _);

    /// <summary>A queue as configured and as resolved, for errors: <c>queue 'billing' (https://…/billing)</c>.</summary>
    public string Describe(string queue)
        => _urls.TryGetValue(queue, out Task<string>? url) && url.IsCompletedSuccessfully && !string.Equals(url.Result, queue, StringComparison.Ordinal)
            ? $"queue '{queue}' ({url.Result})"
            : $"queue '{queue}'";

    private async Task<string> LookUpAsync(string name)
    {
        try
        {
            return await lookUp(name).ConfigureAwait(false);
        }
        catch
        {
            Forget(name); // a failed lookup is not kept: the next call asks again
            throw;
        }
    }
}
