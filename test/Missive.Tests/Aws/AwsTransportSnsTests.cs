using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;
using Missive.Aws;
using Missive.Json;
using Missive.Protobuf;
using Missive.Serialization;
using Missive.Tests.Infrastructure;
using Missive.Transport;

namespace Missive.Tests.Aws;

/// <summary>SNS through <see cref="AwsTransport"/> against fauxqs: what SQS subscribers receive, read back by Missive.</summary>
[Collection(AwsEmulatorCollection.Name)]
public sealed class AwsTransportSnsTests(AwsEmulatorFixture fixture)
{
    private static readonly MessageTypeMap Map = TestSerializers.Map();
    private static readonly EnvelopeSerializerProvider Serializers = new(new Utf8JsonEnvelopeSerializer(Map), new ProtobufEnvelopeSerializer(Map));
    private static readonly OutboundMessageWriter Writer = new(Serializers);
    private static readonly InboundMessageReader Reader = new(Serializers, Map.Options);

    private AwsEmulator Emulator => fixture.Emulator;

    [EmulatorTheory]
    [InlineData(EnvelopeFormat.Json, false)]
    [InlineData(EnvelopeFormat.Json, true)]
    [InlineData(EnvelopeFormat.Protobuf, false)]
    [InlineData(EnvelopeFormat.Protobuf, true)]
    public async Task Publish_ToASubscribedQueue_IsReadBackWithItsMetadata(EnvelopeFormat format, bool raw)
    {
        string topicName = AwsTransportSqsTests.NewName("sns-topic");
        string queue = AwsTransportSqsTests.NewName("sns-queue");
        string topicArn = await Emulator.CreateTopicAsync(topicName);
        await Emulator.CreateQueueAsync(queue);
        await Emulator.SubscribeAsync(topicArn, queue, raw);
        using AwsTransport transport = Emulator.CreateTransport(o => o.TopicArns["orders"] = topicArn);
        MessageEnvelope<Order> envelope = Orders.Envelope(3);

        SnsPublishRequest request = Writer.ToSns(envelope, "orders", format, subject: "Order placed");
        string messageId = await transport.PublishAsync(request);

        SqsMessage received = Assert.Single(await AwsTransportSqsTests.ReceiveAllAsync(transport, queue, 1));
        InboundMessage inbound = Reader.Read(received);
        EnvelopeAssert.Equal(envelope, inbound.Envelope!);
        Assert.Equal(received.MessageId, inbound.Envelope!.SqsMetadata!.MessageId);
        if (raw)
        {
            Assert.Equal(InboundMessageKind.Raw, inbound.Kind);
            Assert.Null(inbound.Envelope.SnsMetadata);
            Assert.Equal(format == EnvelopeFormat.Protobuf, received.MessageAttributes.ContainsKey("contentType"));
        }
        else
        {
            Assert.Equal(InboundMessageKind.SnsNotification, inbound.Kind);
            SnsMetadata sns = inbound.Envelope.SnsMetadata!;
            Assert.Equal(messageId, sns.MessageId);
            Assert.Equal(topicArn, sns.TopicArn);
            Assert.Equal("Order placed", sns.Subject);
            Assert.NotNull(sns.Timestamp);
            Assert.Equal(format == EnvelopeFormat.Protobuf, sns.MessageAttributes.ContainsKey("contentType"));
        }
    }

    [EmulatorFact]
    public async Task Publish_AttributesOfEveryType_ReachTheNotification()
    {
        string topicArn = await Emulator.CreateTopicAsync(AwsTransportSqsTests.NewName("sns-attributes"));
        string queue = AwsTransportSqsTests.NewName("sns-attributes-queue");
        await Emulator.CreateQueueAsync(queue);
        await Emulator.SubscribeAsync(topicArn, queue);
        using AwsTransport transport = Emulator.CreateTransport();
        var attributes = new Dictionary<string, MessageAttributeValue>
        {
            ["text"] = MessageAttributeValue.FromString("Zoë & <friends> = 100%"),
            ["number"] = MessageAttributeValue.FromNumber("3.25"),
            ["bytes"] = MessageAttributeValue.FromBinary(new byte[] { 1, 2, 3, 250 }),
            ["list"] = new MessageAttributeValue { DataType = "String.Array", StringValue = "[\"a\",\"b\"]" },
        };

        await transport.PublishAsync(new SnsPublishRequest { TopicArn = topicArn, Message = "{\"plain\":true}", MessageAttributes = attributes });

        SqsMessage received = Assert.Single(await AwsTransportSqsTests.ReceiveAllAsync(transport, queue, 1));
        SnsMetadata sns = SnsNotificationMetadata(received);
        foreach ((string name, MessageAttributeValue value) in attributes)
        {
            Assert.Equal(value.DataType, sns.MessageAttributes[name].DataType);
            Assert.Equal(value.StringValue, sns.MessageAttributes[name].StringValue);
            Assert.Equal(value.BinaryValue.ToArray(), sns.MessageAttributes[name].BinaryValue.ToArray());
        }
    }

