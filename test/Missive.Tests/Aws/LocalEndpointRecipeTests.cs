using System;
using System.Diagnostics;
using System.IO;
using System.Reflection;
using System.Text.RegularExpressions;
using System.Threading;
using System.Threading.Tasks;
using Missive.Aws;
using Missive.Tests.Infrastructure;
using Missive.Transport;

namespace Missive.Tests.Aws;

/// <summary>
/// The README's recipe for a local endpoint, as a new user runs it: <c>node tools/local-aws/local.mjs
/// samples/WorkerService/local-aws.json</c> starts the emulator and creates the sample's topic, queues and
/// subscription; the WorkerService sample, run as its own process in its <c>Local</c> environment (appsettings.Local.json)
/// with the variables the first command prints, then publishes and handles through it. Only the port differs (a free
/// one, not 4566), which the sample learns from <c>AWS_ENDPOINT_URL</c> alone.
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

            // The second command, as a user runs it: the sample's own process in its Local environment, with the variables
            // the first printed (the endpoint on the port it took, not 4566: nothing in the sample names a port).
            Match variables = Regex.Match(printed, @"^  AWS_ENDPOINT_URL=(\S+) AWS_REGION=(\S+) AWS_ACCESS_KEY_ID=(\S+) AWS_SECRET_ACCESS_KEY=(\S+)$", RegexOptions.Multiline);
            Assert.True(variables.Success, printed);
            Assert.Equal(endpoint, variables.Groups[1].Value);
            foreach (string page in new[] { "README.md", Path.Combine("docs", "local-endpoint.md") })
            {
                // The documented second command sets what the first prints (on its default port).
                string documented = $"DOTNET_ENVIRONMENT=Local AWS_ENDPOINT_URL=http://127.0.0.1:4566 AWS_ACCESS_KEY_ID={variables.Groups[3].Value} AWS_SECRET_ACCESS_KEY={variables.Groups[4].Value} dotnet run --project samples/WorkerService";
                Assert.Contains(documented, File.ReadAllText(Path.Combine(RepositoryPaths.Root, page)), StringComparison.Ordinal);
            }
            var worker = new ProcessStartInfo("dotnet")
            {
                WorkingDirectory = RepositoryPaths.Root,
                RedirectStandardOutput = true,
                RedirectStandardError = true,
                UseShellExecute = false,
            };
            string configuration = typeof(LocalEndpointRecipeTests).Assembly.GetCustomAttribute<AssemblyConfigurationAttribute>()!.Configuration;
            foreach (string argument in new[] { "run", "--project", Path.Combine("samples", "WorkerService"), "--no-build", "-c", configuration, "--", "--Worker:PublishInterval=00:00:00.050" })
            {
                worker.ArgumentList.Add(argument);
            }

            worker.Environment["DOTNET_ENVIRONMENT"] = "Local";
            worker.Environment["AWS_ENDPOINT_URL"] = variables.Groups[1].Value;
            worker.Environment["AWS_ACCESS_KEY_ID"] = variables.Groups[3].Value;
            worker.Environment["AWS_SECRET_ACCESS_KEY"] = variables.Groups[4].Value;
            foreach (string inherited in new[] { "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL_SQS", "AWS_ENDPOINT_URL_SNS" })
            {
                worker.Environment.Remove(inherited);
            }

            using Process sample = Process.Start(worker)!;
            string output = string.Empty;
            try
            {
                using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(60));
                while (!output.Contains("(5 so far)", StringComparison.Ordinal))
                {
                    string line = await sample.StandardOutput.ReadLineAsync(timeout.Token) ?? throw new InvalidOperationException("the worker ended: " + output + await sample.StandardError.ReadToEndAsync());
                    output += line + "\n";
                }
            }
            finally
            {
                sample.Kill(entireProcessTree: true);
                await sample.WaitForExitAsync();
            }

            // It ran on the endpoint the variable named, and said so; the region came from the AWS section.
            Assert.Contains("Handled ORD-000001 from arn:aws:sns:eu-west-1:000000000000:orders", output, StringComparison.Ordinal);
            Assert.Contains("region eu-west-1 (from the \"AWS\" configuration section)", output, StringComparison.Ordinal);
            Assert.Contains($"EventBridge {endpoint}/ (endpoints from the AWS_ENDPOINT_URL environment variable)", output, StringComparison.Ordinal);

            // Queue URLs name the port the client called, as AWS names them after its endpoint.
            using var transport = new AwsTransport(new AwsTransportOptions { Region = "eu-west-1", Credentials = AwsEmulator.Credentials, ServiceUrl = new Uri(endpoint) });
            Assert.Equal($"{endpoint}/000000000000/orders-worker", await transport.GetQueueUrlAsync("orders-worker"));
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
