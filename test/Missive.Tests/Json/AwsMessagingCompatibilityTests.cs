using System;
using System.Buffers;
using System.Text;
using System.Text.Json;
using System.Text.Json.Nodes;
using Missive.Json;
using Missive.Serialization;
using Missive.Tests.Infrastructure;

namespace Missive.Tests.Json;

/// <summary>
/// The envelope shape of the AWS Message Processing Framework for .NET (package AWS.Messaging, https://github.com/aws/aws-dotnet-messaging). The package does not restore here, so the
/// fixtures are its documented output, and its read rules are checked on our output as written down there.
/// </summary>
public sealed class AwsMessagingCompatibilityTests
{
    /// <summary>An envelope as AWS.Messaging writes it, byte for byte.</summary>
    private const string AwsMessagingEnvelope = """{"id":"5f8b2c3e-9a41-4d7e-b6c2-0e3f1a7d9b24","source":"/AmazonECS/orders-prod/0f3c9a2b","specversion":"1.0","type":"Orders.OrderPlaced","time":"2025-11-03T14:27:09.4418273+00:00","datacontenttype":"application/json","data":{"OrderId":"ORD-20251103-0042","CustomerName":"Zo\u00EB Martin","Total":129.95,"Lines":[{"Sku":"SKU-4471","Quantity":2}]}}""";

    public static TheoryData<string> Serializers => new() { "standard", "utf8" };

    [Theory]
    [MemberData(nameof(Serializers))]
    public void Deserialize_AwsMessagingEnvelope_ReadsEveryAttributeAndTheMessage(string which)
    {
        using EnvelopeSerializer serializer = Create(which);

        foreach (Sequences.Split split in new[] { Sequences.Split.Single, Sequences.Split.OneByte })
        {
            var envelope = (MessageEnvelope<Order>)serializer.Deserialize(Sequences.Create(Encoding.UTF8.GetBytes(AwsMessagingEnvelope), split));

            Assert.Equal("5f8b2c3e-9a41-4d7e-b6c2-0e3f1a7d9b24", envelope.Id);
            Assert.Equal("/AmazonECS/orders-prod/0f3c9a2b", envelope.Source);
            Assert.Equal("Orders.OrderPlaced", envelope.Type);
            Assert.Equal(new DateTimeOffset(2025, 11, 3, 14, 27, 9, TimeSpan.Zero).AddTicks(4418273), envelope.Time);
            Assert.Equal("application/json", envelope.DataContentType);
            Assert.Equal("ORD-20251103-0042", envelope.Message.OrderId);
            Assert.Equal("Zoë Martin", envelope.Message.CustomerName);
            Assert.Equal(129.95m, envelope.Message.Total);
            Assert.Equal("SKU-4471", envelope.Message.Lines[0].Sku);
            Assert.Equal(2, envelope.Message.Lines[0].Quantity);
            Assert.Empty(envelope.Extensions);
        }
    }

    [Theory]
    [MemberData(nameof(Serializers))]
    public void Deserialize_AwsMessagingExtensions_AreKeptAsStringExtensions(string which)
    {
        using EnvelopeSerializer serializer = Create(which);
        string json = AwsMessagingEnvelope[..^1] + ""","traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01","subject":"orders/42","dataschema":"https://schemas.example.com/o"}""";

        MessageEnvelope envelope = serializer.Deserialize(json);

        Assert.Equal("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", envelope.Extensions["traceparent"].AsString());
        Assert.Equal("orders/42", envelope.Subject);
        Assert.Equal("https://schemas.example.com/o", envelope.DataSchema);
    }

    [Fact]
    public void Serialize_SameEnvelope_ReproducesTheAwsMessagingBytes()
    {
        using EnvelopeSerializer serializer = Create("utf8");
        var envelope = (MessageEnvelope<Order>)serializer.Deserialize(AwsMessagingEnvelope);

        // The fixture's Order has no PlacedAt and no UnitPrice; write with a type shaped like it.
        var map = new MessageTypeMap(new SerializationOptions());
        map.Add<AwsOrder>("Orders.OrderPlaced");
        using var writer = new Utf8JsonEnvelopeSerializer(map);
        var same = new MessageEnvelope<AwsOrder>
        {
            Id = envelope.Id,
            Source = envelope.Source,
            Type = envelope.Type,
            Time = envelope.Time,
            DataContentType = envelope.DataContentType,
            Message = new AwsOrder(envelope.Message.OrderId, envelope.Message.CustomerName, envelope.Message.Total, [new AwsLine("SKU-4471", 2)]),
        };

        Assert.Equal(AwsMessagingEnvelope, writer.SerializeToString(same));
    }

