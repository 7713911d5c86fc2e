using System;
using System.IO;
using System.Threading.Tasks;
using Xunit.Abstractions;
using Microsoft.Coyote;
using Microsoft.Coyote.SystematicTesting;

namespace Missive.ConcurrencyTests;

/// <summary>
/// Runs a test body under Coyote's systematic testing engine: each iteration explores another interleaving of the
/// controlled tasks (and another choice of the model's faults), and an invariant broken in any of them fails the test
/// with the schedule that broke it, written where it can be replayed.
/// </summary>
/// <remarks>
/// <list type="bullet">
/// <item><c>MISSIVE_COYOTE_ITERATIONS</c> sets the iterations of every test (a long run: a million); by default each
/// test runs the count it gives, sized so that the whole project stays well under two minutes on two cores.</item>
/// <item><c>MISSIVE_COYOTE_SEED</c> sets the engine's random seed (11 by default, so that CI explores the same
/// schedules on every run); other seeds explore other schedules, and <c>new</c> draws a seed for each test. Every test
/// writes its seed to its output (<c>Coyote seed: N</c>), and a failure names it.</item>
/// <item><c>MISSIVE_COYOTE_REPLAY</c> names a trace file written by a failing run: the test then replays that one
/// schedule (<c>artifacts/coyote/&lt;test&gt;.trace</c>).</item>
/// </list>
/// </remarks>
internal static class Exploration
{
    /// <summary>The seed of the schedules CI explores.</summary>
    private const uint DefaultSeed = 11;

    public static void Run(string name, Func<Task> test, uint iterations, ITestOutputHelper? output = null)
    {
        string? replay = Environment.GetEnvironmentVariable("MISSIVE_COYOTE_REPLAY");
        string? trace = replay is { Length: > 0 } && Path.GetFileNameWithoutExtension(replay) == name ? File.ReadAllText(replay) : null;
        uint seed = Seed();
        (bool found, string report, string schedule, string readable) = Explore(test, Iterations(iterations), seed, trace);
        output?.WriteLine($"Coyote seed: {seed}");
        output?.WriteLine(report);
        if (found)
        {
            string directory = Path.Combine(RepositoryRoot(), "artifacts", "coyote");
            Directory.CreateDirectory(directory);
            string file = Path.Combine(directory, name + ".trace");
            File.WriteAllText(file, schedule);
            File.WriteAllText(Path.ChangeExtension(file, ".txt"), readable);
            Assert.Fail($"{report}{Environment.NewLine}Seed {seed}. Replay this schedule with MISSIVE_COYOTE_REPLAY={file}");
        }
    }

    /// <summary>
    /// Explores <paramref name="iterations"/> schedules of <paramref name="test"/>, or replays the one
    /// <paramref name="trace"/> holds; returns whether an invariant broke, the engine's report with the bug, and the
    /// schedule (reproducible and readable) that broke it.
    /// </summary>
    public static (bool Found, string Report, string Trace, string Readable) Explore(Func<Task> test, uint iterations, uint seed, string? trace = null)
    {
        Configuration configuration = Configuration.Create()
            .WithTestingIterations(iterations)
            .WithMaxSchedulingSteps(20_000)
            .WithPotentialDeadlocksReportedAsBugs(true)
            .WithTelemetryEnabled(false)
            .WithUncontrolledInvocationStackTraceLoggingEnabled(Environment.GetEnvironmentVariable("MISSIVE_COYOTE_VERBOSE") is "1")
            .WithVerbosityEnabled(Environment.GetEnvironmentVariable("MISSIVE_COYOTE_VERBOSE") is "1" ? Microsoft.Coyote.Logging.VerbosityLevel.Info : Microsoft.Coyote.Logging.VerbosityLevel.None);
        configuration = configuration.WithRandomGeneratorSeed(seed);

        if (trace is not null)
        {
            configuration = configuration.WithReproducibleTrace(trace);
        }

        using TestingEngine engine = TestingEngine.Create(configuration, test);
        engine.Run();
        bool found = engine.TestReport.NumOfFoundBugs > 0;
        string report = string.Join(Environment.NewLine, engine.TestReport.BugReports) + Environment.NewLine + engine.GetReport();
        return (found, report, found ? engine.ReproducibleTrace : string.Empty, found ? engine.ReadableTrace : string.Empty);
    }

    /// <summary>A fixed seed by default, so that CI explores the same schedules every run; <c>MISSIVE_COYOTE_SEED</c> explores others.</summary>
    public static uint Seed()
        => (Environment.GetEnvironmentVariable("MISSIVE_COYOTE_SEED") ?? string.Empty) switch
        {
            "" => DefaultSeed,
            "new" => (uint)Random.Shared.Next(1, int.MaxValue),
            string given => uint.Parse(given, System.Globalization.CultureInfo.InvariantCulture),
        };

    private static uint Iterations(uint byDefault)
        => Environment.GetEnvironmentVariable("MISSIVE_COYOTE_ITERATIONS") is { Length: > 0 } set ? uint.Parse(set, System.Globalization.CultureInfo.InvariantCulture) : byDefault;

    private static string RepositoryRoot()
    {
        var directory = new DirectoryInfo(AppContext.BaseDirectory);
        while (directory is not null && !File.Exists(Path.Combine(directory.FullName, "Missive.slnx")))
        {
            directory = directory.Parent;
        }

        return directory?.FullName ?? AppContext.BaseDirectory;
    }
}
