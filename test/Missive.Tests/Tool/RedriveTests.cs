using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Text;
using System.Text.Json;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;
using Missive.Aws;
using Missive.Tests.Aws;
using Missive.Tests.Infrastructure;
using Missive.Tool;
using Missive.Transport;

namespace Missive.Tests.Tool;

/// <summary>
/// <c>missive redrive</c> on 1,000 dead-lettered messages, half of the type asked for, run as an operator runs it (its
/// own process) and stopped half-way, then run again: exactly the filtered messages reach the target, each once after
/// a Ctrl-C (and at least once, one batch at most twice, after a kill that gives it no chance to finish its call), the
/// others stay, and progress is reported as it goes.
/// </summary>
[Collection(AwsEmulatorCollection.Name)]
public sealed class RedriveTests(AwsEmulatorFixture fixture)
{
    private const int Count = 1000;
    private const string Refund = "tool.refund";

    [EmulatorTheory]
    [InlineData("INT")]
    [InlineData("KILL")]
    public async Task AThousandMessages_WithAFilter_MoveExactlyTheFiltered_AndAStoppedRunGoesOnWhereItStopped(string signal)
    {
        string dlq = AwsTransportSqsTests.NewName("redrive-dlq"), target = AwsTransportSqsTests.NewName("redrive-target");
        await fixture.Emulator.CreateQueueAsync(dlq);
        await fixture.Emulator.CreateQueueAsync(target);
        using AwsTransport transport = fixture.Emulator.CreateTransport();
        await FillAsync(transport, dlq);
        string journal = Path.Combine(Path.GetTempPath(), $"missive-redrive-{Guid.NewGuid():N}.journal");
        try
        {
            string[] redrive = ["redrive", dlq, "--to", target, "--type", Bodies.Type, "--hold", "00:00:02", "--journal", journal, "--endpoint-url", fixture.Emulator.Proxy.ToString(), "--region", AwsEmulator.Region];

            // First run, its own process, slowed down and stopped once it has moved some.
            (int stoppedAfter, string progress) = await RunAndStopAsync([.. redrive, "--rate", "100"], signal);
            Assert.InRange(stoppedAfter, 50, Count / 2 - 1);
            Assert.Contains("moved ", progress, StringComparison.Ordinal);
            await Task.Delay(TimeSpan.FromSeconds(2.5)); // what it held comes back

            // Second run, to the end.
            var output = new StringWriter();
            var error = new StringWriter();
            int exit;
            using (new EnvironmentScope(("AWS_ACCESS_KEY_ID", AwsEmulator.Credentials.GetCredentials().AccessKey), ("AWS_SECRET_ACCESS_KEY", AwsEmulator.Credentials.GetCredentials().SecretKey)))
            {
                exit = await ToolCommands.RunAsync(redrive, output, error);
            }

            Assert.True(exit == 0, error.ToString());
            Assert.Contains($"from {dlq} to {target}", output.ToString(), StringComparison.Ordinal);
            Assert.False(File.Exists(journal)); // ended with everything it sent deleted: the journal goes

            List<string> moved = await DrainIdsAsync(transport, target);
            List<string> stayed = await DrainIdsAsync(transport, dlq);
            string[] orders = Enumerable.Range(0, Count / 2).Select(i => "order-" + i).Order().ToArray();
            Assert.Equal(orders, moved.Distinct().Order()); // every filtered one, nothing lost
            Assert.Equal(Enumerable.Range(0, Count / 2).Select(i => "refund-" + i).Order(), stayed.Order()); // the others stay, once each
            if (signal == "INT")
            {
                Assert.Equal(Count / 2, moved.Count); // stopped between calls: nothing twice
            }
            else
            {
                Assert.InRange(moved.Count, Count / 2, (Count / 2) + 10); // killed during a send: that batch at most twice
            }
        }
        finally
        {
            File.Delete(journal);
        }
    }

