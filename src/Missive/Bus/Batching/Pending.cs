using System.Threading;
using System.Threading.Tasks;
using Missive.Transport;

namespace Missive.Bus;

/// <summary>A send handed to a batch call, and the publish waiting for its outcome.</summary>
/// <remarks>
/// <list type="bullet">
/// <item>It is waiting until a call takes it (<see cref="TryStart"/>) or its caller withdraws it
/// (<see cref="TryWithdraw"/>): exactly one of the two wins, so a withdrawn send is never in a call, and a send in a call
/// ends with the service's answer.</item>
/// <item><see cref="Result"/> is completed once: with the message id, the entry's failure, or the withdrawal.</item>
/// </list>
/// </remarks>
/// <param name="kind">What the request is (<see cref="Sqs"/>, <see cref="Sns"/>, <see cref="EventBridge"/>).</param>
/// <param name="request">The request.</param>
/// <param name="continueInline">
/// Whether the publish goes on inline when its outcome is set, on the thread that sets it: for the messages of one batch
/// publish, whose waiting sends are the batch's own publish paths (a hop to the thread pool per message doubled the
/// CPU a message costs); not for coalesced publishes, whose callers' own code follows each send and must not hold up
/// the calls of others.
/// </param>
internal sealed class Pending(int kind, object request, bool continueInline)
{
    public const int Sqs = 0, Sns = 1, EventBridge = 2;

    private const int Waiting = 0, Started = 1, Withdrawn = 2;

    private readonly bool _continueInline = continueInline;
    private int _state;

    public int Kind { get; } = kind;

    public object Request { get; } = request;

    public TaskCompletionSource<string> Result { get; } = new(continueInline ? TaskCreationOptions.None : TaskCreationOptions.RunContinuationsAsynchronously);

    /// <summary>
    /// Gets the FIFO group the request belongs to (its FIFO destination and group id), or <c>null</c> for a request to a
    /// destination that keeps no order: a later message of a group must not be sent after an earlier one failed.
    /// </summary>
    public FifoGroupKey? FifoGroup => Request switch
    {
        SqsSendRequest { MessageGroupId: { } group } send when FifoRule.IsFifo(send.QueueName) => new(send.QueueName, group),
        SnsPublishRequest { MessageGroupId: { } group } publish when FifoRule.IsFifo(publish.TopicArn) => new(publish.TopicArn, group),
        _ => null,
    };

    /// <summary>Takes the send into a call; <c>false</c> when its caller withdrew it first.</summary>
    public bool TryStart() => Interlocked.CompareExchange(ref _state, Started, Waiting) == Waiting;

    /// <summary>
    /// Withdraws the send while no call has taken it, and ends its publish as cancelled (on the thread pool when its
    /// publish would go on inline); <c>false</c> once a call has it.
    /// </summary>
    public bool TryWithdraw(CancellationToken cancellationToken)
    {
        if (Interlocked.CompareExchange(ref _state, Withdrawn, Waiting) != Waiting)
        {
            return false;
        }

        if (_continueInline)
        {
            // Its publish would go on inline: not inside the caller's Cancel(), which may be withdrawing a whole batch.
            _ = Task.Run(() => Result.TrySetCanceled(cancellationToken), CancellationToken.None);
        }
        else
        {
            Result.TrySetCanceled(cancellationToken);
        }

        return true;
    }

    /// <summary>A FIFO destination's message group; it reads as the group id.</summary>
    public sealed record FifoGroupKey(string Destination, string Group)
    {
        public override string ToString() => Group;
    }
}
