namespace Missive.Tests.Infrastructure;

/// <summary>
/// Tests that measure what the whole process allocates (work that crosses threads, as an HTTP call does) run in this
/// collection, apart from every other test, so that nothing else allocates while they measure.
/// </summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class ProcessAllocationCollection
{
    public const string Name = "Process allocation";
}
