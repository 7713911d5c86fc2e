using System;
using System.Collections.Generic;
using System.Text.Json;
using System.Threading.Tasks;
using Missive.InMemory;
using Missive.Json;
using Missive.Protobuf;
using Missive.Serialization;
using Missive.Tests.Infrastructure;
using Missive.Transport;

namespace Missive.Tests.Transport;

/// <summary>A wrapper does not eat into the envelope's depth budget, and an envelope over it is LimitExceeded whatever wraps it.</summary>
public sealed class WrapperDepthTests
{
    private const int MaxDepth = 12;

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task AnEnvelopeAtTheLimit_ReadsRawThroughSnsAndAsAnEventBridgeDetail_AndOneLevelMoreIsLimitExceededEverywhere(bool experimental)
    {
        MessageTypeMap map = TestSerializers.Map(TestSerializers.Options(o => o.MaxJsonDepth = MaxDepth));
        map.Add<JsonElement>("tests.json");
        EnvelopeSerializer json = experimental ? new Utf8JsonEnvelopeSerializer(map) : new StandardJsonEnvelopeSerializer(map);
        var provider = new EnvelopeSerializerProvider(json, new ProtobufEnvelopeSerializer(map));
        var reader = TestSerializers.Inbound(provider, map.Options);
        var writer = new OutboundMessageWriter(provider);

        // The deepest envelope the serializer itself reads, found rather than assumed.
        int deepest = 0;
        while (TryRead(json, Envelope(deepest + 1)))
        {
            deepest++;
        }

        Assert.True(deepest > 0);
        foreach (string body in await Bodies(writer, Envelope(deepest)))
        {
            InboundMessage inbound = reader.Read(new SqsMessage { Body = body });
            Assert.Equal(deepest, Depth(((MessageEnvelope<JsonElement>)inbound.Envelope!).Message));

            // One level more (the writers refuse to write it, so it is made by hand): over the limit, and said so.
            string deeper = body.Replace("[]", "[[]]", StringComparison.Ordinal);
            var error = Assert.Throws<InvalidEnvelopeException>(() => reader.Read(new SqsMessage { Body = deeper }));
            Assert.True(error.Reason == InvalidEnvelopeReason.LimitExceeded, $"{error.Reason}: {error.Message} in {deeper[..Math.Min(80, deeper.Length)]}");
        }
    }

    /// <summary>The same envelope as the bus sends it: raw on SQS, an SNS notification, an EventBridge event (object detail).</summary>
    private static async Task<List<string>> Bodies(OutboundMessageWriter writer, MessageEnvelope<JsonElement> envelope)
    {
        var broker = new InMemoryBroker();
        broker.CreateQueue("raw");
        broker.CreateTopic("topic");
        broker.Subscribe("topic", "sns");
        broker.CreateEventBus("bus");
        broker.AddRule("bus", "events");
        await broker.SendAsync(writer.ToSqs(envelope, "raw"));
        await broker.PublishAsync(writer.ToSns(envelope, "topic"));
        await broker.PutEventAsync(writer.ToEventBridge(envelope, "bus"));
        var bodies = new List<string>();
        foreach (string queue in new[] { "raw", "sns", "events" })
        {
            bodies.Add((await broker.ReceiveAsync(queue, 1, TimeSpan.Zero))[0].Body);
        }

        Assert.Contains("\"detail\":{", bodies[2], StringComparison.Ordinal); // an object detail, inside the event's own level
        return bodies;
    }

    private static MessageEnvelope<JsonElement> Envelope(int dataDepth)
        => new()
        {
            Id = "1",
            Source = "/s",
            Type = "tests.json",
            DataContentType = "application/json",
            Message = JsonDocument.Parse(new string('[', dataDepth) + new string(']', dataDepth)).RootElement.Clone(),
        };

    private static bool TryRead(EnvelopeSerializer serializer, MessageEnvelope<JsonElement> envelope)
    {
        try
        {
            serializer.Deserialize(serializer.SerializeToString(envelope));
            return true;
        }
        catch (InvalidEnvelopeException e) when (e.Reason == InvalidEnvelopeReason.LimitExceeded || e.Reason == InvalidEnvelopeReason.InvalidData)
        {
            return false;
        }
    }

    private static int Depth(JsonElement element)
    {
        int depth = 0;
        while (element.ValueKind == JsonValueKind.Array)
        {
            depth++;
            if (element.GetArrayLength() == 0)
            {
                break;
            }

            element = element[0];
        }

        return depth;
    }
}
