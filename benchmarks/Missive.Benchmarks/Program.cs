using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Diagnosers;
using BenchmarkDotNet.Exporters;
using BenchmarkDotNet.Jobs;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;
using BenchmarkDotNet.Toolchains.InProcess.Emit;
using Missive.Benchmarks;
using Perfolizer.Horology;

// dotnet run -c Release --project benchmarks/Missive.Benchmarks -- --quick        (reviewers: ~3 minutes, ratio tables)
// dotnet run -c Release --project benchmarks/Missive.Benchmarks -- --sizes        (envelope sizes only)
// dotnet run -c Release --project benchmarks/Missive.Benchmarks -- --interleaved [interop] (reads and writes against their floor, in alternation: a drift check)
//   --interleaved interop masstransit|nservicebus: one bus's read and write only (the process has run nothing of the other's)
// dotnet run -c Release --project benchmarks/Missive.Benchmarks -- --pump [--short] (the bus consuming a backlog against a loop on AWSSDK.SQS, per CPU-second;
//   --lines 1|10 and --handler 0|5 measure one group of rows; --pump --one loop|builtin|sdk <lines> <seconds>: one of them alone, for a profiler;
//   --pump --overhead [--lines N]: the loop and the pump on a transport that costs nothing, the bus's own CPU per message)
// dotnet run -c Release --project benchmarks/Missive.Benchmarks -- --publish [--short] (1,000 messages: single, batch, coalesced, against AWSSDK.SQS batches, per CPU-second)
// dotnet run -c Release --project benchmarks/Missive.Benchmarks -- --publish --pieces    (a batch publish's time and bytes, piece by piece)
// dotnet run -c Release --project benchmarks/Missive.Benchmarks -- --publish --profile "one batch publish" [lines]  (one way over and over, for a profiler)
// dotnet run -c Release --project benchmarks/Missive.Benchmarks -- --broker [--short] (the in-memory broker draining backlogs of 1,000 to 100,000: time per message)
// dotnet run -c Release --project benchmarks/Missive.Benchmarks -- --offload [--s3]  (a 5 MiB message offloaded end to end: bytes per message, peak working set)
// dotnet run -c Release --project benchmarks/Missive.Benchmarks -- --transport   (the SQS calls, Missive.Aws against AWSSDK.SQS, BenchmarkDotNet in process)
// dotnet run -c Release --project benchmarks/Missive.Benchmarks -- [BenchmarkDotNet args] [--results DIR]
//                                                                                  (full runs; writes ratio tables and a chart)
string? resultsDir = ValueOf(args, "--results");
string[] bdnArgs = Without(args, "--results");

if (args.Contains("--interleaved"))
{
    Interleaved.Run(interopOnly: args.Contains("interop"), bus: args.Contains("masstransit") ? "MassTransit" : args.Contains("nservicebus") ? "NServiceBus" : null);
    return 0;
}

if (args.Contains("--pump"))
{
    Missive.Benchmarks.Pump.PumpBenchmark.Run(args);
    return 0;
}

if (args.Contains("--publish"))
{
    Missive.Benchmarks.Publish.PublishBenchmark.Run(args);
    return 0;
}

if (args.Contains("--offload"))
{
    Missive.Benchmarks.Offload.OffloadBenchmark.Run(args);
    return 0;
}

if (args.Contains("--broker"))
{
    Missive.Benchmarks.Broker.BrokerBacklogBenchmark.Run(args);
    return 0;
}

