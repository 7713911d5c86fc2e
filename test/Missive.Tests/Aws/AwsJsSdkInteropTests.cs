using System;
using System.Collections.Generic;
using System.Linq;
using System.Text.Json;
using System.Text.Json.Nodes;
using System.Threading.Tasks;
using Missive.Aws;
using Missive.Json;
using Missive.Protobuf;
using Missive.Serialization;
using Missive.Tests.Infrastructure;
using Missive.Transport;

namespace Missive.Tests.Aws;

/// <summary>
/// Missive.Aws and the AWS SDK for JavaScript (@aws-sdk/client-sqs and client-sns) on the same queues and topics:
/// what one sends, the other receives and reads. The JS SDK checks the MD5 digests of what it receives, and the
/// proxy verifies the signatures of both.
/// </summary>
[Collection(AwsEmulatorCollection.Name)]
public sealed class AwsJsSdkInteropTests(AwsEmulatorFixture fixture)
{
    private static readonly MessageTypeMap Map = TestSerializers.Map();
    private static readonly EnvelopeSerializerProvider Serializers = new(new Utf8JsonEnvelopeSerializer(Map), new ProtobufEnvelopeSerializer(Map));
    private static readonly OutboundMessageWriter Writer = new(Serializers);
    private static readonly InboundMessageReader Reader = new(Serializers, Map.Options);

    private AwsEmulator Emulator => fixture.Emulator;

    [EmulatorTheory]
    [InlineData(EnvelopeFormat.Json)]
    [InlineData(EnvelopeFormat.Protobuf)]
    public async Task MissiveSends_JavaScriptSdkReceivesAndReads(EnvelopeFormat format)
    {
        string queue = AwsTransportSqsTests.NewName("interop-to-js");
        string url = await Emulator.CreateQueueAsync(queue);
        using AwsTransport transport = Emulator.CreateTransport();
        MessageEnvelope<Order> envelope = Orders.Envelope(2);
        SqsSendRequest request = Writer.ToSqs(envelope, queue, format);
        var extra = new Dictionary<string, MessageAttributeValue>(request.MessageAttributes)
        {
            ["priority"] = MessageAttributeValue.FromNumber("7"),
            ["signature"] = MessageAttributeValue.FromBinary(new byte[] { 9, 8, 7 }),
        };

        string messageId = await transport.SendAsync(new SqsSendRequest { QueueName = queue, Body = request.Body, MessageAttributes = extra });
        using JsonDocument received = await Emulator.JsClientAsync(new JsonObject { ["op"] = "receive", ["queueUrl"] = url, ["waitSeconds"] = 1 });

        JsonElement message = Assert.Single(received.RootElement.EnumerateArray().ToList());
        Assert.Equal(messageId, message.GetProperty("MessageId").GetString());
        string body = message.GetProperty("Body").GetString()!;
        Assert.Equal(request.Body, body);
        JsonElement attributes = message.GetProperty("MessageAttributes");
        Assert.Equal("7", attributes.GetProperty("priority").GetProperty("StringValue").GetString());
        Assert.Equal(Convert.ToBase64String([9, 8, 7]), attributes.GetProperty("signature").GetProperty("BinaryValue").GetString());
        if (format == EnvelopeFormat.Json)
        {
            using JsonDocument cloudEvent = JsonDocument.Parse(body);
            Assert.Equal(envelope.Id, cloudEvent.RootElement.GetProperty("id").GetString());
            Assert.Equal("1.0", cloudEvent.RootElement.GetProperty("specversion").GetString());
            Assert.Equal(2, cloudEvent.RootElement.GetProperty("data").GetProperty("Lines").GetArrayLength());
        }
        else
        {
            Assert.Equal("application/cloudevents+protobuf", attributes.GetProperty("contentType").GetProperty("StringValue").GetString());
            EnvelopeAssert.Equal(envelope, Serializers.GetSerializer(EnvelopeFormat.Protobuf).Deserialize(Convert.FromBase64String(body).AsMemory()));
        }
    }

