using System;
using System.Diagnostics;
using System.IO;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Missive.Aws;
using Missive.Samples.WorkerService;
using Missive.Tests.Infrastructure;
using Missive.Transport;

namespace Missive.Tests.Aws;

/// <summary>
/// The README's recipe for a local endpoint, as a new user runs it: <c>node tools/local-aws/local.mjs
/// samples/WorkerService/local-aws.json</c> starts the emulator and creates the sample's topic, queues and
/// subscription; the WorkerService sample in its <c>Local</c> environment (appsettings.Local.json) then publishes and
/// handles through it. Only the port differs (a free one, not 4566).
/// </summary>
[Collection(AwsEmulatorCollection.Name)]
public sealed class LocalEndpointRecipeTests
{
    [EmulatorFact]
    public async Task TheLocalRecipe_RunsTheWorkerServiceSample_FromItsSetupFile()
    {
        (Process local, string printed, string endpoint) = await StartAsync(Path.Combine("samples", "WorkerService", "local-aws.json"));
        try
        {
            Assert.Contains("topic orders: arn:aws:sns:eu-west-1:000000000000:orders -> orders-worker", printed, StringComparison.Ordinal);
            Assert.Contains("queue orders-worker (dead-lettered to orders-worker-dlq after 5 receives)", printed, StringComparison.Ordinal);

            // The second command: DOTNET_ENVIRONMENT=Local with the printed credentials; the port is the one it took.
            Environment.SetEnvironmentVariable("AWS_ACCESS_KEY_ID", AwsEmulator.Credentials.GetCredentials().AccessKey);
            Environment.SetEnvironmentVariable("AWS_SECRET_ACCESS_KEY", AwsEmulator.Credentials.GetCredentials().SecretKey);
            try
            {
                Assert.Contains($"AWS_ACCESS_KEY_ID={AwsEmulator.Credentials.GetCredentials().AccessKey} AWS_SECRET_ACCESS_KEY={AwsEmulator.Credentials.GetCredentials().SecretKey}", printed, StringComparison.Ordinal);
                using IHost host = WorkerHost.Build(["--environment", "Local", $"--Missive:Aws:ServiceUrl={endpoint}", "--Worker:PublishInterval=00:00:00.050", "--Logging:LogLevel:Default=Warning"]);
                OrderStatistics statistics = host.Services.GetRequiredService<OrderStatistics>();
                await host.StartAsync();
                using (var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(30)))
                {
                    while (statistics.Handled < 5)
                    {
                        await Task.Delay(50, timeout.Token);
                    }
                }

                await host.StopAsync();
                Assert.IsType<AwsTransport>(host.Services.GetRequiredService<IMessageTransport>());
            }
            finally
            {
                Environment.SetEnvironmentVariable("AWS_ACCESS_KEY_ID", null);
                Environment.SetEnvironmentVariable("AWS_SECRET_ACCESS_KEY", null);
            }
        }
        finally
        {
            local.Kill(entireProcessTree: true);
            await local.WaitForExitAsync();
        }
    }

    [EmulatorFact]
    public async Task TheDocumentedSetupFile_CreatesEachKindOfResource_AsItsTableSays()
    {
        string example = Path.Combine("tools", "local-aws", "example-setup.json");
        string page = File.ReadAllText(Path.Combine(RepositoryPaths.Root, "docs", "local-endpoint.md"));
        Assert.Contains("```json\n" + File.ReadAllText(Path.Combine(RepositoryPaths.Root, example)).ReplaceLineEndings("\n") + "```", page.ReplaceLineEndings("\n"), StringComparison.Ordinal);

        (Process local, string printed, string endpoint) = await StartAsync(example);
        try
        {
            Assert.Contains("queue billing (dead-lettered to billing-dlq after 5 receives)", printed, StringComparison.Ordinal);
            Assert.Contains("queue payments.fifo (FIFO, content-based deduplication)", printed, StringComparison.Ordinal);
            Assert.Contains("topic orders: arn:aws:sns:eu-west-1:000000000000:orders -> billing -> audit (raw)", printed, StringComparison.Ordinal);
            Assert.Contains("topic payments.fifo: arn:aws:sns:eu-west-1:000000000000:payments.fifo -> payments.fifo (raw)", printed, StringComparison.Ordinal);

            // What the service says, through the transport's own startup verification calls.
            using AwsTransport transport = new(new AwsTransportOptions { Region = "eu-west-1", Credentials = AwsEmulator.Credentials, ServiceUrl = new Uri(endpoint) });
            Assert.Equal((true, true), await transport.Sqs.GetFifoAttributesAsync("payments.fifo", default));
            Assert.Equal((false, false), await transport.Sqs.GetFifoAttributesAsync("billing", default));
            Assert.Equal((true, true), await transport.Sns.GetFifoAttributesAsync("arn:aws:sns:eu-west-1:000000000000:payments.fifo", default));

            // Raw delivery to audit, wrapped to billing.
            await transport.PublishAsync(new SnsPublishRequest { TopicArn = "arn:aws:sns:eu-west-1:000000000000:orders", Message = "{\"id\":\"1\"}" });
            SqsMessage raw = Assert.Single(await transport.ReceiveAsync("audit", 1, TimeSpan.FromSeconds(1)));
            Assert.Equal("{\"id\":\"1\"}", raw.Body);
            SqsMessage wrapped = Assert.Single(await transport.ReceiveAsync("billing", 1, TimeSpan.FromSeconds(1)));
            Assert.Contains("\"Notification\"", wrapped.Body, StringComparison.Ordinal); // an SNS notification around it
        }
        finally
        {
            local.Kill(entireProcessTree: true);
            await local.WaitForExitAsync();
        }
    }

    /// <summary>Starts <c>node tools/local-aws/local.mjs {setup} --port 0</c> and reads what it prints up to its <c>ready:</c> line.</summary>
    private static async Task<(Process Local, string Printed, string Endpoint)> StartAsync(string setup)
    {
        var start = new ProcessStartInfo("node")
        {
            WorkingDirectory = RepositoryPaths.Root,
            RedirectStandardInput = true,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        foreach (string argument in new[] { Path.Combine("tools", "local-aws", "local.mjs"), setup, "--port", "0" })
        {
            start.ArgumentList.Add(argument);
        }

        Process local = Process.Start(start)!;
        string printed = string.Empty;
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(60));
        while (true)
        {
            string line = await local.StandardOutput.ReadLineAsync(timeout.Token) ?? throw new InvalidOperationException("local.mjs ended: " + await local.StandardError.ReadToEndAsync());
            printed += line + "\n";
            if (line.StartsWith("ready: ", StringComparison.Ordinal))
            {
                return (local, printed, line["ready: ".Length..]);
            }
        }
    }
}
