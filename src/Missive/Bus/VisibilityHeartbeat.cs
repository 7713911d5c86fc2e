using System;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.Logging;
using Missive.Transport;

namespace Missive.Bus;

/// <summary>
/// Keeps a message invisible while its handler runs: every half visibility timeout it extends the visibility
/// by one timeout from now, so that a handler that takes longer than the timeout does not get its message
/// delivered a second time. It stops when disposed (the handler ended), or when SQS refuses an extension.
/// </summary>
internal sealed class VisibilityHeartbeat : IAsyncDisposable
{
    private readonly CancellationTokenSource _stop = new();
    private readonly Task _loop;

    public VisibilityHeartbeat(IMessageTransport transport, string queue, SqsMessage message, TimeSpan visibilityTimeout, TimeProvider timeProvider, ILogger logger)
    {
        TimeSpan interval = visibilityTimeout / 2;
        _loop = interval <= TimeSpan.Zero ? Task.CompletedTask : RunAsync(transport, queue, message, visibilityTimeout, interval, timeProvider, logger, _stop.Token);
    }

    public async ValueTask DisposeAsync()
    {
        await _stop.CancelAsync().ConfigureAwait(false);
        await _loop.ConfigureAwait(false);
        _stop.Dispose();
    }

    private static async Task RunAsync(IMessageTransport transport, string queue, SqsMessage message, TimeSpan visibilityTimeout, TimeSpan interval, TimeProvider timeProvider, ILogger logger, CancellationToken stop)
    {
        try
        {
            while (true)
            {
                await Task.Delay(interval, timeProvider, stop).ConfigureAwait(false);
                if (!await transport.ChangeVisibilityAsync(queue, message.ReceiptHandle, visibilityTimeout, stop).ConfigureAwait(false))
                {
                    BusLog.HeartbeatLost(logger, message.MessageId, queue);
                    return;
                }
            }
        }
        catch (OperationCanceledException) when (stop.IsCancellationRequested)
        {
            // the handler ended
        }
        catch (Exception e) when (e is not OutOfMemoryException)
        {
            BusLog.HeartbeatFailed(logger, message.MessageId, queue, e);
        }
    }
}
