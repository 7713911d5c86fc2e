using System;
using System.Collections.Generic;
using System.Text;
using System.Text.Json;
using System.Text.Json.Nodes;
using System.Text.Json.Serialization;
using Microsoft.Extensions.DependencyInjection;
using Missive.Json;
using Missive.Protobuf;
using Missive.Serialization;
using Missive.Tests.Infrastructure;

namespace Missive.Tests.Serialization;

/// <summary>JSON DOM messages (a forwarding service that carries arbitrary JSON) work the same with either serializer.</summary>
public sealed class JsonDomMessageTests
{
    private const string Json = "{\"name\":\"Zoë <b> & \\\"quoted\\\"\",\"items\":[1,2.5,true,null,{\"deep\":[\"\\u00e9\"]}],\"empty\":{}}";

    public static TheoryData<string> Kinds => new() { "element", "document", "node", "object", "array", "value" };

    [Theory]
    [MemberData(nameof(Kinds))]
    public void BothSerializers_WriteTheSameBytes_AndReadTheMessageBack_WithAContextThatDoesNotListDomTypes(string kind)
    {
        MessageTypeMap map = MapFor(TestSerializers.Options());
        using var standard = new StandardJsonEnvelopeSerializer(map);
        using var fast = new Utf8JsonEnvelopeSerializer(map);
        using var protobuf = new ProtobufEnvelopeSerializer(map);
        MessageEnvelope envelope = Envelope(kind);

        byte[] fromStandard = Write(standard, envelope);
        byte[] fromFast = Write(fast, envelope);

        Assert.Equal(Encoding.UTF8.GetString(fromFast), Encoding.UTF8.GetString(fromStandard));
        foreach (EnvelopeSerializer reader in new EnvelopeSerializer[] { standard, fast })
        {
            Assert.True(JsonNode.DeepEquals(JsonOf(envelope), JsonOf(reader.Deserialize(fromFast.AsMemory()))), reader.GetType().Name);
        }

        Assert.True(JsonNode.DeepEquals(JsonOf(envelope), JsonOf(protobuf.Deserialize(Write(protobuf, envelope).AsMemory()))), "protobuf");
    }

    [Fact]
    public void AFailureInsideSystemTextJsonWhileWriting_IsMissivesException_InBothSerializers()
    {
        // Data deeper than the writer's depth limit: System.Text.Json throws, Missive reports.
        var node = new Node();
        for (int i = 0; i < 100; i++)
        {
            node = new Node { Child = node };
        }

        var envelope = new MessageEnvelope<Node> { Id = "1", Source = "/s", Type = "tests.node", Message = node };
        foreach (EnvelopeSerializer serializer in new EnvelopeSerializer[] { TestSerializers.Standard(), TestSerializers.Fast(), new ProtobufEnvelopeSerializer(TestSerializers.Map()) })
        {
            using (serializer)
            {
                var e = Assert.Throws<InvalidEnvelopeException>(() => serializer.SerializeToArray(envelope));
                Assert.Equal(InvalidEnvelopeReason.InvalidData, e.Reason);
                Assert.Equal("data", e.AttributeName);
                Assert.Matches(@"\(\w+Exception\)\.$", e.Message); // what was thrown, by its type only
                Assert.Null(e.InnerException); // it may hold content: attached only with LogMessageContent on
            }
        }

        MessageTypeMap logging = TestSerializers.Map(TestSerializers.Options(o => o.LogMessageContent = true));
        using var withContent = new Utf8JsonEnvelopeSerializer(logging);
        Assert.NotNull(Assert.Throws<InvalidEnvelopeException>(() => withContent.SerializeToArray(envelope)).InnerException);
    }

