using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.Threading.Tasks;
using Missive.InMemory;
using Missive.Transport;

namespace Missive.Benchmarks.Broker;

/// <summary>
/// Drains a backlog from the in-memory broker as the pump does (receive ten, delete the ten in one batch call), at
/// several backlog sizes, on a standard queue and on a FIFO queue of 100 groups: the time per message at each size
/// shows whether draining costs time linear in the backlog (the same per message at every size) or worse. Only the
/// public API is used, so the same file measures any commit.
/// </summary>
internal static class BrokerBacklogBenchmark
{
    private static readonly int[] Backlogs = [1_000, 10_000, 100_000];

    public static void Run(string[] args)
    {
        bool quick = Array.IndexOf(args, "--short") >= 0;
        Console.WriteLine("In-memory broker: a backlog filled, then drained by receives of 10 and batch deletes of 10. Wall and process CPU per message; median of 3 runs.");
        Console.WriteLine();
        Console.WriteLine("| queue | backlog | fill µs per msg | drain µs per msg (wall) | drain CPU µs per msg | drain bytes per msg |");
        Console.WriteLine("|---|---|---|---|---|---|");
        foreach (bool fifo in new[] { false, true })
        {
            foreach (int backlog in Backlogs)
            {
                if (quick && backlog > 10_000)
                {
                    continue;
                }

                var runs = new List<(double Fill, double Drain, double Cpu, double Bytes)>();
                for (int run = 0; run < 3; run++)
                {
                    runs.Add(Measure(backlog, fifo).GetAwaiter().GetResult());
                }

                runs.Sort((a, b) => a.Drain.CompareTo(b.Drain));
                (double fill, double drain, double cpu, double bytes) = runs[1];
                Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"| {(fifo ? "FIFO, 100 groups" : "standard")} | {backlog:N0} | {fill:F2} | {drain:F2} | {cpu:F2} | {bytes:N0} |"));
            }
        }
    }

    private static async Task<(double Fill, double Drain, double Cpu, double Bytes)> Measure(int backlog, bool fifo)
    {
        var broker = new InMemoryBroker();
        string queue = fifo ? "backlog.fifo" : "backlog";
        broker.CreateQueue(queue, o => o.ContentBasedDeduplication = fifo);
        var fill = Stopwatch.StartNew();
        for (int i = 0; i < backlog; i++)
        {
            await broker.SendAsync(new SqsSendRequest
            {
                QueueName = queue,
                Body = "{\"n\":" + i.ToString(CultureInfo.InvariantCulture) + "}",
                MessageGroupId = fifo ? "g" + (i % 100).ToString(CultureInfo.InvariantCulture) : null,
            });
        }

        fill.Stop();
        GC.Collect();
        long bytes = GC.GetTotalAllocatedBytes(precise: true);
        TimeSpan cpu = Process.GetCurrentProcess().TotalProcessorTime;
        var drain = Stopwatch.StartNew();
        var handles = new List<string>(10);
        int drained = 0;
        while (drained < backlog)
        {
            IReadOnlyList<SqsMessage> received = await broker.ReceiveAsync(queue, 10, TimeSpan.Zero);
            if (received.Count == 0)
            {
                throw new InvalidOperationException($"the queue answered nothing with {backlog - drained} messages left");
            }

            handles.Clear();
            foreach (SqsMessage message in received)
            {
                handles.Add(message.ReceiptHandle);
            }

            await ((IMessageTransport)broker).DeleteBatchAsync(queue, handles);
            drained += received.Count;
        }

        drain.Stop();
        double cpuMicros = (Process.GetCurrentProcess().TotalProcessorTime - cpu).TotalMicroseconds;
        double allocated = GC.GetTotalAllocatedBytes(precise: true) - bytes;
        return (fill.Elapsed.TotalMicroseconds / backlog, drain.Elapsed.TotalMicroseconds / backlog, cpuMicros / backlog, allocated / backlog);
    }
}
