using System.Threading;
using System.Threading.Tasks;

namespace Missive.Bus;

/// <summary>Handles received messages of type <typeparamref name="T"/>. Resolved from a new DI scope for each message.</summary>
/// <typeparam name="T">The message type.</typeparam>
public interface IMessageHandler<T>
{
    /// <summary>
    /// Handles one message. Returning normally deletes it from the queue; throwing leaves it to be
    /// received again, and after the queue's max receive count it moves to the dead-letter queue.
    /// </summary>
    /// <remarks>
    /// Whatever it throws (an <see cref="System.OperationCanceledException"/> that is not the host's too), a <c>null</c>
    /// task, or a task that fails, is the message's failure: logged as event 2002, retried after
    /// <see cref="PollerOptions.RetryDelay"/> (or its visibility timeout), dead-lettered by the queue's redrive policy;
    /// reported in <c>batchItemFailures</c> by the Lambda processor. The log keeps the exception's type and stack trace,
    /// and its message only with <c>SerializationOptions.LogMessageContent</c> on. A handler that never completes keeps
    /// its message invisible (the pump extends it) until <c>UseHandlingTimeout</c> stops waiting for it (a failure, as
    /// above) or the host stops, when its token is cancelled and the message released (event 2005).
    /// </remarks>
    /// <param name="envelope">The envelope, with its transport metadata.</param>
    /// <param name="cancellationToken">Cancelled when the application stops; the message is then released, not deleted.</param>
    /// <returns>A task that completes when the message is handled.</returns>
    Task HandleAsync(MessageEnvelope<T> envelope, CancellationToken cancellationToken);
}
