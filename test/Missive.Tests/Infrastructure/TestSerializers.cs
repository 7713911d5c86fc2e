using System;
using Missive.Json;
using Missive.Serialization;
using Missive.Transport;

namespace Missive.Tests.Infrastructure;

/// <summary>The map and serializers most tests use: orders (source-generated), strings, bytes and the conformance type.</summary>
public static class TestSerializers
{
    public const string OrderType = "Orders.OrderPlaced";
    public const string TextType = "notes.text";
    public const string BinaryType = "blobs.binary";
    public const string MemoryType = "blobs.memory";
    public const string ConformanceType = "io.cloudevents.test";

    public static SerializationOptions Options(Action<SerializationOptions>? configure = null)
    {
        var options = new SerializationOptions { JsonSerializerContext = TestJsonContext.Default };
        configure?.Invoke(options);
        return options;
    }

    public static MessageTypeMap Map(SerializationOptions? options = null)
    {
        var map = new MessageTypeMap(options ?? Options());
        map.Add<Order>(OrderType);
        map.Add<string>(TextType);
        map.Add<byte[]>(BinaryType);
        map.Add<ReadOnlyMemory<byte>>(MemoryType);
        map.Add<Node>("tests.node");
        return map;
    }

    /// <summary>A map for the conformance data: its type carries text or no data.</summary>
    public static MessageTypeMap ConformanceMap(SerializationOptions? options = null)
    {
        options ??= Options();
        options.ExtensionAttributeTypes["extinteger"] = CloudEventAttributeType.Integer;
        options.ExtensionAttributeTypes["extboolean"] = CloudEventAttributeType.Boolean;
        options.ExtensionAttributeTypes["extstring"] = CloudEventAttributeType.String;
        options.ExtensionAttributeTypes["extbinary"] = CloudEventAttributeType.Binary;
        options.ExtensionAttributeTypes["exttimestamp"] = CloudEventAttributeType.Timestamp;
        options.ExtensionAttributeTypes["exturi"] = CloudEventAttributeType.Uri;
        options.ExtensionAttributeTypes["exturiref"] = CloudEventAttributeType.UriReference;
        var map = new MessageTypeMap(options);
        map.Add<string>(ConformanceType);
        return map;
    }

    public static StandardJsonEnvelopeSerializer Standard(MessageTypeMap? map = null) => new(map ?? Map());

    public static Utf8JsonEnvelopeSerializer Fast(MessageTypeMap? map = null) => new(map ?? Map());

    /// <summary>
    /// An inbound reader over <paramref name="json"/> and <paramref name="protobuf"/>, composed as the bus composes it:
    /// the fast serializer also reads an EventBridge detail where it lies.
    /// </summary>
    public static InboundMessageReader Inbound(IEnvelopeSerializer json, IEnvelopeSerializer? protobuf, SerializationOptions options, bool scanWrappers = true)
        => new(new EnvelopeSerializerProvider(json, protobuf), options, json as ILeadingEnvelopeReader, scanWrappers);

    /// <summary>An inbound reader over a provider, with the fast serializer as its in-place reader when it is the provider's JSON one.</summary>
    public static InboundMessageReader Inbound(EnvelopeSerializerProvider serializers, SerializationOptions options, bool scanWrappers = true)
        => new(serializers, options, serializers.GetSerializer(EnvelopeFormat.Json) as ILeadingEnvelopeReader, scanWrappers);
}
