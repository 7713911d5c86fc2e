using System;
using System.Buffers;
using System.Collections.Generic;
using System.Globalization;
using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;
using Missive.Bus;
using Missive.InMemory;
using Missive.Json;
using Missive.Protobuf;
using Missive.Serialization;
using Missive.Tests.Infrastructure;
using Missive.Transport;

namespace Missive.Tests.Serialization;

/// <summary>One .NET type under several envelope types, and a data serializer of a type's own.</summary>
public sealed class TypeIdentifiersAndTypeSerializersTests
{
    public static TheoryData<string> Serializers => new() { "standard", "utf8", "protobuf" };

    [Theory]
    [MemberData(nameof(Serializers))]
    public void OneTypeUnderSeveralIdentifiers_IsWrittenWithTheChosenOne_AndReadBackAsThatTypeUnderIt(string kind)
    {
        MessageTypeMap map = TestSerializers.Map(); // Order is TestSerializers.OrderType
        map.Add<Order>("com.example.orders.amended");
        map.Add<string>("notes.internal");
        map.Add<string>("notes.customer", "text/markdown");
        using EnvelopeSerializer serializer = Create(kind, map);
        var factory = new EnvelopeFactory(map);

        MessageEnvelope<Order> byDefault = factory.CreateEnvelope(Orders.Create(1));
        MessageEnvelope<Order> amended = factory.CreateEnvelope(Orders.Create(2), "com.example.orders.amended");
        MessageEnvelope<string> internalNote = factory.CreateEnvelope("n1", "notes.internal");
        MessageEnvelope<string> customerNote = factory.CreateEnvelope("# n2", "notes.customer");

        Assert.Equal(TestSerializers.OrderType, byDefault.Type);
        Assert.Equal("com.example.orders.amended", amended.Type);
        Assert.Equal("text/markdown", customerNote.DataContentType);
        Assert.Equal("text/plain", internalNote.DataContentType);
        MessageEnvelope[] read = [RoundTrip(serializer, byDefault), RoundTrip(serializer, amended), RoundTrip(serializer, internalNote), RoundTrip(serializer, customerNote)];
        EnvelopeAssert.Equal([byDefault, amended, internalNote, customerNote], read);
        Assert.Equal([TestSerializers.OrderType, "com.example.orders.amended", "notes.internal", "notes.customer"], Array.ConvertAll(read, e => e.Type));
        Assert.Equal([typeof(Order), typeof(Order), typeof(string), typeof(string)], Array.ConvertAll(read, e => e.MessageType));
    }

