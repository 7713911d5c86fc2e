using System;
using System.IO;
using System.Linq;
using System.Reflection;
using System.Threading.Tasks;
using Missive.Tests.Infrastructure;

namespace Missive.Tests.Samples;

public sealed class QuickStartSampleTests
{
    [Fact]
    public async Task QuickStart_HandlesEveryMessage_AndQuotesTheCommittedBenchmarkRatios_NotATimingOfItsOwn()
    {
        MethodInfo main = Assembly.Load("QuickStart").EntryPoint!;
        int exitCode = 0;

        string printed = await ConsoleCapture.RunAsync(() => Task.Run(() => exitCode = (int)main.Invoke(null, [Array.Empty<string>()])!)); // the entry point blocks until the program ends

        Assert.Equal(0, exitCode);
        Assert.Contains("OK: every published message was handled", printed, StringComparison.Ordinal);
        Assert.DoesNotContain("faster", printed, StringComparison.Ordinal);

        // Every one-order, source-generated row of the committed report is printed with its time ratio, as the report has it.
        string[] rows = File.ReadAllLines(Path.Combine(RepositoryPaths.Root, "benchmarks", "results", "ratios.md"))
            .Where(l => l.Contains("ItemCount=1]", StringComparison.Ordinal) && !l.Contains("SourceGenerated=False", StringComparison.Ordinal) && !l.Contains("(baseline)", StringComparison.Ordinal))
            .ToArray();
        Assert.NotEmpty(rows);
        foreach (string row in rows)
        {
            string[] cells = row.Split('|', StringSplitOptions.TrimEntries);
            Assert.Contains($"{cells[2].Trim('\'')}", printed, StringComparison.Ordinal);
            Assert.Contains($"{cells[4]}x time", printed, StringComparison.Ordinal);
        }
    }
}
