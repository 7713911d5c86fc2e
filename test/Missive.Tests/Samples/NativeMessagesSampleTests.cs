using System.Collections.Generic;
using System.Threading.Tasks;
using Missive.Samples.NativeMessages;
using Missive.Tests.Aws;
using Missive.Tests.Infrastructure;

namespace Missive.Tests.Samples;

/// <summary>
/// The NativeMessages sample as a user runs it: S3's notification, EC2's EventBridge event and an order on one queue,
/// each to its handler, on the in-memory broker and, switched by configuration alone, on the local endpoint.
/// </summary>
[Collection(AwsEmulatorCollection.Name)]
public sealed class NativeMessagesSampleTests(AwsEmulatorFixture fixture)
{
    private static readonly string[] Expected =
    [
        "ec2 i-abcd1111 stopped (event 7bf73129-1428-4cd3-a780-95db273d1602 from aws.ec2), native: True",
        "order ORD-000001 (42.5), an envelope from urn:missive:native-messages",
        "s3 ObjectCreated:Put amzn-s3-demo-bucket/invoices/2026/11/ORD-000001.pdf (18342 bytes), native: True",
    ];

    [Fact]
    public async Task OnTheInMemoryBroker_EachMessageReachesItsHandler()
    {
        IReadOnlyList<string> lines = await InboxHost.RunOnceAsync(["--Missive:Source=urn:missive:native-messages", "--Logging:LogLevel:Default=Warning"]);

        Assert.Equal(Expected, lines);
    }

    [EmulatorFact]
    public async Task OnTheLocalEndpoint_ByConfigurationAlone_EachMessageReachesItsHandler()
    {
        AwsEmulator emulator = fixture.Emulator;
        string queue = AwsTransportSqsTests.NewName("inbox");
        await emulator.CreateQueueAsync(queue);
        using var credentials = new EnvironmentScope(("AWS_ACCESS_KEY_ID", AwsEmulator.Credentials.GetCredentials().AccessKey), ("AWS_SECRET_ACCESS_KEY", AwsEmulator.Credentials.GetCredentials().SecretKey));

        IReadOnlyList<string> lines = await InboxHost.RunOnceAsync(
        [
            "--Missive:Transport=Aws",
            $"--Missive:Queue={queue}",
            "--Missive:Source=urn:missive:native-messages",
            $"--AWS:ServiceURL={emulator.Proxy}", // the application's own AWS section: Missive has none of its own here
            $"--AWS:Region={AwsEmulator.Region}",
            "--Missive:Poller:WaitTime=00:00:01",
            "--Logging:LogLevel:Default=Warning",
        ]);

        Assert.Equal(Expected, lines);
    }
}