    [EmulatorFact]
    public async Task JavaScriptSdkSends_MissiveReadsWithEveryAttribute()
    {
        string queue = AwsTransportSqsTests.NewName("interop-from-js");
        string url = await Emulator.CreateQueueAsync(queue);
        using AwsTransport transport = Emulator.CreateTransport();
        MessageEnvelope<Order> envelope = Orders.Envelope(1);
        string body = Serializers.GetSerializer(EnvelopeFormat.Protobuf).SerializeToString(envelope);

        using JsonDocument sent = await Emulator.JsClientAsync(new JsonObject
        {
            ["op"] = "send",
            ["queueUrl"] = url,
            ["body"] = body,
            ["attributes"] = new JsonObject
            {
                ["contentType"] = new JsonObject { ["DataType"] = "String", ["StringValue"] = "application/cloudevents+protobuf" },
                ["tenant"] = new JsonObject { ["DataType"] = "String.tenant", ["StringValue"] = "Zoë & Co" },
                ["attempt"] = new JsonObject { ["DataType"] = "Number", ["StringValue"] = "2" },
                ["blob"] = new JsonObject { ["DataType"] = "Binary", ["BinaryValue"] = Convert.ToBase64String([0, 255, 16]) },
            },
        });
        SqsMessage received = Assert.Single(await AwsTransportSqsTests.ReceiveAllAsync(transport, queue, 1));
        InboundMessage inbound = Reader.Read(received);

        Assert.Equal(sent.RootElement.GetProperty("MessageId").GetString(), received.MessageId);
        EnvelopeAssert.Equal(envelope, inbound.Envelope!);
        IReadOnlyDictionary<string, MessageAttributeValue> attributes = inbound.Envelope!.SqsMetadata!.MessageAttributes;
        Assert.Equal("Zoë & Co", attributes["tenant"].StringValue);
        Assert.Equal("String.tenant", attributes["tenant"].DataType);
        Assert.Equal("2", attributes["attempt"].StringValue);
        Assert.Equal(new byte[] { 0, 255, 16 }, attributes["blob"].BinaryValue.ToArray());
        Assert.Equal(1, inbound.Envelope.SqsMetadata.ApproximateReceiveCount);
    }

    [EmulatorTheory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task JavaScriptSdkPublishes_MissiveReadsTheDeliveryWithItsMetadata(bool raw)
    {
        string topicArn = (await Emulator.JsClientAsync(new JsonObject { ["op"] = "createTopic", ["name"] = AwsTransportSqsTests.NewName("interop-topic") })).RootElement.GetProperty("topicArn").GetString()!;
        string queue = AwsTransportSqsTests.NewName("interop-sub");
        await Emulator.CreateQueueAsync(queue);
        await Emulator.JsClientAsync(new JsonObject { ["op"] = "subscribe", ["topicArn"] = topicArn, ["queueArn"] = AwsEmulator.QueueArn(queue), ["raw"] = raw });
        using AwsTransport transport = Emulator.CreateTransport();
        MessageEnvelope<Order> envelope = Orders.Envelope(4);

        using JsonDocument published = await Emulator.JsClientAsync(new JsonObject
        {
            ["op"] = "publish",
            ["topicArn"] = topicArn,
            ["message"] = Serializers.GetSerializer(EnvelopeFormat.Json).SerializeToString(envelope),
            ["subject"] = "From JavaScript",
            ["attributes"] = new JsonObject { ["origin"] = new JsonObject { ["DataType"] = "String", ["StringValue"] = "js-sdk" } },
        });
        InboundMessage inbound = Reader.Read(Assert.Single(await AwsTransportSqsTests.ReceiveAllAsync(transport, queue, 1)));

        EnvelopeAssert.Equal(envelope, inbound.Envelope!);
        if (raw)
        {
            Assert.Equal(InboundMessageKind.Raw, inbound.Kind);
            Assert.Equal("js-sdk", inbound.Envelope!.SqsMetadata!.MessageAttributes["origin"].StringValue);
        }
        else
        {
            Assert.Equal(InboundMessageKind.SnsNotification, inbound.Kind);
            SnsMetadata sns = inbound.Envelope!.SnsMetadata!;
            Assert.Equal(published.RootElement.GetProperty("MessageId").GetString(), sns.MessageId);
            Assert.Equal(topicArn, sns.TopicArn);
            Assert.Equal("From JavaScript", sns.Subject);
            Assert.Equal("js-sdk", sns.MessageAttributes["origin"].StringValue);
        }
    }
}
