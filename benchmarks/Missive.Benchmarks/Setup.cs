using Missive.Json;
using Missive.Protobuf;
using Missive.Serialization;
using Missive.Transport;

namespace Missive.Benchmarks;

/// <summary>The serializers every benchmark uses, built once.</summary>
public static class Setup
{
    /// <summary>Set by the quick mode before it runs (in process): fewer parameter values.</summary>
    public static bool Quick { get; set; }

    public static readonly MessageTypeMap Map = CreateMap();
    public static readonly StandardJsonEnvelopeSerializer Standard = new(Map);
    public static readonly Utf8JsonEnvelopeSerializer Utf8 = new(Map);
    public static readonly ProtobufEnvelopeSerializer Protobuf = new(Map);
    public static readonly EnvelopeSerializerProvider Serializers = new(Utf8, Protobuf);
    public static readonly InboundMessageReader Inbound = new(Serializers, Map.Options); // built as docs/serializers.md shows a user building it

    public static int[] ItemCounts => Quick ? [1, 100] : [1, 10, 100, 1000];

    private static MessageTypeMap CreateMap()
    {
        // OrderPlacedReflected is deliberately missing from the context: the reflection-based payload path is measured too.
        var map = new MessageTypeMap(new SerializationOptions { JsonSerializerContext = BenchJsonContext.Default, AllowReflectionFallback = true });
        map.Add<OrderPlaced>(Payloads.OrderType);
        map.Add<OrderPlacedReflected>(Payloads.ReflectedType);
        return map;
    }
}
