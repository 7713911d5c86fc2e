using System;
using System.Text;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;
using Missive.Json;
using Missive.Protobuf;
using Missive.Serialization;
using Missive.Tests.Infrastructure;

namespace Missive.Tests.Serialization;

public sealed class SerializerSettingsTests
{
    [Fact]
    public void OptionsChangedAfterTheSerializerIsBuilt_Throw_AndTheSerializerKeepsWhatItRead()
    {
        // As JsonSerializerOptions after first use: a change that what was built would ignore is refused, not lost.
        SerializationOptions options = TestSerializers.Options(o => o.MaxEnvelopeSize = 4096);
        options.ExtensionAttributeTypes["seen"] = CloudEventAttributeType.Timestamp;
        using var serializer = new Utf8JsonEnvelopeSerializer(TestSerializers.Map(options));

        var setting = Assert.Throws<InvalidOperationException>(() => options.MaxEnvelopeSize = 64);
        Assert.Contains("SerializationOptions cannot be changed", setting.Message, StringComparison.Ordinal);
        Assert.Throws<InvalidOperationException>(() => options.ExtensionAttributeTypes["seen"] = CloudEventAttributeType.String);
        Assert.Throws<InvalidOperationException>(() => options.ExtensionAttributeTypes.Add("other", CloudEventAttributeType.String));
        Assert.Throws<InvalidOperationException>(() => options.ExtensionAttributeTypes.Remove("seen"));
        Assert.Throws<InvalidOperationException>(() => options.ExtensionAttributeTypes.Clear());
        Assert.Throws<InvalidOperationException>(() => options.LogMessageContent = true);
        Assert.Throws<InvalidOperationException>(() => options.BufferPool = System.Buffers.ArrayPool<byte>.Create());
        Assert.True(options.ExtensionAttributeTypes.IsReadOnly);
        Assert.Equal(4096, options.MaxEnvelopeSize);

        string json = $$"""{"id":"1","source":"/s","specversion":"1.0","type":"{{TestSerializers.TextType}}","seen":"2025-11-03T14:27:09Z","data":"{{new string('x', 1000)}}"}""";
        MessageEnvelope envelope = serializer.Deserialize(Encoding.UTF8.GetBytes(json).AsMemory());
        Assert.Equal(CloudEventAttributeType.Timestamp, envelope.Extensions["seen"].Type);
        var tooLarge = Assert.Throws<InvalidEnvelopeException>(() => serializer.Deserialize(new byte[5000].AsMemory()));
        Assert.Contains("4096", tooLarge.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void OptionsNotYetUsed_CanBeChanged_AndAMapAloneDoesNotFreezeThem()
    {
        SerializationOptions options = TestSerializers.Options();
        var map = new MessageTypeMap(options);

        options.MaxEnvelopeSize = 2048;
        options.ExtensionAttributeTypes["seen"] = CloudEventAttributeType.Timestamp;

        Assert.False(options.ExtensionAttributeTypes.IsReadOnly);
        using var serializer = new Utf8JsonEnvelopeSerializer(map); // the first serializer freezes them
        Assert.Throws<InvalidOperationException>(() => options.MaxEnvelopeSize = 4096);
    }

    [Fact]
    public void TheBusesOptions_AreFrozenOnceItsSerializersAreBuilt()
    {
        using ServiceProvider provider = new ServiceCollection()
            .AddMessageBus(bus => bus.AddMessageType<string>("notes").ConfigureSerialization(o => o.MaxEnvelopeSize = 4096))
            .BuildServiceProvider();
        SerializationOptions options = provider.GetRequiredService<IOptions<SerializationOptions>>().Value;
        provider.GetRequiredService<IEnvelopeSerializer>();

        Assert.Throws<InvalidOperationException>(() => options.MaxEnvelopeSize = 64);
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
