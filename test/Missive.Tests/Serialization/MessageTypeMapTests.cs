using System;
using Missive.Json;
using Missive.Serialization;
using Missive.Tests.Infrastructure;

namespace Missive.Tests.Serialization;

public sealed class MessageTypeMapTests
{
    [Fact]
    public void Add_RegistersBothDirections()
    {
        var map = new MessageTypeMap(TestSerializers.Options());
        map.Add<Order>("orders.placed");

        Assert.Equal(1, map.Count);
        Assert.True(map.TryGetTypeIdentifier(typeof(Order), out string identifier));
        Assert.Equal("orders.placed", identifier);
        Assert.True(map.TryGetMessageType("orders.placed", out Type? type));
        Assert.Equal(typeof(Order), type);
        Assert.False(map.TryGetMessageType("orders.cancelled", out _));
        Assert.False(map.TryGetTypeIdentifier(typeof(string), out _));
    }

    [Theory]
    [InlineData(typeof(Order), ContentTypes.ApplicationJson)]
    [InlineData(typeof(string), ContentTypes.TextPlain)]
    [InlineData(typeof(byte[]), ContentTypes.ApplicationOctetStream)]
    [InlineData(typeof(ReadOnlyMemory<byte>), ContentTypes.ApplicationOctetStream)]
    public void Get_GivesTheDefaultContentTypeOfTheKind(Type messageType, string contentType)
        => Assert.Equal(contentType, TestSerializers.Map().Get(messageType).ContentType);

    [Fact]
    public void Add_ExplicitContentType_IsUsedByTheFactory()
    {
        var map = new MessageTypeMap(TestSerializers.Options());
        map.Add<string>("notes.markdown", "text/markdown");

        MessageEnvelope<string> envelope = new EnvelopeFactory(map).CreateEnvelope("# hi");

        Assert.Equal("text/markdown", envelope.DataContentType);
        Assert.Equal("notes.markdown", envelope.Type);
    }

    [Fact]
    public void Add_DuplicateIdentifier_OrBadContentType_Throws()
    {
        var map = new MessageTypeMap(TestSerializers.Options());
        map.Add<Order>("orders.placed");

        Assert.Contains("already registered", Assert.Throws<MessageBusConfigurationException>(() => map.Add<string>("orders.placed")).Message, StringComparison.Ordinal);
        Assert.Contains("not a media type", Assert.Throws<MessageBusConfigurationException>(() => map.Add<string>("notes", "plain")).Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Add_AfterASerializerUsesTheMap_Throws()
    {
        MessageTypeMap map = TestSerializers.Map();
        using var serializer = new Utf8JsonEnvelopeSerializer(map);

        var e = Assert.Throws<MessageBusConfigurationException>(() => map.Add<DateTime>("dates"));
        Assert.Contains("register every type at startup", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Get_UnregisteredType_SaysHowToRegisterIt()
    {
        var e = Assert.Throws<MessageBusConfigurationException>(() => TestSerializers.Map().Get<DateTime>());
        Assert.Contains("AddMessageType<DateTime>", e.Message, StringComparison.Ordinal);
    }
}
