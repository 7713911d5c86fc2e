using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.Linq;

namespace Missive.Benchmarks;

/// <summary>
/// A check against drift on a noisy machine, beside BenchmarkDotNet (whose figures are the ones the reports
/// quote): every read path and its floor, and the two writes and theirs, run in alternation for 15 rounds, and
/// each figure is the median of the last 12 rounds, as a ratio to the floor measured in the same rounds.
/// Stopwatch timing in one process, so it also serves to compare two builds run back to back.
/// </summary>
public static class Interleaved
{
    private const int Rounds = 15;
    private const int WarmupRounds = 3;

    /// <param name="interopOnly">Only MassTransit's and NServiceBus's reads and writes (<c>--interleaved interop</c>).</param>
    /// <param name="bus">
    /// Only this bus's read and write (<c>MassTransit</c> or <c>NServiceBus</c>), or both: each alone, in a process of its
    /// own, is the read as a service of that bus's messages has it; the two in one process, one that takes both (the second
    /// bus's read stayed 8-13% further from its floor while both read through one metadata cache).
    /// </param>
    public static void Run(bool interopOnly, string? bus = null)
    {
        foreach (int items in new[] { 1, 10, 100, 1000 })
        {
            var read = new DeserializeBenchmarks { ItemCount = items };
            read.GlobalSetup();
            var interopWrite = new InteropWriteBenchmarks { ItemCount = items };
            interopWrite.GlobalSetup();
            if (bus is null or "MassTransit")
            {
                Report($"read MassTransit, {items} lines", items, [("floor", () => read.MassTransitFloor()), ("missive", () => read.MassTransitMissive())]);
            }

            if (bus is null or "NServiceBus")
            {
                Report($"read NServiceBus, {items} lines", items, [("floor", () => read.NServiceBusFloor()), ("missive", () => read.NServiceBusMissive())]);
            }

            if (bus is null or "MassTransit")
            {
                Report($"write MassTransit, {items} lines", items, [("floor", () => interopWrite.MassTransitFloor()), ("missive", () => interopWrite.MassTransitMissive())]);
            }

            if (bus is null or "NServiceBus")
            {
                Report($"write NServiceBus, {items} lines", items, [("floor", () => interopWrite.NServiceBusFloor()), ("missive", () => interopWrite.NServiceBusMissive())]);
            }

            if (interopOnly)
            {
                continue;
            }

            var write = new SerializeBenchmarks { ItemCount = items, SourceGenerated = true };
            write.GlobalSetup();
            Report($"read, {items} lines", items, [
                ("floor", () => read.RawFloor()),
                ("raw", () => read.RawMissive()),
                ("sns", () => read.SnsMissive()),
                ("eventbridge", () => read.EventBridgeMissive()),
                ("protobuf", () => read.ProtobufMissive()),
            ]);
            Report($"write into a reused writer, {items} lines", items, [
                ("floor", () => write.BarePayloadFloor()),
                ("json", () => write.Utf8ToBuffer()),
                ("protobuf", () => write.ProtobufToBuffer()),
            ]);
            write.GlobalCleanup();
        }
    }

    private static void Report(string title, int items, (string Name, Func<object?> Call)[] cases)
    {
        int iterations = items >= 1000 ? 300 : items >= 100 ? 3_000 : 20_000;
        var samples = cases.Select(_ => new List<double>()).ToArray();
        for (int round = 0; round < Rounds; round++)
        {
            for (int c = 0; c < cases.Length; c++)
            {
                Func<object?> call = cases[c].Call;
                long start = Stopwatch.GetTimestamp();
                for (int i = 0; i < iterations; i++)
                {
                    call();
                }

                if (round >= WarmupRounds)
                {
                    samples[c].Add(Stopwatch.GetElapsedTime(start).TotalNanoseconds / iterations);
                }
            }
        }

        double floor = Median(samples[0]);
        Console.WriteLine(title);
        for (int c = 0; c < cases.Length; c++)
        {
            double median = Median(samples[c]);
            Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"  {cases[c].Name,-12} {median,12:N0} ns  {median / floor,5:0.00}x floor"));
        }
    }

    private static double Median(List<double> values)
    {
        values.Sort();
        return values[values.Count / 2];
    }
}
