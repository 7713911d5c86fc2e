using System;
using System.IO;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Missive.Aws;
using Missive.Samples.WorkerService;
using Missive.Tests.Infrastructure;
using Missive.Transport;

namespace Missive.Tests.Aws;

/// <summary>The WorkerService sample, unchanged, on fauxqs: switched to AWS by configuration alone.</summary>
[Collection(AwsEmulatorCollection.Name)]
public sealed class WorkerServiceOnAwsTests(AwsEmulatorFixture fixture)
{
    [EmulatorTheory]
    [InlineData(false)]
    [InlineData(true)] // SQS through the application's IAmazonSQS, registered by AddAWSService<IAmazonSQS>() from its "AWS" section
    public async Task WorkerService_OnTheEmulator_ByConfigurationAlone_HandlesWhatItPublishes(bool applicationsSqsClient)
    {
        AwsEmulator emulator = fixture.Emulator;
        string topicArn = await emulator.CreateTopicAsync("orders");
        await emulator.CreateQueueAsync("orders-worker-dlq");
        await emulator.CreateQueueAsync("orders-worker", new()
        {
            ["RedrivePolicy"] = $"{{\"deadLetterTargetArn\":\"{AwsEmulator.QueueArn("orders-worker-dlq")}\",\"maxReceiveCount\":\"5\"}}",
        });
        await emulator.SubscribeAsync(topicArn, "orders-worker");

        // Credentials come from the default chain, as they would on a developer's machine or in a container.
        using var credentials = new EnvironmentScope(("AWS_ACCESS_KEY_ID", AwsEmulator.Credentials.GetCredentials().AccessKey), ("AWS_SECRET_ACCESS_KEY", AwsEmulator.Credentials.GetCredentials().SecretKey));
        string[] args =
        [
            "--Missive:Transport=Aws",
            $"--Missive:Aws:TopicArns:orders={topicArn}",
            $"--Missive:Aws:UseSdkSqsClient={applicationsSqsClient}",
            $"--AWS:ServiceURL={emulator.Proxy}",
            $"--AWS:AuthenticationRegion={AwsEmulator.Region}",
            "--Missive:Poller:WaitTime=00:00:01",
            "--Worker:PublishInterval=00:00:00.050",
            "--Logging:LogLevel:Default=Warning",
        ];
        using IHost host = WorkerHost.Build(args, builder =>
        {
            if (applicationsSqsClient)
            {
                builder.Services.AddDefaultAWSOptions(builder.Configuration.GetAWSOptions());
                builder.Services.AddAWSService<Amazon.SQS.IAmazonSQS>();
            }
        }, contentRoot: Path.Combine(RepositoryPaths.Root, "samples", "WorkerService")); // its appsettings.json: the AWS section's Region
        OrderStatistics statistics = host.Services.GetRequiredService<OrderStatistics>();

        await host.StartAsync();
        using (var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(30)))
        {
            while (statistics.Handled < 10)
            {
                await Task.Delay(50, timeout.Token);
            }
        }

        await host.StopAsync();

        var transport = Assert.IsType<AwsTransport>(host.Services.GetRequiredService<IMessageTransport>());
        Assert.Equal(applicationsSqsClient, transport.UsesSdkSqsClient);
        Assert.True(statistics.Handled >= 10);
        Assert.Equal(0, (await emulator.StatsAsync()).Rejected);
    }
}
