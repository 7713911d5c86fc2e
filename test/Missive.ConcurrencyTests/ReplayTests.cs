using System.Threading.Tasks;
using Microsoft.Coyote.Specifications;

namespace Missive.ConcurrencyTests;

/// <summary>
/// A failing schedule is replayed from its trace: a race the engine finds (two read-then-writes that yield between
/// their read and their write) breaks the same invariant again, with the same message, when its trace is replayed.
/// </summary>
public sealed class ReplayTests
{
    [Fact]
    public void AFailingSchedule_IsReplayedFromItsTrace_AndBreaksTheSameInvariant()
    {
        (bool found, string report, string trace, _) = Exploration.Explore(LostUpdateAsync, iterations: 200, Exploration.Seed());
        Assert.True(found, "the engine did not find the lost update");
        Assert.Contains("an update was lost", report, System.StringComparison.Ordinal);

        (bool again, string replayed, _, _) = Exploration.Explore(LostUpdateAsync, iterations: 1, Exploration.Seed(), trace);

        Assert.True(again, "the replayed schedule did not break the invariant");
        Assert.Contains("an update was lost", replayed, System.StringComparison.Ordinal);
    }

    private static async Task LostUpdateAsync()
    {
        int counter = 0;
        async Task IncrementAsync()
        {
            int read = counter;
            await Task.Yield();
            counter = read + 1;
        }

        await Task.WhenAll(Task.Run(IncrementAsync), Task.Run(IncrementAsync));

        Specification.Assert(counter == 2, "an update was lost: the counter is {0}", counter);
    }
}
