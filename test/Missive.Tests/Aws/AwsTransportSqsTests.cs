using System;
using System.Collections.Generic;
using System.Linq;
using System.Text;
using System.Threading.Tasks;
using Missive.Aws;
using Missive.Transport;

namespace Missive.Tests.Aws;

/// <summary>SQS through <see cref="AwsTransport"/> against fauxqs, every request's signature checked by the proxy.</summary>
[Collection(AwsEmulatorCollection.Name)]
public sealed class AwsTransportSqsTests(AwsEmulatorFixture fixture)
{
    private AwsEmulator Emulator => fixture.Emulator;

    [EmulatorFact]
    public async Task SendAndReceive_MessageWithAttributesOfEveryType_ArrivesIntactAndSigned()
    {
        string queue = "sqs-roundtrip-" + Guid.NewGuid().ToString("N")[..8];
        await Emulator.CreateQueueAsync(queue);
        using AwsTransport transport = Emulator.CreateTransport();
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

        string messageId = await transport.SendAsync(new SqsSendRequest { QueueName = queue, MessageBody = Body, MessageAttributes = attributes });
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
}
