using System;
using System.Buffers;
using Missive.Buffers;
using Missive.Json;
using Missive.Serialization;
using Missive.Tests.Infrastructure;
using Xunit.Abstractions;

namespace Missive.Tests.Json;

/// <summary>Bytes allocated on the current thread around warmed-up calls (no timing is asserted anywhere).</summary>
public sealed class AllocationTests
{
    private readonly ITestOutputHelper _output;

    public AllocationTests(ITestOutputHelper output) => _output = output;

    [Theory]
    [InlineData(0)]
    [InlineData(1)]
    [InlineData(10)]
    [InlineData(100)]
    public void Serialize_SourceGeneratedPayloadIntoReusedWriter_AllocatesNothing(int lines)
    {
        using var serializer = TestSerializers.Fast();
        MessageEnvelope<Order> envelope = Orders.Envelope(lines);
        envelope.Extensions["priority"] = CloudEventAttributeValue.FromInteger(2);
        using var buffer = new PooledBufferWriter();

        long allocated = Allocations.SteadyPerCall(() =>
        {
            buffer.Reset();
            serializer.Serialize(buffer, envelope);
        });

        _output.WriteLine($"Serialize, {lines} lines: {allocated} bytes per call");
        Assert.Equal(0, allocated);
    }

    [Theory]
    [InlineData(1)]
    [InlineData(1000)]
    public void DefaultSerializer_ToString_AllocatesTheDomAndOneString_NotIntermediateTextAndBlocks(int lines)
    {
        // The conventional path builds a DOM; it must not also allocate an unpooled block buffer and an intermediate
        // string on top. Before it wrote through them it allocated 8,296 B at 1 line and 343,387 B at 1000 lines
        // (measured by this test); the targets are 0.7x and 0.4x of that.
        using var standard = TestSerializers.Standard();
        MessageEnvelope<Order> envelope = Orders.Envelope(lines);
        string text = standard.SerializeToString(envelope);

        long allocated = Allocations.PerCall(() => standard.SerializeToString(envelope));
        long dom = Allocations.PerCall(() => System.Text.Json.JsonSerializer.SerializeToNode(envelope.Message, TestJsonContext.Default.Order));
        long oneString = 22 + (2L * text.Length);

        _output.WriteLine($"Default serializer to string, {lines} lines: {allocated} B per call (the payload's DOM alone {dom} B, the string {oneString} B)");
        long before = lines == 1 ? 8_296 : 343_387;
        Assert.True(allocated <= (lines == 1 ? 0.7 : 0.4) * before, $"{allocated} B, {(double)allocated / before:0.00}x of the {before} B before");
    }

    [Fact]
    public void Deserialize_AllocatesOnlyWhatTheResultNeeds()
    {
        using var serializer = TestSerializers.Fast();
        using var standard = TestSerializers.Standard();
        MessageEnvelope<Order> envelope = Orders.Envelope(1);
        envelope.Extensions.Remove("traceparent"); // the envelope-only figure below counts the id and source strings
        var input = new ReadOnlySequence<byte>(serializer.SerializeToArray(envelope));

        long fast = Allocations.PerCall(() => serializer.Deserialize(input));
        long baseline = Allocations.PerCall(() => standard.Deserialize(input));

        // What the result needs: the envelope with its id and source strings, plus what System.Text.Json
        // itself allocates to read the same payload on its own (the object graph and its read state).
        byte[] payload = System.Text.Json.JsonSerializer.SerializeToUtf8Bytes(envelope.Message, TestJsonContext.Default.Order);
        long payloadAlone = Allocations.PerCall(() => System.Text.Json.JsonSerializer.Deserialize(payload, TestJsonContext.Default.Order));
        long envelopeAlone = Allocations.PerCall(() => new MessageEnvelope<Order> { Id = new string(envelope.Id), Source = new string(envelope.Source) });
        long graphAlone = Allocations.PerCall(() => CopyOf(envelope));
        _output.WriteLine($"Deserialize: fast {fast} B, standard {baseline} B; System.Text.Json reading the payload alone {payloadAlone} B, envelope object and strings {envelopeAlone} B, bare object graph {graphAlone} B");
        Assert.True(fast <= payloadAlone + envelopeAlone, $"fast read allocated {fast} B, more than {payloadAlone} B (payload alone) + {envelopeAlone} B (envelope)");
        Assert.True(fast * 2 < baseline);
    }

    private static MessageEnvelope<Order> CopyOf(MessageEnvelope<Order> envelope)
    {
        Order o = envelope.Message;
        var copy = new Order { OrderId = new string(o.OrderId), CustomerName = new string(o.CustomerName), Total = o.Total, PlacedAt = o.PlacedAt };
        foreach (OrderLine line in o.Lines)
        {
            copy.Lines.Add(new OrderLine { Sku = new string(line.Sku), Quantity = line.Quantity, UnitPrice = line.UnitPrice });
        }

        return new MessageEnvelope<Order>
        {
            Id = new string(envelope.Id),
            Source = new string(envelope.Source),
            Type = envelope.Type,
            Time = envelope.Time,
            DataContentType = envelope.DataContentType,
            Message = copy,
        };
    }
}
