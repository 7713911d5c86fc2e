using System;
using System.Buffers;
using Missive.Buffers;
using Missive.Json;
using Missive.Protobuf;
using Missive.Serialization;
using Missive.Tests.Infrastructure;
using Xunit.Abstractions;

namespace Missive.Tests.Protobuf;

public sealed class ProtobufAllocationAndSizeTests
{
    private readonly ITestOutputHelper _output;

    public ProtobufAllocationAndSizeTests(ITestOutputHelper output) => _output = output;

    [Theory]
    [InlineData(0)]
    [InlineData(1)]
    [InlineData(10)]
    [InlineData(100)]
    public void Serialize_SourceGeneratedPayloadIntoReusedWriter_AllocatesNothing(int lines)
    {
        using var serializer = new ProtobufEnvelopeSerializer(TestSerializers.Map());
        MessageEnvelope<Order> envelope = Orders.Envelope(lines);
        using var buffer = new PooledBufferWriter();

        long allocated = Allocations.SteadyPerCall(() =>
        {
            buffer.Reset();
            serializer.Serialize(buffer, envelope);
        });

        _output.WriteLine($"Protobuf serialize, {lines} lines: {allocated} bytes per call");
        Assert.Equal(0, allocated);
    }

    [Fact]
    public void Serialize_BinaryAndTextPayloads_AllocateNothing()
    {
        using var serializer = new ProtobufEnvelopeSerializer(TestSerializers.Map());
        var blob = new MessageEnvelope<byte[]> { Id = "1", Source = "/s", Type = TestSerializers.BinaryType, Time = DateTimeOffset.UtcNow, Message = new byte[500] };
        var text = new MessageEnvelope<string> { Id = "1", Source = "/s", Type = TestSerializers.TextType, DataContentType = "text/plain", Message = "hello wörld" };
        using var buffer = new PooledBufferWriter();

        Assert.Equal(0, Allocations.PerCall(() => { buffer.Reset(); serializer.Serialize(buffer, blob); }));
        Assert.Equal(0, Allocations.PerCall(() => { buffer.Reset(); serializer.Serialize(buffer, text); }));
    }

    [Fact]
    public void Deserialize_AllocatesOnlyWhatTheResultNeeds()
    {
        using var serializer = new ProtobufEnvelopeSerializer(TestSerializers.Map());
        MessageEnvelope<Order> envelope = Orders.Envelope(1);
        var input = new ReadOnlySequence<byte>(serializer.SerializeToArray(envelope));
        byte[] payload = System.Text.Json.JsonSerializer.SerializeToUtf8Bytes(envelope.Message, TestJsonContext.Default.Order);

        long read = Allocations.PerCall(() => serializer.Deserialize(input));
        long payloadAlone = Allocations.PerCall(() => System.Text.Json.JsonSerializer.Deserialize(payload, TestJsonContext.Default.Order));
        long envelopeAlone = Allocations.PerCall(() =>
        {
            // The envelope and what it holds besides the message: id, source, and the traceparent extension.
            var copy = new MessageEnvelope<Order> { Id = new string(envelope.Id), Source = new string(envelope.Source) };
            copy.Extensions.Add(new string("traceparent"), CloudEventAttributeValue.FromString(new string(envelope.Extensions["traceparent"].AsString())));
            return copy;
        });

        _output.WriteLine($"Protobuf deserialize: {read} B; System.Text.Json reading the payload alone {payloadAlone} B, envelope object and strings {envelopeAlone} B");
        Assert.True(read <= payloadAlone + envelopeAlone, $"read allocated {read} B, more than {payloadAlone} + {envelopeAlone} B");
    }

    [Theory]
    [InlineData(1)]
    [InlineData(10)]
    [InlineData(100)]
    [InlineData(1000)]
    public void EnvelopeSizes_ProtobufIsSmallerThanJson(int lines)
    {
        MessageTypeMap map = TestSerializers.Map();
        using var json = new Utf8JsonEnvelopeSerializer(map);
        using var protobuf = new ProtobufEnvelopeSerializer(map);
        MessageEnvelope<Order> envelope = Orders.Envelope(lines);

        int jsonSize = json.SerializeToArray(envelope).Length;
        int protobufSize = protobuf.SerializeToArray(envelope).Length;
        int base64Size = protobuf.SerializeToString(envelope).Length;

        _output.WriteLine($"{lines} lines: JSON {jsonSize} B, protobuf {protobufSize} B ({(double)protobufSize / jsonSize:0.000} of JSON), protobuf as base64 {base64Size} B");
        Assert.True(protobufSize < jsonSize);
    }
}
