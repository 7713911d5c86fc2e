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
    public async Task QuickStart_HandlesEveryMessage_AndEndsWithItsResult_WithoutFiguresUnlessAsked()
    {
        (int exitCode, string printed) = await RunAsync();

        Assert.Equal(0, exitCode);
        AssertTheResultComesLast(printed, "(Run with --figures for the committed benchmark ratios.)");
        Assert.DoesNotContain("BenchmarkDotNet", printed, StringComparison.Ordinal);
    }

    [Fact]
    public async Task QuickStart_WithFigures_QuotesTheCommittedBenchmarkRatios_NotATimingOfItsOwn()
    {
        (int exitCode, string printed) = await RunAsync("--figures");

        Assert.Equal(0, exitCode);
        AssertTheResultComesLast(printed, "BenchmarkDotNet");
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

    /// <summary>The result line follows everything else the program prints (other tests' hosts may write to the console meanwhile, so lines are compared, not the last line).</summary>
    private static void AssertTheResultComesLast(string printed, string lastOtherLine)
    {
        int result = printed.IndexOf("OK: every published message was handled", StringComparison.Ordinal);
        Assert.True(result >= 0, printed);
        foreach (string earlier in new[] { "Messages handled per queue:", "Example protobuf envelope (field dump):", lastOtherLine })
        {
            int at = printed.LastIndexOf(earlier, StringComparison.Ordinal);
            Assert.InRange(at, 0, result);
        }
    }

    private static async Task<(int ExitCode, string Printed)> RunAsync(params string[] args)
    {
        MethodInfo main = Assembly.Load("QuickStart").EntryPoint!;
        int exitCode = 0;
        string printed = await ConsoleCapture.RunAsync(() => Task.Run(() => exitCode = (int)main.Invoke(null, [args])!)); // the entry point blocks until the program ends
        return (exitCode, printed.ReplaceLineEndings("\n"));
    }
}
