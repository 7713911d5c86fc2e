using System;
using System.Collections.Generic;
using System.Linq;
using System.Text;
using System.Threading.Tasks;
using Missive.Aws;
using Missive.Transport;

namespace Missive.Tests.Aws;

/// <summary>
/// SQS through <see cref="AwsTransport"/> against fauxqs, every request's signature checked by the proxy, on both SQS
/// clients: the built-in one and the AWS SDK's <c>AmazonSQSClient</c> (<see cref="AwsTransportOptions.SqsClient"/>).
/// </summary>
[Collection(AwsEmulatorCollection.Name)]
public sealed class AwsTransportSqsTests(AwsEmulatorFixture fixture)
{
    internal const string BuiltIn = "built-in";
    internal const string Sdk = "sdk";

    private AwsEmulator Emulator => fixture.Emulator;

    /// <summary>A transport on the emulator with the given SQS client.</summary>
    internal static AwsTransport Create(AwsEmulator emulator, string client, Action<AwsTransportOptions>? configure = null)
    {
        AwsTransport transport = emulator.CreateTransport(o =>
        {
            configure?.Invoke(o);
            if (client == Sdk)
            {
                o.SqsClient = emulator.CreateSqsClient();
            }
        });
        Assert.Equal(client == Sdk, transport.UsesSdkSqsClient);
        return transport;
    }

    [EmulatorTheory]
    [InlineData(BuiltIn)]
    [InlineData(Sdk)]
    public async Task SendAndReceive_MessageWithAttributesOfEveryType_ArrivesIntactAndSigned(string client)
    {
        string queue = NewName("sqs-roundtrip");
        await Emulator.CreateQueueAsync(queue);
        using AwsTransport transport = Create(client);
        ProxyStats before = await Emulator.StatsAsync();
        var attributes = new Dictionary<string, MessageAttributeValue>
        {
            ["contentType"] = MessageAttributeValue.FromString("application/cloudevents+protobuf"),
            ["unicode"] = MessageAttributeValue.FromString("Zoë — 東京"),
            ["count"] = MessageAttributeValue.FromNumber("-12.5"),
            ["typed"] = new MessageAttributeValue { DataType = "Number.int", StringValue = "42" },
            ["blob"] = MessageAttributeValue.FromBinary(new byte[] { 0, 1, 2, 254, 255 }),
            ["label.blob"] = new MessageAttributeValue { DataType = "Binary.gif", BinaryValue = Encoding.UTF8.GetBytes("GIF89a") },
        };
        const string Body = "{\"id\":\"1\",\"note\":\"tab\\t, newline\\n, Zoë 東京\"}"; // fauxqs refuses characters past U+FFFF, which SQS allows

        string messageId = await transport.SendAsync(new SqsSendRequest { QueueName = queue, Body = Body, MessageAttributes = attributes });
        IReadOnlyList<SqsMessage> received = await transport.ReceiveAsync(queue, 10, TimeSpan.FromSeconds(1));

        SqsMessage message = Assert.Single(received);
        Assert.Equal(messageId, message.MessageId);
        Assert.Equal(Body, message.Body);
        Assert.Equal(attributes.Keys.OrderBy(k => k, StringComparer.Ordinal), message.MessageAttributes.Keys.OrderBy(k => k, StringComparer.Ordinal));
        foreach ((string name, MessageAttributeValue value) in attributes)
        {
            Assert.Equal(value.DataType, message.MessageAttributes[name].DataType);
            Assert.Equal(value.StringValue, message.MessageAttributes[name].StringValue);
            Assert.Equal(value.BinaryValue.ToArray(), message.MessageAttributes[name].BinaryValue.ToArray());
        }

        Assert.Equal("1", message.SystemAttributes[SqsSystemAttributes.ApproximateReceiveCount]);
        ProxyStats after = await Emulator.StatsAsync();
        Assert.Equal(before.Rejected, after.Rejected);
        Assert.True(after.Verified >= before.Verified + 3, "GetQueueUrl, SendMessage and ReceiveMessage were all signed and verified");
    }

