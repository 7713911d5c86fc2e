using System.Threading.Tasks;

namespace Missive.Bus;

/// <summary>
/// A step around every publish, in the order registered with <c>UsePublishMiddleware</c> (the first registered runs
/// outermost), resolved once from the application's service provider (a singleton). It may change the envelope or the
/// options, return without calling <c>nextStep</c> (nothing is sent), or observe and throw exceptions.
/// </summary>
public interface IPublishMiddleware
{
    /// <summary>Runs this step.</summary>
    /// <param name="context">The message being published.</param>
    /// <param name="nextStep">The rest of the pipeline.</param>
    /// <returns>A task that completes when this step has.</returns>
    Task InvokeAsync(PublishContext context, PublishStep nextStep);
}