    private static async Task FillAsync(AwsTransport transport, string dlq)
    {
        using ServiceProvider services = Bodies.Services();
        OutboundMessageWriter writer = services.GetRequiredService<OutboundMessageWriter>();
        var requests = new List<SqsSendRequest>();
        for (int i = 0; i < Count / 2; i++)
        {
            MessageEnvelope<Order> order = Bodies.Envelope(i);
            order.Id = "order-" + i;
            requests.Add(writer.ToSqs(order, dlq));
            requests.Add(new SqsSendRequest { QueueName = dlq, Body = $"{{\"specversion\":\"1.0\",\"id\":\"refund-{i}\",\"source\":\"/shop\",\"type\":\"{Refund}\",\"data\":{{}}}}" });
        }

        for (int i = 0; i < requests.Count; i += 10)
        {
            IReadOnlyList<BatchEntryResult> results = await transport.SendBatchAsync(requests.Skip(i).Take(10).ToList());
            Assert.All(results, r => Assert.True(r.Succeeded, r.ErrorMessage));
        }
    }

    /// <summary>Starts the tool's own process, signals it once its progress line says it has moved 150 or more, and returns how many it had moved and what it printed.</summary>
    private async Task<(int Moved, string Progress)> RunAndStopAsync(string[] args, string signal)
    {
        var start = new ProcessStartInfo("dotnet") { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        start.ArgumentList.Add(typeof(ToolCommands).Assembly.Location);
        foreach (string argument in args)
        {
            start.ArgumentList.Add(argument);
        }

        start.Environment["AWS_ACCESS_KEY_ID"] = AwsEmulator.Credentials.GetCredentials().AccessKey;
        start.Environment["AWS_SECRET_ACCESS_KEY"] = AwsEmulator.Credentials.GetCredentials().SecretKey;
        using Process process = Process.Start(start) ?? throw new InvalidOperationException("dotnet did not start.");
        var printed = new StringBuilder();
        Task<string> output = process.StandardOutput.ReadToEndAsync();
        var buffer = new char[256];
        using var deadline = new CancellationTokenSource(TimeSpan.FromSeconds(90));
        while (MovedIn(printed.ToString()) < 150)
        {
            int read = await process.StandardError.ReadAsync(buffer, deadline.Token);
            if (read == 0)
            {
                throw new InvalidOperationException("The redrive ended before it was stopped: " + printed + await output);
            }

            printed.Append(buffer, 0, read);
        }

        using (Process kill = Process.Start("kill", $"-{signal} {process.Id}")!)
        {
            await kill.WaitForExitAsync(deadline.Token);
        }

        string rest = await process.StandardError.ReadToEndAsync(deadline.Token);
        await process.WaitForExitAsync(deadline.Token);
        printed.Append(rest);
        Assert.NotEqual(0, process.ExitCode); // stopped, not finished
        return (MovedIn(printed.ToString()), printed.ToString());
    }

    /// <summary>The last "moved N" of the progress line.</summary>
    private static int MovedIn(string progress)
    {
        int at = progress.LastIndexOf("moved ", StringComparison.Ordinal);
        if (at < 0)
        {
            return 0;
        }

        int end = progress.IndexOf(',', at);
        return end > at && int.TryParse(progress.AsSpan(at + 6, end - at - 6), out int moved) ? moved : 0;
    }

    /// <summary>Receives and deletes everything the queue holds, returning each message's CloudEvents id (one per receive).</summary>
    private static async Task<List<string>> DrainIdsAsync(AwsTransport transport, string queue)
    {
        var ids = new List<string>();
        int quiet = 0;
        while (quiet < 2)
        {
            IReadOnlyList<SqsMessage> received = await transport.ReceiveAsync(queue, 10, TimeSpan.FromSeconds(1), TimeSpan.FromMinutes(5));
            quiet = received.Count == 0 ? quiet + 1 : 0;
            foreach (SqsMessage message in received)
            {
                using JsonDocument body = JsonDocument.Parse(message.Utf8Body);
                ids.Add(body.RootElement.GetProperty("id").GetString()!);
            }

            if (received.Count > 0)
            {
                await transport.DeleteBatchAsync(queue, received.Select(m => m.ReceiptHandle).ToList());
            }
        }

        return ids;
    }
}
