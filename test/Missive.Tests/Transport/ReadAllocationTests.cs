using System;
using System.Text.Json;
using System.Threading.Tasks;
using Missive.InMemory;
using Missive.Json;
using Missive.Lexing;
using Missive.Protobuf;
using Missive.Serialization;
using Missive.Tests.Infrastructure;
using Missive.Transport;
using Xunit.Abstractions;

namespace Missive.Tests.Transport;

/// <summary>
/// Bytes allocated per inbound read, after warm-up, against the floor: System.Text.Json reading the bare payload.
/// What a read may add is the envelope's own: the envelope object, its id and extension value strings, the
/// extension collection, the SQS metadata and the inbound result, and for a wrapper its metadata object with the
/// strings that differ per message (message or event id, timestamp) and its attribute dictionary. Strings that
/// recur (source, extension names, topic ARN, unsubscribe URL, attribute names, EventBridge source and detail
/// type) are shared after the first message.
/// </summary>
public sealed class ReadAllocationTests
{
    private readonly ITestOutputHelper _output;

    public ReadAllocationTests(ITestOutputHelper output) => _output = output;

    [Theory]
    [InlineData("raw", 1, 600)]
    [InlineData("raw", 100, 600)]
    [InlineData("sns", 1, 800)]
    [InlineData("sns", 100, 800)]
    [InlineData("eventbridge", 1, 800)]
    [InlineData("eventbridge", 100, 800)]
    [InlineData("protobuf", 1, 600)]
    [InlineData("protobuf", 100, 600)]
    public async Task Read_AllocatesTheFloorPlusTheEnvelopesOwn(string path, int lines, int budget)
    {
        MessageTypeMap map = TestSerializers.Map();
        var serializers = new EnvelopeSerializerProvider(new Utf8JsonEnvelopeSerializer(map), new ProtobufEnvelopeSerializer(map));
        var reader = TestSerializers.Inbound(serializers, map.Options);
        MessageEnvelope<Order> envelope = Orders.Envelope(lines);
        SqsMessage message = await DeliverAsync(serializers, envelope, path);
        byte[] payload = JsonSerializer.SerializeToUtf8Bytes(envelope.Message, TestJsonContext.Default.Order);

        long read = Allocations.SteadyPerCall(() => reader.Read(message));
        long floor = Allocations.SteadyPerCall(() => JsonSerializer.Deserialize(payload, TestJsonContext.Default.Order));

        _output.WriteLine($"{path}, {lines} lines: {read} B per read, floor {floor} B, envelope's own {read - floor} B (budget {budget} B)");
        Assert.True(read - floor <= budget, $"{path}, {lines} lines: {read - floor} B over the floor, budget {budget} B");
        Assert.Equal(envelope.Message.Lines.Count, ((MessageEnvelope<Order>)reader.Read(message).Envelope!).Message.Lines.Count);
    }

    [Fact]
    public void RecurringStrings_AreSharedAfterTheFirstRead_AndAnEscapedSpellingStillReadsRight()
    {
        using Utf8JsonEnvelopeSerializer serializer = TestSerializers.Fast();
        MessageEnvelope<Order> envelope = Orders.Envelope(1);
        envelope.Source = "/orders/eu-west-1";
        string json = serializer.SerializeToString(envelope);

        MessageEnvelope first = serializer.Deserialize(json);
        MessageEnvelope second = serializer.Deserialize(json);
        MessageEnvelope escaped = serializer.Deserialize(json.Replace("\"/orders/eu-west-1\"", "\"\\/orders\\/eu-west-1\"", StringComparison.Ordinal));
        MessageEnvelope other = serializer.Deserialize(json.Replace("\"/orders/eu-west-1\"", "\"/orders/eu-west-2\"", StringComparison.Ordinal));

        Assert.Equal("/orders/eu-west-1", first.Source);
        Assert.Same(first.Source, second.Source);
        Assert.Equal("/orders/eu-west-1", escaped.Source);
        Assert.Equal("/orders/eu-west-2", other.Source);
        Assert.Same(FirstKey(first), FirstKey(second));
    }

    [Fact]
    public void KnownStrings_KeepsAtMostItsCapacity_AndNoStringWithoutAUtf8Form()
    {
        var strings = new KnownStrings();
        for (int i = 0; i < KnownStrings.Capacity + 10; i++)
        {
            strings.TryAdd("/source/" + i);
        }

        strings.TryAdd("\ud800 lone");

        Assert.Equal("/source/0", strings.Find("/source/0"u8));
        Assert.Equal($"/source/{KnownStrings.Capacity - 1}", strings.Find(System.Text.Encoding.UTF8.GetBytes($"/source/{KnownStrings.Capacity - 1}")));
        Assert.Null(strings.Find(System.Text.Encoding.UTF8.GetBytes($"/source/{KnownStrings.Capacity}")));
        Assert.Null(strings.Find([0xEF, 0xBF, 0xBD, (byte)' ', (byte)'l', (byte)'o', (byte)'n', (byte)'e']));
    }

    private static string FirstKey(MessageEnvelope envelope)
    {
        foreach (System.Collections.Generic.KeyValuePair<string, CloudEventAttributeValue> item in envelope.Extensions)
        {
            return item.Key;
        }

        throw new InvalidOperationException("The envelope has no extension.");
    }

    private static async Task<SqsMessage> DeliverAsync(IEnvelopeSerializerProvider serializers, MessageEnvelope<Order> envelope, string path)
    {
        var broker = new InMemoryBroker();
        broker.CreateQueue("q");
        broker.CreateTopic("t", maxMessageSize: 1024 * 1024);
        broker.Subscribe("t", "q");
        broker.CreateEventBus("b");
        broker.AddRule("b", "q");
        var writer = new OutboundMessageWriter(serializers);
        switch (path)
        {
            case "sns":
                await broker.PublishAsync(writer.ToSns(envelope, "t"));
                break;
            case "eventbridge":
                await broker.PutEventAsync(writer.ToEventBridge(envelope, "b"));
                break;
            case "protobuf":
                await broker.SendAsync(writer.ToSqs(envelope, "q", EnvelopeFormat.Protobuf));
                break;
            default:
                await broker.SendAsync(writer.ToSqs(envelope, "q"));
                break;
        }

        return (await broker.ReceiveAsync("q", 1, TimeSpan.Zero))[0];
    }
}
