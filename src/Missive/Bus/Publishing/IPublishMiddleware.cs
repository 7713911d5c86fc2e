using System.Threading.Tasks;

namespace Missive.Bus;

/// <summary>
/// A step around every publish, in the order registered with <c>UsePublishMiddleware</c> (the first registered runs
/// outermost), resolved once from the application's service provider (a singleton). It may change the envelope or the
/// options, return without calling <c>nextStep</c> (nothing is sent), or observe and throw exceptions.
/// </summary>
/// <remarks>
/// What it throws (an <see cref="System.OperationCanceledException"/> that is not the caller's token too) reaches the
/// caller of <c>PublishAsync</c> as a <see cref="UserCodeException"/> naming the middleware and the type thrown; the
/// message was sent only if the throw came after <c>nextStep</c>. The application's exception is its inner exception,
/// and its message part of it, only with <c>SerializationOptions.LogMessageContent</c> on. Calling <c>nextStep</c> a
/// second time sends nothing more and is a <see cref="UserCodeException"/> too. Missive's own typed exceptions (an
/// envelope that cannot be written, a transport failure) pass through unchanged.
/// </remarks>
public interface IPublishMiddleware
{
    /// <summary>Runs this step.</summary>
    /// <param name="context">The message being published.</param>
    /// <param name="nextStep">The rest of the pipeline.</param>
    /// <returns>A task that completes when this step has.</returns>
    Task InvokeAsync(PublishContext context, PublishStep nextStep);
}
