namespace Missive.Tests.Infrastructure;

/// <summary>
/// Tests that measure the whole process (what it allocates across threads, as an HTTP call does; the exceptions it
/// throws; how its cost grows) run in this collection, apart from every other test, so that nothing else runs while
/// they measure.
/// </summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class ProcessAllocationCollection
{
    public const string Name = "Process allocation";
}
