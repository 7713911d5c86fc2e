namespace Missive.Bus;

/// <summary>Calls the handler of a message type whose envelope arrives as the non-generic base.</summary>
internal abstract class HandlerInvoker
{
    /// <summary>Gets the last step of the handling pipeline: the handler of the type, resolved from the message's scope.</summary>
    public abstract HandleStep Handler { get; }
}
