using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;
using Missive.Aws;
using Missive.Transport;
using Xunit.Abstractions;

namespace Missive.Tests.Aws;

/// <summary>
/// The proxy in front of fauxqs injects server errors, throttling, dropped connections (before the request
/// reaches SQS), lost answers (after it took effect) and delays, spread through a run of sends, receives and
/// deletes. Nothing published may be lost and nothing received may be lost; duplicates may only come from
/// what SQS's at-least-once delivery allows (a send whose answer was lost, a delete or receive that failed).
/// </summary>
[Collection(AwsEmulatorCollection.Name)]
public sealed class AwsFaultTests(AwsEmulatorFixture fixture, ITestOutputHelper output)
{
    private const int Messages = 200;

    private AwsEmulator Emulator => fixture.Emulator;

    [EmulatorFact]
    public async Task UnderInjectedFaults_NothingPublishedOrReceivedIsLost()
    {
        string queue = AwsTransportSqsTests.NewName("faults");
        await Emulator.CreateQueueAsync(queue, new() { ["VisibilityTimeout"] = "2" });
        // Five attempts and a short backoff cap keep the run quick; the classification and backoff are the standard ones.
        using AwsTransport transport = Emulator.CreateTransport(o =>
        {
            o.MaxAttempts = 5;
            o.MaxBackoff = TimeSpan.FromMilliseconds(200);
            o.AttemptTimeout = TimeSpan.FromSeconds(1);
        });
        await transport.GetQueueUrlAsync(queue);
        await Emulator.ResetAsync();
        Fault[] faults =
        [
            new("status", 12, Status: 500, Match: "SendMessage", Every: 7),
            new("status", 6, Status: 503, Code: "ServiceUnavailable", Match: "SendMessage", Every: 11),
            new("throttle", 10, Code: "RequestThrottled", Match: "SendMessage", Every: 5),
            new("drop", 8, Match: "SendMessage", Every: 13),
            new("dropResponse", 5, Match: "SendMessage", Every: 17),
            new("delay", 4, DelayMs: 1200, Match: "SendMessage", Every: 19),
            new("status", 4, Status: 500, Match: "ReceiveMessage", Every: 3),
            new("dropResponse", 2, Match: "ReceiveMessage", Every: 5),
            new("drop", 6, Match: "DeleteMessage", Every: 9),
            new("dropResponse", 4, Match: "DeleteMessage", Every: 7),
        ];
        int scheduled = faults.Sum(f => f.Count);
        await Emulator.SetFaultsAsync(faults);

        var sendFailures = new List<string>();
        for (int i = 0; i < Messages; i++)
        {
            try
            {
                await transport.SendAsync(new SqsSendRequest { QueueName = queue, MessageBody = $"message-{i}" });
            }
            catch (MessageTransportException e)
            {
                sendFailures.Add($"message-{i}: {e.ErrorCode}");
            }
        }

        var deliveries = new Dictionary<string, int>(StringComparer.Ordinal);
        int receiveFailures = 0, deleteFailures = 0, emptyRounds = 0;
        DateTime deadline = DateTime.UtcNow.AddSeconds(60);
        while (DateTime.UtcNow < deadline && (deliveries.Count < Messages - sendFailures.Count || emptyRounds < 3))
        {
            IReadOnlyList<SqsMessage> batch;
            try
            {
                batch = await transport.ReceiveAsync(queue, 10, TimeSpan.FromSeconds(1));
            }
            catch (MessageTransportException)
            {
                receiveFailures++;
                continue;
            }

            emptyRounds = batch.Count == 0 ? emptyRounds + 1 : 0;
            foreach (SqsMessage message in batch)
            {
                deliveries[message.Body] = deliveries.GetValueOrDefault(message.Body) + 1;
                try
                {
                    await transport.DeleteAsync(queue, message.ReceiptHandle);
                }
                catch (MessageTransportException)
                {
                    deleteFailures++; // the message comes back after its visibility timeout
                }
            }
        }

        ProxyStats stats = await Emulator.StatsAsync();
        int duplicates = deliveries.Values.Sum() - deliveries.Count;
        output.WriteLine($"{Messages} sent; {sendFailures.Count} sends failed for good; {deliveries.Count} distinct received; {duplicates} duplicate deliveries; "
            + $"{stats.Faults} of {scheduled} scheduled faults injected; {receiveFailures} receives and {deleteFailures} deletes failed after retries; "
            + $"{stats.Verified} requests verified, {stats.Rejected} signatures rejected; retry quota left {transport.Retry.Quota}.");

        Assert.Empty(sendFailures);
        Assert.Equal(Enumerable.Range(0, Messages).Select(i => $"message-{i}").Order(), deliveries.Keys.Order());
        Assert.Equal(0, stats.Rejected);
        Assert.Equal(scheduled, stats.Faults);
        // Only the five sends whose answer was lost (sent again by the retry), and messages whose delete or receive
        // answer was lost, may arrive twice.
        Assert.InRange(duplicates, 0, 5 + 2 * 10 + 6 + 4);
        await Emulator.ResetAsync();
    }
}
