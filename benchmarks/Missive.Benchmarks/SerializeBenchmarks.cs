using System.Buffers;
using System.Collections.Generic;
using System.Text.Json;
using BenchmarkDotNet.Attributes;
using Google.Protobuf;
using Missive.Buffers;
using Missive.Serialization;
using Reference = Missive.Tests.Protobuf.Reference;

namespace Missive.Benchmarks;

/// <summary>
/// Writing one envelope. Baseline: the conventional serializer to a string. The floor is
/// System.Text.Json writing the bare payload into the same kind of reused writer: the envelope's
/// overhead is measured against it.
/// </summary>
[MemoryDiagnoser]
[System.Diagnostics.CodeAnalysis.SuppressMessage("Design", "CA1001", Justification = "Disposed in GlobalCleanup, as BenchmarkDotNet drives the lifetime.")]
public class SerializeBenchmarks
{
    private readonly PooledBufferWriter _buffer = new(ArrayPool<byte>.Shared, 64 * 1024);
    private readonly ArrayBufferWriter<byte> _googleBuffer = new(64 * 1024);
    private Utf8JsonWriter _floorWriter = null!;
    private MessageEnvelope<OrderPlaced> _envelope = null!;
    private MessageEnvelope<OrderPlacedReflected> _reflected = null!;

    public static IEnumerable<int> ItemCountValues => Setup.ItemCounts;

    [ParamsSource(nameof(ItemCountValues))]
    public int ItemCount { get; set; }

    /// <summary>true: metadata from a source-generated JsonSerializerContext; false: reflection.</summary>
    [Params(true, false)]
    public bool SourceGenerated { get; set; }

    [GlobalSetup]
    public void GlobalSetup()
    {
        _envelope = Payloads.Envelope(Payloads.Order(ItemCount), Payloads.OrderType);
        _reflected = Payloads.Envelope(Payloads.Reflected(ItemCount), Payloads.ReflectedType);
        _envelope.Extensions["traceparent"] = CloudEventAttributeValue.FromString("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
        _reflected.Extensions["traceparent"] = _envelope.Extensions["traceparent"];
        _floorWriter = new Utf8JsonWriter(_buffer);
    }

    [Benchmark(Baseline = true, Description = "Standard JSON to string")]
    public string Standard() => SourceGenerated ? Setup.Standard.SerializeToString(_envelope) : Setup.Standard.SerializeToString(_reflected);

    [Benchmark(Description = "Experimental JSON to string")]
    public string Utf8ToString() => SourceGenerated ? Setup.Utf8.SerializeToString(_envelope) : Setup.Utf8.SerializeToString(_reflected);

    [Benchmark(Description = "Experimental JSON to reused IBufferWriter")]
    public int Utf8ToBuffer()
    {
        _buffer.Reset();
        return SourceGenerated ? Setup.Utf8.Serialize(_buffer, _envelope) : Setup.Utf8.Serialize(_buffer, _reflected);
    }

    [Benchmark(Description = "Protobuf to reused IBufferWriter")]
    public int ProtobufToBuffer()
    {
        _buffer.Reset();
        return SourceGenerated ? Setup.Protobuf.Serialize(_buffer, _envelope) : Setup.Protobuf.Serialize(_buffer, _reflected);
    }

    [Benchmark(Description = "Floor: bare payload, JsonSerializer into reused writer")]
    public long BarePayloadFloor()
    {
        _buffer.Reset();
        _floorWriter.Reset(_buffer);
        if (SourceGenerated)
        {
            JsonSerializer.Serialize(_floorWriter, _envelope.Message, BenchJsonContext.Default.OrderPlaced);
        }
        else
        {
            JsonSerializer.Serialize(_floorWriter, _reflected.Message, ReflectionOptions);
        }

        _floorWriter.Flush();
        return _floorWriter.BytesCommitted;
    }

    [Benchmark(Description = "Peer: Google.Protobuf generated CloudEvent")]
    public int GoogleProtobuf()
    {
        _googleBuffer.ResetWrittenCount();
        var ce = new Reference.CloudEvent { Id = _envelope.Id, Source = _envelope.Source, SpecVersion = "1.0", Type = _envelope.Type };
        ce.Attributes.Add("time", new Reference.CloudEvent.Types.CloudEventAttributeValue { CeTimestamp = Google.Protobuf.WellKnownTypes.Timestamp.FromDateTimeOffset(_envelope.Time!.Value) });
        ce.Attributes.Add("datacontenttype", new Reference.CloudEvent.Types.CloudEventAttributeValue { CeString = _envelope.DataContentType });
        ce.Attributes.Add("traceparent", new Reference.CloudEvent.Types.CloudEventAttributeValue { CeString = _envelope.Extensions["traceparent"].AsString() });
        ce.TextData = SourceGenerated ? JsonSerializer.Serialize(_envelope.Message, BenchJsonContext.Default.OrderPlaced) : JsonSerializer.Serialize(_reflected.Message, ReflectionOptions);
        ce.WriteTo(_googleBuffer);
        return _googleBuffer.WrittenCount;
    }

    [GlobalCleanup]
    public void GlobalCleanup()
    {
        _floorWriter.Dispose();
        _buffer.Dispose();
    }

    private static readonly JsonSerializerOptions ReflectionOptions = new();
}
