using System.Threading.Tasks;

namespace Missive.Bus;

/// <summary>The rest of the handling pipeline: the next middleware, or the handler.</summary>
/// <param name="context">The message being handled.</param>
/// <returns>A task that completes when the rest of the pipeline has.</returns>
public delegate Task HandleStep(HandleContext context);