    [EmulatorTheory]
    [InlineData(BuiltIn)]
    [InlineData(Sdk)]
    public async Task Batches_SendTwentyFiveReceiveAllDeleteAll_InCallsOfTen(string client)
    {
        string queue = NewName("sqs-batch");
        await Emulator.CreateQueueAsync(queue);
        using AwsTransport transport = Create(client);
        await Emulator.ResetAsync();
        var requests = new List<SqsSendRequest>();
        for (int i = 0; i < 25; i++)
        {
            requests.Add(new SqsSendRequest
            {
                QueueName = queue,
                Body = $"message {i}",
                MessageAttributes = new Dictionary<string, MessageAttributeValue> { ["n"] = MessageAttributeValue.FromNumber(i.ToString(System.Globalization.CultureInfo.InvariantCulture)) },
            });
        }

        IReadOnlyList<BatchEntryResult> sent = await transport.SendBatchAsync(requests);

        Assert.Equal(25, sent.Count);
        Assert.All(sent, r => Assert.True(r.Succeeded, r.ErrorMessage));
        Assert.Equal(Enumerable.Range(0, 25), sent.Select(r => r.Index));
        Assert.Equal(25, sent.Select(r => r.MessageId).Distinct().Count());
        List<SqsMessage> received = await ReceiveAllAsync(transport, queue, 25);
        Assert.Equal(Enumerable.Range(0, 25).Select(i => $"message {i}").Order(), received.Select(m => m.Body).Order());

        IReadOnlyList<BatchEntryResult> deleted = await transport.DeleteBatchAsync(queue, received.Select(m => m.ReceiptHandle).ToList());

        Assert.All(deleted, r => Assert.True(r.Succeeded, r.ErrorMessage));
        Assert.Empty(await transport.ReceiveAsync(queue, 10, TimeSpan.Zero));
        List<ProxyRequest> calls = await Emulator.RequestsAsync();
        Assert.Equal(3, calls.Count(c => c.Headers.GetValueOrDefault("x-amz-target") == "AmazonSQS.SendMessageBatch"));
        Assert.Equal(3, calls.Count(c => c.Headers.GetValueOrDefault("x-amz-target") == "AmazonSQS.DeleteMessageBatch"));
    }

    [EmulatorTheory]
    [InlineData(BuiltIn)]
    [InlineData(Sdk)]
    public async Task ChangeVisibility_ToZero_MakesTheMessageVisibleAgainWithAHigherReceiveCount(string client)
    {
        string queue = NewName("sqs-visibility");
        await Emulator.CreateQueueAsync(queue, new() { ["VisibilityTimeout"] = "60" });
        using AwsTransport transport = Create(client);
        await transport.SendAsync(new SqsSendRequest { QueueName = queue, Body = "again" });

        SqsMessage first = Assert.Single(await transport.ReceiveAsync(queue, 1, TimeSpan.FromSeconds(1)));
        Assert.Empty(await transport.ReceiveAsync(queue, 1, TimeSpan.Zero)); // invisible for 60 s
        Assert.True(await transport.ChangeVisibilityAsync(queue, first.ReceiptHandle, TimeSpan.Zero));
        SqsMessage second = Assert.Single(await transport.ReceiveAsync(queue, 1, TimeSpan.FromSeconds(1)));

        Assert.Equal(first.MessageId, second.MessageId);
        Assert.Equal("2", second.SystemAttributes[SqsSystemAttributes.ApproximateReceiveCount]);
        IReadOnlyList<BatchEntryResult> extended = await transport.ChangeVisibilityBatchAsync(queue, [second.ReceiptHandle], TimeSpan.FromSeconds(30));
        Assert.True(Assert.Single(extended).Succeeded);
        Assert.Empty(await transport.ReceiveAsync(queue, 1, TimeSpan.Zero));
    }

    [EmulatorTheory]
    [InlineData(BuiltIn)]
    [InlineData(Sdk)]
    public async Task Delete_DeletesOnce_AndAStaleReceiptStillSucceeds(string client)
    {
        // SQS: deleting with a receipt handle whose message is gone succeeds (ReceiptHandleIsInvalid, for a
        // malformed handle, is pinned by a unit test: fauxqs accepts any handle).
        string queue = NewName("sqs-delete");
        await Emulator.CreateQueueAsync(queue);
        using AwsTransport transport = Create(client);
        await transport.SendAsync(new SqsSendRequest { QueueName = queue, Body = "x" });
        SqsMessage message = Assert.Single(await transport.ReceiveAsync(queue, 1, TimeSpan.FromSeconds(1), TimeSpan.Zero));

        Assert.True(await transport.DeleteAsync(queue, message.ReceiptHandle));
        Assert.True(await transport.DeleteAsync(queue, message.ReceiptHandle));
        Assert.Empty(await transport.ReceiveAsync(queue, 1, TimeSpan.FromSeconds(1)));
    }