    [Theory]
    [MemberData(nameof(Serializers))]
    public void Serialize_Output_SatisfiesTheAwsMessagingReadRules(string which)
    {
        using EnvelopeSerializer serializer = Create(which);
        var envelope = new MessageEnvelope<Order>
        {
            Id = Guid.NewGuid().ToString(),
            Source = "/aws/messaging",
            Type = TestSerializers.OrderType,
            Time = DateTimeOffset.UtcNow,
            DataContentType = ContentTypes.ApplicationJson,
            Message = Orders.Create(2),
        };
        envelope.Extensions["traceparent"] = CloudEventAttributeValue.FromString("00-abc-def-01");

        string json = serializer.SerializeToString(envelope);
        JsonObject node = JsonNode.Parse(json)!.AsObject();

        // Keys in AWS.Messaging's order, then extensions.
        string[] expectedOrder = ["id", "source", "specversion", "type", "time", "datacontenttype", "data", "traceparent"];
        int i = 0;
        foreach (var property in node)
        {
            Assert.Equal(expectedOrder[i++], property.Key);
        }

        // Required members are strings; source parses as a URI reference; time is ISO 8601 with "+00:00", never "Z".
        Assert.True(Uri.TryCreate(node["source"]!.GetValue<string>(), UriKind.RelativeOrAbsolute, out _));
        string time = node["time"]!.GetValue<string>();
        Assert.EndsWith("+00:00", time, StringComparison.Ordinal);
        Assert.True(DateTimeOffset.TryParse(time, System.Globalization.CultureInfo.InvariantCulture, System.Globalization.DateTimeStyles.None, out _));
        // JSON content type: data is embedded JSON, not a string.
        Assert.Equal(JsonValueKind.Object, node["data"]!.GetValueKind());
        Assert.Equal("ORD-20251103-0042", node["data"]!["OrderId"]!.GetValue<string>());
    }

    [Fact]
    public void Serialize_NonJsonContentType_WritesDataAsAJsonStringLikeAwsMessaging()
    {
        var options = new SerializationOptions { MessageSerializer = new CsvSerializer() };
        var map = new MessageTypeMap(options);
        map.Add<Shipment>("shipments");
        using var fast = new Utf8JsonEnvelopeSerializer(map);
        using var standard = new StandardJsonEnvelopeSerializer(map);
        var envelope = new MessageEnvelope<Shipment> { Id = "1", Source = "/s", Type = "shipments", DataContentType = "text/csv", Message = new Shipment { ShipmentId = "S-1", Parcels = 3 } };

        string json = fast.SerializeToString(envelope);

        Assert.Equal(json, standard.SerializeToString(envelope));
        Assert.Contains("\"data\":\"S-1,3\"", json, StringComparison.Ordinal);
        var back = (MessageEnvelope<Shipment>)standard.Deserialize(Encoding.UTF8.GetBytes(json).AsMemory());
        Assert.Equal("S-1", back.Message.ShipmentId);
        Assert.Equal(3, back.Message.Parcels);
    }

    [Fact]
    public void StringSerializerWithJsonContentType_EmbedsItsTextAsJson()
    {
        var options = new SerializationOptions { MessageSerializer = new HandWrittenJsonSerializer() };
        var map = new MessageTypeMap(options);
        map.Add<Shipment>("shipments");
        using var fast = new Utf8JsonEnvelopeSerializer(map);
        using var standard = new StandardJsonEnvelopeSerializer(map);
        var envelope = new MessageEnvelope<Shipment> { Id = "1", Source = "/s", Type = "shipments", DataContentType = "application/json", Message = new Shipment { ShipmentId = "S-2", Parcels = 5 } };

        string json = fast.SerializeToString(envelope);

        Assert.Equal(json, standard.SerializeToString(envelope));
        Assert.Contains("\"data\":{\"id\":\"S-2\",\"n\":5}", json, StringComparison.Ordinal);
        var back = (MessageEnvelope<Shipment>)fast.Deserialize(json);
        Assert.Equal(5, back.Message.Parcels);
    }

    [Fact]
    public void ReflectionMetadata_WorksWithoutAContext()
    {
        var map = new MessageTypeMap(new SerializationOptions());
        map.Add<Shipment>("shipments");
        using var fast = new Utf8JsonEnvelopeSerializer(map);
        var envelope = new MessageEnvelope<Shipment> { Id = "1", Source = "/s", Type = "shipments", Message = new Shipment { ShipmentId = "S-3", Parcels = 1 } };

        var back = (MessageEnvelope<Shipment>)fast.Deserialize(fast.SerializeToString(envelope));

        Assert.Equal("S-3", back.Message.ShipmentId);
    }

    private static EnvelopeSerializer Create(string which)
    {
        MessageTypeMap map = TestSerializers.Map();
        return which == "utf8" ? new Utf8JsonEnvelopeSerializer(map) : new StandardJsonEnvelopeSerializer(map);
    }

    public sealed record AwsOrder(string OrderId, string CustomerName, decimal Total, AwsLine[] Lines);

    public sealed record AwsLine(string Sku, int Quantity);

    private sealed class CsvSerializer : IStringMessageSerializer
    {
        public string ContentType => "text/csv";

        public string Serialize(object message) => message is Shipment s ? $"{s.ShipmentId},{s.Parcels}" : throw new ArgumentException("not a shipment");

        public object Deserialize(string data, Type messageType)
        {
            string[] parts = data.Split(',');
            return new Shipment { ShipmentId = parts[0], Parcels = int.Parse(parts[1], System.Globalization.CultureInfo.InvariantCulture) };
        }
    }

    private sealed class HandWrittenJsonSerializer : IStringMessageSerializer
    {
        public string ContentType => "application/json";

        public string Serialize(object message) => message is Shipment s ? $"{{ \"id\" : \"{s.ShipmentId}\", \"n\" : {s.Parcels} }}" : throw new ArgumentException("not a shipment");

        public object Deserialize(string data, Type messageType)
        {
            using JsonDocument document = JsonDocument.Parse(data);
            return new Shipment { ShipmentId = document.RootElement.GetProperty("id").GetString()!, Parcels = document.RootElement.GetProperty("n").GetInt32() };
        }
    }
}
