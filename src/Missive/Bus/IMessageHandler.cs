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
    /// <param name="envelope">The envelope, with its transport metadata.</param>
    /// <param name="cancellationToken">Cancelled when the application stops; the message is then released, not deleted.</param>
    /// <returns>A task that completes when the message is handled.</returns>
    Task HandleAsync(MessageEnvelope<T> envelope, CancellationToken cancellationToken);
}
