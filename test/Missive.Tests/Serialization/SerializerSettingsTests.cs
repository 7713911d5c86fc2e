using System;
using System.Text;
using Missive.Json;
using Missive.Protobuf;
using Missive.Serialization;
using Missive.Tests.Infrastructure;

namespace Missive.Tests.Serialization;

public sealed class SerializerSettingsTests
{
    [Fact]
    public void OptionsChangedAfterTheSerializerIsBuilt_DoNotChangeIt()
    {
        SerializationOptions options = TestSerializers.Options(o => o.MaxEnvelopeSize = 4096);
        options.ExtensionAttributeTypes["seen"] = CloudEventAttributeType.Timestamp;
        using var serializer = new Utf8JsonEnvelopeSerializer(TestSerializers.Map(options));

        options.MaxEnvelopeSize = 64;
        options.ExtensionAttributeTypes["seen"] = CloudEventAttributeType.String;
        options.LogMessageContent = true;

        string json = $$"""{"id":"1","source":"/s","specversion":"1.0","type":"{{TestSerializers.TextType}}","seen":"2025-11-03T14:27:09Z","data":"{{new string('x', 1000)}}"}""";
        MessageEnvelope envelope = serializer.Deserialize(Encoding.UTF8.GetBytes(json).AsMemory());

        Assert.Equal(CloudEventAttributeType.Timestamp, envelope.Extensions["seen"].Type);
        var tooLarge = Assert.Throws<InvalidEnvelopeException>(() => serializer.Deserialize(new byte[5000].AsMemory()));
        Assert.Equal(InvalidEnvelopeReason.LimitExceeded, tooLarge.Reason);
        Assert.Contains("4096", tooLarge.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void SerializersOnOneMap_ShareOneSettingsObject()
    {
        MessageTypeMap map = TestSerializers.Map();
        using var json = new Utf8JsonEnvelopeSerializer(map);
        using var protobuf = new ProtobufEnvelopeSerializer(map);

        Assert.Same(json.Settings, protobuf.Settings);
    }

    [Fact]
    public void From_InvalidOptions_NamesTheOption()
    {
        var e = Assert.Throws<ArgumentOutOfRangeException>(() => SerializerSettings.From(new SerializationOptions { MaxJsonDepth = 1 }));
        Assert.Equal(nameof(SerializationOptions.MaxJsonDepth), e.ParamName);
    }
}