    [Fact]
    public void ATypeTheContextDoesNotKnow_FailsAtStartup_UnlessReflectionIsAllowed()
    {
        var services = new ServiceCollection();
        services.AddMessageBus(bus => bus
            .AddMessageType<Unlisted>("unlisted")
            .ConfigureSerialization(o => o.JsonSerializerContext = TestJsonContext.Default));
        using ServiceProvider provider = services.BuildServiceProvider();

        // The map's error, when the serializer is first resolved (a host reports it at start with every other problem).
        var e = Assert.Throws<MessageBusConfigurationException>(() => provider.GetRequiredService<IEnvelopeSerializer>());
        Assert.Throws<MessageBusConfigurationException>(() => new MessageTypeMap(TestSerializers.Options()).Add<Unlisted>("unlisted"));

        Assert.Contains("[JsonSerializable(typeof(Unlisted))]", e.Message, StringComparison.Ordinal);
        Assert.Contains("AllowReflectionFallback", e.Message, StringComparison.Ordinal);

        var allowed = new ServiceCollection();
        allowed.AddMessageBus(bus => bus
            .AddMessageType<Unlisted>("unlisted")
            .ConfigureSerialization(o =>
            {
                o.JsonSerializerContext = TestJsonContext.Default;
                o.AllowReflectionFallback = true;
            }));
        using ServiceProvider reflecting = allowed.BuildServiceProvider();
        IEnvelopeSerializer serializer = reflecting.GetRequiredService<IEnvelopeSerializer>();
        var envelope = new MessageEnvelope<Unlisted> { Id = "1", Source = "/s", Type = "unlisted", Message = new Unlisted { Value = 7 } };
        Assert.Equal(7, ((MessageEnvelope<Unlisted>)serializer.Deserialize(serializer.SerializeToString(envelope))).Message.Value);
    }

    public sealed class Unlisted
    {
        public int Value { get; set; }
    }

    private static MessageTypeMap MapFor(SerializationOptions options)
    {
        var map = new MessageTypeMap(options);
        map.Add<JsonElement>("element");
        map.Add<JsonDocument>("document");
        map.Add<JsonNode>("node");
        map.Add<JsonObject>("object");
        map.Add<JsonArray>("array");
        map.Add<JsonValue>("value");
        return map;
    }

    private static MessageEnvelope Envelope(string kind) => kind switch
    {
        "element" => new MessageEnvelope<JsonElement> { Id = "1", Source = "/s", Type = kind, Message = JsonDocument.Parse(Json).RootElement },
        "document" => new MessageEnvelope<JsonDocument> { Id = "1", Source = "/s", Type = kind, Message = JsonDocument.Parse(Json) },
        "node" => new MessageEnvelope<JsonNode> { Id = "1", Source = "/s", Type = kind, Message = JsonNode.Parse(Json)! },
        "object" => new MessageEnvelope<JsonObject> { Id = "1", Source = "/s", Type = kind, Message = JsonNode.Parse(Json)!.AsObject() },
        "array" => new MessageEnvelope<JsonArray> { Id = "1", Source = "/s", Type = kind, Message = JsonNode.Parse(Json)!["items"]!.DeepClone().AsArray() },
        _ => new MessageEnvelope<JsonValue> { Id = "1", Source = "/s", Type = kind, Message = JsonValue.Create("Zoë & co") },
    };

    private static byte[] Write(IEnvelopeSerializer serializer, MessageEnvelope envelope) => envelope switch
    {
        MessageEnvelope<JsonElement> e => serializer.SerializeToArray(e),
        MessageEnvelope<JsonDocument> e => serializer.SerializeToArray(e),
        MessageEnvelope<JsonObject> e => serializer.SerializeToArray(e),
        MessageEnvelope<JsonArray> e => serializer.SerializeToArray(e),
        MessageEnvelope<JsonValue> e => serializer.SerializeToArray(e),
        MessageEnvelope<JsonNode> e => serializer.SerializeToArray(e),
        _ => throw new ArgumentOutOfRangeException(nameof(envelope)),
    };

    private static JsonNode? JsonOf(MessageEnvelope envelope) => envelope.GetMessage() switch
    {
        JsonElement element => JsonNode.Parse(element.GetRawText()),
        JsonDocument document => JsonNode.Parse(document.RootElement.GetRawText()),
        JsonNode node => node,
        _ => throw new ArgumentOutOfRangeException(nameof(envelope)),
    };
}
