using System.Threading.Tasks;

namespace Missive.Bus;

/// <summary>
/// A step around the handling of every received message, in the order registered with <c>UseHandleMiddleware</c> (the
/// first registered runs outermost), resolved from the message's DI scope. It may read or replace the envelope, set the
/// outcome, return without calling <c>nextStep</c> (the message then counts as handled unless it sets another outcome),
/// or observe and throw exceptions (a thrown exception leaves the message to be retried).
/// </summary>
/// <remarks>
/// What it throws, before or after calling <c>nextStep</c>, is the message's failure as a handler's is
/// (<see cref="IMessageHandler{T}"/>: event 2002, retried, its message logged only with
/// <c>SerializationOptions.LogMessageContent</c> on); so is calling <c>nextStep</c> a second time, which does not run
/// the handler again. Returning without calling it counts the message as handled.
/// </remarks>
public interface IHandleMiddleware
{
    /// <summary>Runs this step.</summary>
    /// <param name="context">The message being handled.</param>
    /// <param name="nextStep">The rest of the pipeline.</param>
    /// <returns>A task that completes when this step has.</returns>
    Task InvokeAsync(HandleContext context, HandleStep nextStep);
}
