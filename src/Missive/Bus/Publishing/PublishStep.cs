using System.Threading.Tasks;

namespace Missive.Bus;

/// <summary>The rest of the publishing pipeline: the next middleware, or the transport.</summary>
/// <param name="context">The message being published.</param>
/// <returns>A task that completes when the rest of the pipeline has.</returns>
public delegate Task PublishStep(PublishContext context);
