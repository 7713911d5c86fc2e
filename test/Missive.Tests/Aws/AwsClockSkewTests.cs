using System;
using System.Linq;
using System.Threading.Tasks;
using Microsoft.Extensions.Logging;
using Missive.Aws;
using Missive.Tests.Infrastructure;
using Missive.Transport;

namespace Missive.Tests.Aws;

/// <summary>
/// A host whose clock is 20 minutes slow, against the proxy, which refuses a request signed more than 15 minutes off
/// its clock as AWS does ("Signature expired", with its Date header). The transport takes the service's time once per
/// endpoint, signs again, and every later request goes through first time.
/// </summary>
[Collection(AwsEmulatorCollection.Name)]
public sealed class AwsClockSkewTests(AwsEmulatorFixture fixture)
{
    private AwsEmulator Emulator => fixture.Emulator;

    [EmulatorFact]
    public async Task AHostClockTwentyMinutesSlow_IsCorrectedOncePerEndpoint_AndNothingFails()
    {
        string queue = AwsTransportSqsTests.NewName("skew");
        await Emulator.CreateQueueAsync(queue);
        string topicArn = await Emulator.CreateTopicAsync(AwsTransportSqsTests.NewName("skew-topic"));
        await Emulator.SubscribeAsync(topicArn, queue, raw: true);
        var log = new CapturingLoggerProvider();
        using var factory = new LoggerFactory([log]);
        AwsTransportOptions options = Emulator.Options();
        var slow = new OffsetTimeProvider(TimeSpan.FromMinutes(-20));
        using var transport = new AwsTransport(options, AwsSettings.Resolve(options, static _ => null, slow), null, TimeProvider.System, factory.CreateLogger<AwsTransport>());
        await Emulator.ResetAsync();

        for (int i = 0; i < 3; i++)
        {
            await transport.SendAsync(new SqsSendRequest { QueueName = queue, Body = $"sent {i}" });
            await transport.PublishAsync(new SnsPublishRequest { TopicArn = topicArn, Message = $"published {i}" });
        }

        var bodies = (await transport.ReceiveAsync(queue, 10, TimeSpan.FromSeconds(1))).Select(m => m.Body).ToList();
        while (bodies.Count < 6)
        {
            bodies.AddRange((await transport.ReceiveAsync(queue, 10, TimeSpan.FromSeconds(1))).Select(m => m.Body));
        }

        ProxyStats stats = await Emulator.StatsAsync();
        Assert.Equal(6, bodies.Count);
        Assert.Equal(2, stats.Skewed); // the first SQS request (GetQueueUrl) and the first SNS Publish, each once
        Assert.Equal(0, stats.Rejected);
        Assert.Equal(2, log.Messages.Count(m => m.Contains("clock", StringComparison.Ordinal)));
    }

    private sealed class OffsetTimeProvider(TimeSpan offset) : TimeProvider
    {
        public override DateTimeOffset GetUtcNow() => System.GetUtcNow() + offset;
    }
}