    [EmulatorTheory]
    [InlineData(BuiltIn)]
    [InlineData(Sdk)]
    public async Task Receive_PastTheMaxReceiveCount_MovesTheMessageToTheDeadLetterQueue(string client)
    {
        string queue = NewName("sqs-redrive");
        string deadLetters = queue + "-dlq";
        await Emulator.CreateQueueAsync(deadLetters);
        await Emulator.CreateQueueAsync(queue, new()
        {
            ["VisibilityTimeout"] = "30",
            ["RedrivePolicy"] = $"{{\"deadLetterTargetArn\":\"{AwsEmulator.QueueArn(deadLetters)}\",\"maxReceiveCount\":\"2\"}}",
        });
        using AwsTransport transport = Create(client);
        await transport.SendAsync(new SqsSendRequest { QueueName = queue, Body = "poison" });

        for (int receive = 1; receive <= 2; receive++)
        {
            SqsMessage message = Assert.Single(await transport.ReceiveAsync(queue, 1, TimeSpan.FromSeconds(1)));
            Assert.Equal(receive.ToString(System.Globalization.CultureInfo.InvariantCulture), message.SystemAttributes[SqsSystemAttributes.ApproximateReceiveCount]);
            await transport.ChangeVisibilityAsync(queue, message.ReceiptHandle, TimeSpan.Zero);
        }

        Assert.Empty(await transport.ReceiveAsync(queue, 1, TimeSpan.FromSeconds(1)));
        SqsMessage dead = Assert.Single(await transport.ReceiveAsync(deadLetters, 1, TimeSpan.FromSeconds(1)));
        Assert.Equal("poison", dead.Body);
    }

    [EmulatorTheory]
    [InlineData(BuiltIn)]
    [InlineData(Sdk)]
    public async Task QueueUrl_IsResolvedOnce_AndAnUnknownQueueFailsWithTheAwsCodeAndRequestId(string client)
    {
        string queue = NewName("sqs-url");
        string url = await Emulator.CreateQueueAsync(queue);
        using AwsTransport transport = Create(client);
        await Emulator.ResetAsync();

        for (int i = 0; i < 3; i++)
        {
            await transport.SendAsync(new SqsSendRequest { QueueName = queue, Body = "m" + i });
        }

        Assert.Equal(url, await transport.GetQueueUrlAsync(queue));
        List<ProxyRequest> calls = await Emulator.RequestsAsync();
        Assert.Equal(1, calls.Count(c => c.Headers.GetValueOrDefault("x-amz-target") == "AmazonSQS.GetQueueUrl"));
        Assert.All(calls.Where(c => c.Headers.GetValueOrDefault("x-amz-target") == "AmazonSQS.SendMessage"), c => Assert.Contains($"\"QueueUrl\":\"{url}\"", c.Body, StringComparison.Ordinal));

        var missing = await Assert.ThrowsAsync<MessageTransportException>(() => transport.SendAsync(new SqsSendRequest { QueueName = NewName("no-such-queue"), Body = "m" }));
        Assert.Equal("AWS.SimpleQueueService.NonExistentQueue", missing.ErrorCode);
        Assert.Equal(400, missing.StatusCode);
        Assert.False(missing.IsTransient);
        if (client == BuiltIn)
        {
            // fauxqs sends its request id as x-amz-request-id (S3's header), which the built-in client also reads; SQS
            // sends x-amzn-RequestId, the only one the SDK reads (SdkSqsClientTests pins it on a scripted endpoint).
            Assert.False(string.IsNullOrEmpty(missing.RequestId));
        }

        Assert.DoesNotContain("\"m\"", missing.Message, StringComparison.Ordinal);
    }

    [EmulatorTheory]
    [InlineData(BuiltIn)]
    [InlineData(Sdk)]
    public async Task ConfiguredQueueUrl_IsUsedWithoutAskingSqs(string client)
    {
        string queue = NewName("sqs-configured");
        string url = await Emulator.CreateQueueAsync(queue);
        using AwsTransport transport = Create(client, o => o.QueueUrls["orders"] = new Uri(url));
        await Emulator.ResetAsync();

        await transport.SendAsync(new SqsSendRequest { QueueName = "orders", Body = "via configured url" });

        Assert.Equal("via configured url", Assert.Single(await transport.ReceiveAsync("orders", 1, TimeSpan.FromSeconds(1))).Body);
        Assert.DoesNotContain(await Emulator.RequestsAsync(), c => c.Headers.GetValueOrDefault("x-amz-target") == "AmazonSQS.GetQueueUrl");
    }

    private AwsTransport Create(string client, Action<AwsTransportOptions>? configure = null) => Create(Emulator, client, configure);

    internal static string NewName(string prefix) => prefix + "-" + Guid.NewGuid().ToString("N")[..10];

    internal static async Task<List<SqsMessage>> ReceiveAllAsync(IMessageTransport transport, string queue, int expected, TimeSpan? visibility = null)
    {
        var all = new List<SqsMessage>();
        DateTime deadline = DateTime.UtcNow.AddSeconds(20);
        while (all.Count < expected && DateTime.UtcNow < deadline)
        {
            all.AddRange(await transport.ReceiveAsync(queue, 10, TimeSpan.FromSeconds(1), visibility ?? TimeSpan.FromSeconds(60)));
        }

        return all;
    }
}