    [Fact]
    public void AnIdentifierOfAnotherType_OrAnUnknownOne_IsRefusedByTheFactory()
    {
        MessageTypeMap map = TestSerializers.Map();
        map.Add<string>("notes");
        var factory = new EnvelopeFactory(map);

        var other = Assert.Throws<MessageBusConfigurationException>(() => factory.CreateEnvelope(Orders.Create(1), "notes"));
        var unknown = Assert.Throws<MessageBusConfigurationException>(() => factory.CreateEnvelope(Orders.Create(1), "orders.nope"));

        Assert.Contains("registered for System.String, not " + typeof(Order).FullName, other.Message, StringComparison.Ordinal);
        Assert.Contains("AddMessageType<Order>(\"orders.nope\")", unknown.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void ATypeSerializer_WritesOnlyItsType_AndBothJsonSerializersAgreeByteForByte()
    {
        var csv = new ShipmentCsv();
        MessageTypeMap Map()
        {
            MessageTypeMap map = TestSerializers.Map(TestSerializers.Options(o => o.AllowReflectionFallback = true)); // Shipment is not in the test context
            map.Add<Shipment>("shipments.dispatched", csv);
            map.Add<Shipment>("shipments.returned", csv); // a second identifier shares the serializer
            return map;
        }

        using var standard = TestSerializers.Standard(Map());
        using var utf8 = TestSerializers.Fast(Map());
        using var protobuf = new ProtobufEnvelopeSerializer(Map());
        var factory = new EnvelopeFactory(Map());
        MessageEnvelope<Shipment> shipment = factory.CreateEnvelope(new Shipment { ShipmentId = "S-1", Parcels = 3 }, "shipments.returned");
        MessageEnvelope<Order> order = factory.CreateEnvelope(Orders.Create(1));

        string shipmentJson = standard.SerializeToString(shipment);
        Assert.Equal(shipmentJson, utf8.SerializeToString(shipment));
        Assert.Equal(standard.SerializeToString(order), utf8.SerializeToString(order));
        Assert.Contains("\"datacontenttype\":\"text/csv\",\"data\":\"S-1,3\"", shipmentJson, StringComparison.Ordinal);
        Assert.Contains("\"data\":{\"OrderId\"", standard.SerializeToString(order), StringComparison.Ordinal); // Order stays System.Text.Json
        foreach (EnvelopeSerializer serializer in new EnvelopeSerializer[] { standard, utf8, protobuf })
        {
            var read = Assert.IsType<MessageEnvelope<Shipment>>(RoundTrip(serializer, shipment));
            Assert.Equal(("S-1", 3, "shipments.returned"), (read.Message!.ShipmentId, read.Message.Parcels, read.Type));
        }

        Assert.True(csv.Reads >= 3); // every serializer read the data through the type's serializer
    }

    [Fact]
    public void ASecondSerializerForOneType_IsRefused()
    {
        MessageTypeMap map = TestSerializers.Map(TestSerializers.Options(o => o.AllowReflectionFallback = true));
        map.Add<Shipment>("shipments.dispatched", new ShipmentCsv());

        var error = Assert.Throws<MessageBusConfigurationException>(() => map.Add<Shipment>("shipments.returned", new ShipmentCsv()));
        Assert.Contains("with another serializer", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task TheBus_PublishesUnderTheIdentifierPublishOptionsChoose_AndOneHandlerReceivesEvery()
    {
        var services = new ServiceCollection();
        services.AddMessageBus(bus => bus
            .AddMessageType<Order>("orders.placed")
            .AddMessageType<Order>("orders.amended")
            .ConfigureSerialization(o => o.JsonSerializerContext = TestJsonContext.Default)
            .AddSqsPublisher<Order>("orders")
            .UseInMemoryBroker(b => b.CreateQueue("orders")));
        await using ServiceProvider provider = services.BuildServiceProvider();
        IMessagePublisher publisher = provider.GetRequiredService<IMessagePublisher>();

        await publisher.PublishAsync(Orders.Create(1));
        await publisher.PublishAsync(Orders.Create(2), new PublishOptions { TypeIdentifier = "orders.amended" });
        await Assert.ThrowsAsync<MessageBusConfigurationException>(() => publisher.PublishAsync(Orders.Create(3), new PublishOptions { TypeIdentifier = "orders.cancelled" }));

        IReadOnlyList<SqsMessage> received = await provider.GetRequiredService<InMemoryBroker>().ReceiveAsync("orders", 10, TimeSpan.Zero);
        InboundMessageReader reader = provider.GetRequiredService<InboundMessageReader>();
        var types = new List<string>();
        foreach (SqsMessage message in received)
        {
            types.Add(Assert.IsType<MessageEnvelope<Order>>(reader.Read(message).Envelope).Type);
        }

        types.Sort(StringComparer.Ordinal);
        Assert.Equal(["orders.amended", "orders.placed"], types);
    }

    private static EnvelopeSerializer Create(string kind, MessageTypeMap map) => kind switch
    {
        "standard" => new StandardJsonEnvelopeSerializer(map),
        "utf8" => new Utf8JsonEnvelopeSerializer(map),
        _ => new ProtobufEnvelopeSerializer(map),
    };

    /// <summary>Writes one envelope alone and in a batch; reads both back and checks they agree.</summary>
    private static MessageEnvelope RoundTrip<T>(EnvelopeSerializer serializer, MessageEnvelope<T> envelope)
    {
        var single = new ArrayBufferWriter<byte>();
        serializer.Serialize(single, envelope);
        MessageEnvelope read = serializer.Deserialize(new ReadOnlySequence<byte>(single.WrittenMemory));
        var batch = new ArrayBufferWriter<byte>();
        serializer.SerializeBatch(batch, [envelope]);
        EnvelopeAssert.Equal(read, serializer.DeserializeBatch(new ReadOnlySequence<byte>(batch.WrittenMemory))[0]);
        return read;
    }

    private sealed class ShipmentCsv : IStringMessageSerializer
    {
        public int Reads { get; private set; }

        public string ContentType => "text/csv";

        public string Serialize(object message) => message is Shipment s ? string.Create(CultureInfo.InvariantCulture, $"{s.ShipmentId},{s.Parcels}") : throw new ArgumentException("not a shipment", nameof(message));

        public object Deserialize(string data, Type messageType)
        {
            Reads++;
            string[] parts = data.Split(',');
            return new Shipment { ShipmentId = parts[0], Parcels = int.Parse(parts[1], CultureInfo.InvariantCulture) };
        }
    }
}