if (args.Contains("--transport"))
{
    // In process (the endpoint is a handler, there is nothing to isolate), with the default warm-up and iteration counts.
    IConfig transport = ManualConfig.CreateEmpty()
        .AddJob(Job.Default.WithToolchain(InProcessEmitToolchain.Instance).WithId("InProcess"))
        .AddDiagnoser(MemoryDiagnoser.Default)
        .AddColumnProvider(DefaultColumnProviders.Instance)
        .AddLogger(BenchmarkDotNet.Loggers.ConsoleLogger.Default)
        .AddExporter(MarkdownExporter.GitHub)
        .WithOptions(ConfigOptions.JoinSummary)
        .WithOrderer(new BenchmarkDotNet.Order.DefaultOrderer(BenchmarkDotNet.Order.SummaryOrderPolicy.Declared))
        .AddLogicalGroupRules(BenchmarkLogicalGroupRule.ByCategory, BenchmarkLogicalGroupRule.ByParams);
    Summary summary = BenchmarkRunner.Run<Missive.Benchmarks.Transport.TransportBenchmarks>(transport);
    return summary.Reports.All(r => r.Success) ? 0 : 1;
}

if (args.Contains("--sizes"))
{
    Console.WriteLine(Sizes.ToMarkdown());
    return 0;
}

if (args.Contains("--quick"))
{
    Setup.Quick = true;
    Job quick = Job.Default
        .WithToolchain(InProcessEmitToolchain.Instance)
        .WithLaunchCount(1)
        .WithWarmupCount(2)
        .WithIterationCount(5)
        .WithIterationTime(TimeInterval.FromMilliseconds(60))
        .WithId("Quick");
    IConfig config = ManualConfig.CreateEmpty()
        .AddJob(quick)
        .AddDiagnoser(MemoryDiagnoser.Default)
        .AddColumnProvider(DefaultColumnProviders.Instance)
        .AddLogger(BenchmarkDotNet.Loggers.NullLogger.Instance)
        .WithOptions(ConfigOptions.DisableLogFile | ConfigOptions.JoinSummary);
    Console.WriteLine("Quick mode: real BenchmarkDotNet measurements with few iterations (in process); ratios are to the baseline in this run.");
    Summary[] summaries = BenchmarkRunner.Run([typeof(SerializeBenchmarks), typeof(DeserializeBenchmarks), typeof(ThroughputBenchmarks)], config);
    List<RatioRow> rows = Reporting.Ratios(summaries);
    Console.WriteLine();
    Console.WriteLine(Reporting.ToMarkdown(rows));
    Console.WriteLine("Envelope sizes:");
    Console.WriteLine(Sizes.ToMarkdown());
    WriteResults(resultsDir, rows, "Missive quick benchmark run");
    return rows.Count > 0 && summaries.All(s => s.Reports.All(r => r.Success)) ? 0 : 1;
}

IConfig full = DefaultConfig.Instance
    .AddDiagnoser(MemoryDiagnoser.Default)
    .AddExporter(MarkdownExporter.GitHub);
IEnumerable<Summary> results = BenchmarkSwitcher.FromAssembly(typeof(SerializeBenchmarks).Assembly).Run(bdnArgs, full);
List<RatioRow> fullRows = Reporting.Ratios(results);
if (fullRows.Count > 0)
{
    Console.WriteLine(Reporting.ToMarkdown(fullRows));
    WriteResults(resultsDir, fullRows, "Missive benchmarks");
}

return 0;

static void WriteResults(string? dir, List<RatioRow> rows, string title)
{
    if (dir is null || rows.Count == 0)
    {
        return;
    }

    Directory.CreateDirectory(dir);
    File.WriteAllText(Path.Combine(dir, "ratios.md"), Reporting.ToMarkdown(rows));
    File.WriteAllText(Path.Combine(dir, "sizes.md"), Sizes.ToMarkdown());
    File.WriteAllText(Path.Combine(dir, "chart.svg"), Reporting.ToSvg(rows, title));
    Console.WriteLine($"Wrote ratios.md, sizes.md and chart.svg to {Path.GetFullPath(dir)}");
}

static string? ValueOf(string[] args, string name)
{
    int index = Array.IndexOf(args, name);
    return index >= 0 && index + 1 < args.Length ? args[index + 1] : null;
}

static string[] Without(string[] args, string name)
{
    int index = Array.IndexOf(args, name);
    return index < 0 ? args.Where(a => a != "--quick" && a != "--sizes").ToArray() : args.Where((_, i) => i != index && i != index + 1).ToArray();
}
