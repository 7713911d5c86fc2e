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
/// The README's recipe for a local endpoint, as a new user runs it: <c>node test/aws-emulator/local.mjs
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
        var start = new ProcessStartInfo("node")
        {
            WorkingDirectory = RepositoryPaths.Root,
            RedirectStandardInput = true,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        foreach (string argument in new[] { Path.Combine("test", "aws-emulator", "local.mjs"), Path.Combine("samples", "WorkerService", "local-aws.json"), "--port", "0" })
        {
            start.ArgumentList.Add(argument);
        }

        using Process local = Process.Start(start)!;
        try
        {
            string printed = string.Empty, endpoint;
            using (var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(60)))
            {
                while (true)
                {
                    string line = await local.StandardOutput.ReadLineAsync(timeout.Token) ?? throw new InvalidOperationException("local.mjs ended: " + await local.StandardError.ReadToEndAsync());
                    printed += line + "\n";
                    if (line.StartsWith("ready: ", StringComparison.Ordinal))
                    {
                        endpoint = line["ready: ".Length..];
                        break;
                    }
                }
            }

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
}