    [EmulatorFact]
    public async Task FifoTopic_ToFifoQueue_KeepsGroupOrderAndDropsDuplicates()
    {
        string name = AwsTransportSqsTests.NewName("sns-fifo");
        string topicArn = await Emulator.CreateTopicAsync(name + ".fifo", new() { ["FifoTopic"] = "true" });
        string queue = name + "-queue.fifo";
        await Emulator.CreateQueueAsync(queue, new() { ["FifoQueue"] = "true" });
        await Emulator.SubscribeAsync(topicArn, queue, raw: true);
        using AwsTransport transport = Emulator.CreateTransport();

        for (int i = 0; i < 6; i++)
        {
            string group = i % 2 == 0 ? "customer-a" : "customer-b";
            await transport.PublishAsync(new SnsPublishRequest { TopicArn = topicArn, Message = $"{group}:{i}", MessageGroupId = group, MessageDeduplicationId = "d" + i });
        }

        await transport.PublishAsync(new SnsPublishRequest { TopicArn = topicArn, Message = "customer-a:0 again", MessageGroupId = "customer-a", MessageDeduplicationId = "d0" });

        // A FIFO queue holds a group's next message until the one in flight is deleted: delete as they come.
        // Once all six are in, two empty receives show that the duplicate does not follow.
        var received = new List<SqsMessage>();
        int emptyAfterAll = 0;
        for (int round = 0; round < 40 && emptyAfterAll < 2; round++)
        {
            IReadOnlyList<SqsMessage> batch = await transport.ReceiveAsync(queue, 10, TimeSpan.FromMilliseconds(300), TimeSpan.FromSeconds(60));
            received.AddRange(batch);
            emptyAfterAll = received.Count >= 6 && batch.Count == 0 ? emptyAfterAll + 1 : 0;
            foreach (SqsMessage message in batch)
            {
                await transport.DeleteAsync(queue, message.ReceiptHandle);
            }
        }

        Assert.Equal(6, received.Count);
        Assert.Equal(["customer-a:0", "customer-a:2", "customer-a:4"], received.Where(m => m.SystemAttributes[SqsSystemAttributes.MessageGroupId] == "customer-a").Select(m => m.Body));
        Assert.Equal(["customer-b:1", "customer-b:3", "customer-b:5"], received.Where(m => m.SystemAttributes[SqsSystemAttributes.MessageGroupId] == "customer-b").Select(m => m.Body));
        Assert.All(received, m => Assert.True(m.SystemAttributes.ContainsKey(SqsSystemAttributes.SequenceNumber)));
    }

    [EmulatorFact]
    public async Task PublishBatch_TwelveMessages_AllArriveInTwoCalls()
    {
        string topicArn = await Emulator.CreateTopicAsync(AwsTransportSqsTests.NewName("sns-batch"));
        string queue = AwsTransportSqsTests.NewName("sns-batch-queue");
        await Emulator.CreateQueueAsync(queue);
        await Emulator.SubscribeAsync(topicArn, queue, raw: true);
        using AwsTransport transport = Emulator.CreateTransport();
        await Emulator.ResetAsync();

        IReadOnlyList<BatchEntryResult> results = await transport.PublishBatchAsync(
            Enumerable.Range(0, 12).Select(i => new SnsPublishRequest { TopicArn = topicArn, Message = "batch " + i, Subject = "s" + i }).ToList());

        Assert.All(results, r => Assert.True(r.Succeeded, r.ErrorMessage));
        Assert.Equal(12, results.Select(r => r.MessageId).Distinct().Count());
        Assert.Equal(Enumerable.Range(0, 12).Select(i => "batch " + i).Order(), (await AwsTransportSqsTests.ReceiveAllAsync(transport, queue, 12)).Select(m => m.Body).Order());
        Assert.Equal(2, (await Emulator.RequestsAsync()).Count(r => r.Body.StartsWith("Action=PublishBatch", StringComparison.Ordinal)));
    }

    [EmulatorFact]
    public async Task Publish_ToATopicNameWithoutAConfiguredArn_SaysHowToConfigureIt()
    {
        using AwsTransport transport = Emulator.CreateTransport();

        var e = await Assert.ThrowsAsync<MessageTransportException>(() => transport.PublishAsync(new SnsPublishRequest { TopicArn = "orders", Message = "m" }));

        Assert.Equal("TopicArnNotConfigured", e.ErrorCode);
        Assert.Contains("TopicArns:orders", e.Message, StringComparison.Ordinal);
    }

    [EmulatorFact]
    public async Task Publish_ToAMissingTopic_FailsWithTheSnsCode()
    {
        using AwsTransport transport = Emulator.CreateTransport();

        var e = await Assert.ThrowsAsync<MessageTransportException>(() => transport.PublishAsync(new SnsPublishRequest { TopicArn = $"arn:aws:sns:{AwsEmulator.Region}:{AwsEmulator.AccountId}:no-such-topic", Message = "m" }));

        Assert.Equal("NotFound", e.ErrorCode);
        Assert.False(e.IsTransient);
    }

    private static SnsMetadata SnsNotificationMetadata(SqsMessage received)
    {
        // The body is a notification around a plain JSON message: read its metadata with the inbound reader's own code.
        var envelope = new SqsMessage { Body = received.Body.Replace("{\\\"plain\\\":true}", EnvelopeText(), StringComparison.Ordinal), MessageId = received.MessageId, ReceiptHandle = received.ReceiptHandle };
        return Reader.Read(envelope).Envelope!.SnsMetadata!;
    }

    private static string EnvelopeText()
        => System.Text.Json.JsonEncodedText.Encode(Serializers.GetSerializer(EnvelopeFormat.Json).SerializeToString(Orders.Envelope(0))).ToString();
}
