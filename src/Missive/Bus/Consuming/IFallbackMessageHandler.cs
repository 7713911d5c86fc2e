using System.Threading;
using System.Threading.Tasks;

namespace Missive.Bus;

/// <summary>
/// Receives the messages whose envelope <c>type</c> no <c>AddMessageType</c> registers, with their data as it arrived,
/// and decides what becomes of them. Registered with <c>AddFallbackHandler</c>; resolved from each message's DI scope.
/// Without one, such a message stays in the queue until its redrive policy dead-letters it, with one log line per receive.
/// </summary>
public interface IFallbackMessageHandler
{
    /// <summary>Decides what becomes of a message of an unregistered type.</summary>
    /// <param name="envelope">The envelope: its attributes as read, its <see cref="MessageEnvelope.Type"/> the identifier nobody registered, its data raw.</param>
    /// <param name="cancellationToken">Cancelled when the application stops; the message is then released, not deleted.</param>
    /// <returns>Handled (delete), RetryLater (leave it), or DeadLetter (move it to <see cref="PollerOptions.DeadLetterQueue"/> now). Throwing counts as RetryLater.</returns>
    /// <remarks>
    /// Throwing, a <c>null</c> task or a value that is not a <see cref="HandleOutcome"/> is a failure, as a handler's is
    /// (<see cref="IMessageHandler{T}"/>): event 2002, retried, and the exception's message logged only with
    /// <c>SerializationOptions.LogMessageContent</c> on.
    /// </remarks>
    Task<HandleOutcome> HandleAsync(MessageEnvelope<UnregisteredMessage> envelope, CancellationToken cancellationToken);
}
