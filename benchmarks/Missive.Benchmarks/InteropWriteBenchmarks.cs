using System;
using System.Collections.Generic;
using System.Globalization;
using System.Text.Json;
using System.Text.Json.Serialization;
using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Configs;
using Missive.Transport;

namespace Missive.Benchmarks;

/// <summary>
/// Writing a message as MassTransit's and NServiceBus's services receive it, as the bus composes a publish: the body's
/// bytes and the attributes their transports read. The floor of each is System.Text.Json writing the same members from
/// plain classes to bytes (MassTransit: the envelope with its id, source, URN, message, sent time and empty headers;
/// NServiceBus: the message, and its headers as the JSON of the headers attribute), with the same attributes.
/// </summary>
[MemoryDiagnoser]
[GroupBenchmarksBy(BenchmarkLogicalGroupRule.ByCategory)]
[CategoriesColumn]
public class InteropWriteBenchmarks
{
    private const string Urn = "urn:message:Missive.Benchmarks:OrderPlaced";
    private const string FullName = "Missive.Benchmarks.OrderPlaced";
    private MessageEnvelope<OrderPlaced> _envelope = null!;
    private OutboundMessageWriter _writer = null!;
    private PlainMassTransitEnvelope<OrderPlaced> _plainMassTransit = null!;

    public static IEnumerable<int> ItemCountValues => Setup.ItemCounts;

    [ParamsSource(nameof(ItemCountValues))]
    public int ItemCount { get; set; }

    [GlobalSetup]
    public void GlobalSetup()
    {
        _envelope = Payloads.Envelope(Payloads.Order(ItemCount), Payloads.OrderType);
        _envelope.Id = Guid.NewGuid().ToString();
        _envelope.Source = "amazonsqs://eu-west-1/sales";
        _writer = new OutboundMessageWriter(Setup.Serializers);
        _plainMassTransit = new PlainMassTransitEnvelope<OrderPlaced>
        {
            MessageId = Guid.Parse(_envelope.Id),
            SourceAddress = _envelope.Source,
            MessageType = [Urn],
            Message = _envelope.Message,
            SentTime = _envelope.Time,
            Headers = [],
        };
    }

    [Benchmark(Baseline = true, Description = "Floor: JsonSerializer writing the same members from plain classes")]
    [BenchmarkCategory("MassTransit")]
    public int MassTransitFloor()
    {
        byte[] body = JsonSerializer.SerializeToUtf8Bytes(_plainMassTransit, MassTransitWriteFloorContext.Default.PlainMassTransitEnvelopeOrderPlaced);
        var attributes = new Dictionary<string, MessageAttributeValue>(StringComparer.Ordinal) { ["Content-Type"] = MessageAttributeValue.FromString("application/vnd.masstransit+json") };
        return body.Length + attributes.Count;
    }

    [Benchmark(Description = "Missive: MassTransit's envelope (PublishAsMassTransit)")]
    [BenchmarkCategory("MassTransit")]
    public int MassTransitMissive()
    {
        SqsSendRequest request = _writer.ToSqsAsMassTransit(_envelope, "warehouse", Urn, null, null);
        return request.Utf8Body.Length + request.MessageAttributes.Count;
    }

    [Benchmark(Baseline = true, Description = "Floor: JsonSerializer writing the message and the headers")]
    [BenchmarkCategory("NServiceBus")]
    public int NServiceBusFloor()
    {
        byte[] body = JsonSerializer.SerializeToUtf8Bytes(_envelope.Message, BenchJsonContext.Default.OrderPlaced);
        var headers = new Dictionary<string, string>(StringComparer.Ordinal)
        {
            ["NServiceBus.EnclosedMessageTypes"] = FullName,
            ["NServiceBus.ContentType"] = "application/json",
            ["NServiceBus.MessageIntent"] = "Send",
            ["NServiceBus.TimeSent"] = _envelope.Time!.Value.UtcDateTime.ToString("yyyy-MM-dd HH:mm:ss:ffffff 'Z'", CultureInfo.InvariantCulture),
        };
        var attributes = new Dictionary<string, MessageAttributeValue>(StringComparer.Ordinal)
        {
            ["NServiceBus.MessageId"] = MessageAttributeValue.FromString(_envelope.Id),
            ["NServiceBus.AmazonSQS.Headers"] = MessageAttributeValue.FromString(JsonSerializer.Serialize(headers, MassTransitWriteFloorContext.Default.DictionaryStringString)),
        };
        return body.Length + attributes.Count;
    }

    [Benchmark(Description = "Missive: NServiceBus's unwrapped message (PublishAsNServiceBus)")]
    [BenchmarkCategory("NServiceBus")]
    public int NServiceBusMissive()
    {
        SqsSendRequest request = _writer.ToSqsAsNServiceBus(_envelope, "invoicing", FullName, null, null);
        return request.Utf8Body.Length + request.MessageAttributes.Count;
    }
}

/// <summary>The write floors' metadata: camelCase names and no <c>null</c> members, as MassTransit writes its envelope.</summary>
[JsonSourceGenerationOptions(PropertyNamingPolicy = JsonKnownNamingPolicy.CamelCase, DefaultIgnoreCondition = JsonIgnoreCondition.WhenWritingNull)]
[JsonSerializable(typeof(PlainMassTransitEnvelope<OrderPlaced>))]
[JsonSerializable(typeof(Dictionary<string, string>))]
public sealed partial class MassTransitWriteFloorContext : JsonSerializerContext;
