using System;
using System.Collections.Generic;
using System.Text;
using Missive.Json;
using Missive.Serialization;
using Missive.Tests.Infrastructure;

namespace Missive.Tests.Json;

/// <summary>
/// The conventional serializer is the oracle: the fast one must write the same bytes for every
/// envelope of the corpus, and each must read what the other wrote back to an equal envelope.
/// </summary>
public sealed class JsonDifferentialTests
{
    private static readonly MessageTypeMap Map = TestSerializers.Map(EnvelopeCorpus.Options());
    private static readonly StandardJsonEnvelopeSerializer Standard = new(Map);
    private static readonly Utf8JsonEnvelopeSerializer Fast = new(Map);

    public static TheoryData<string> Envelopes => EnvelopeCorpus.Names();

    [Theory]
    [MemberData(nameof(Envelopes))]
    public void Serialize_BothSerializers_WriteIdenticalBytes(string name)
    {
        MessageEnvelope envelope = EnvelopeCorpus.Get(name);

        string standard = Encoding.UTF8.GetString(SerializeWith(Standard, envelope));
        string fast = Encoding.UTF8.GetString(SerializeWith(Fast, envelope));

        Assert.Equal(standard, fast);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void Serialize_RandomAttributeStringsAndTimes_WriteTheSameBytes_WithEitherEncoder(bool relaxed)
    {
        // The fast serializer writes plain attributes as bytes and anything else through Utf8JsonWriter: every
        // printable ASCII character, some that need escaping and some beyond ASCII, and times with every kind of
        // fraction and offset, must come out as the conventional serializer writes them.
        MessageTypeMap map = TestSerializers.Map(EnvelopeCorpus.Options(o =>
        {
            if (relaxed)
            {
                o.JsonSerializerOptions = new System.Text.Json.JsonSerializerOptions(TestJsonContext.Default.Options) { Encoder = System.Text.Encodings.Web.JavaScriptEncoder.UnsafeRelaxedJsonEscaping };
            }
        }));
        using var standard = new StandardJsonEnvelopeSerializer(map);
        using var fast = new Utf8JsonEnvelopeSerializer(map);
        var random = new Random(20261122);
        const string extra = "\u00e9\u4e2d\t\u2028";
        for (int i = 0; i < 2000; i++)
        {
            var envelope = new MessageEnvelope<string>
            {
                Id = RandomText(random, extra),
                Source = "/" + RandomText(random, extra).Replace(" ", string.Empty, StringComparison.Ordinal),
                Type = TestSerializers.TextType,
                Time = RandomTime(random),
                DataContentType = random.Next(3) switch { 0 => null, 1 => ContentTypes.ApplicationJson, _ => "text/plain; charset=" + RandomText(random, extra) },
                Subject = random.Next(2) == 0 ? null : RandomText(random, extra),
                Message = random.Next(4) == 0 ? null! : RandomText(random, extra), // no data member
            };
            if (random.Next(2) == 0)
            {
                envelope.Extensions["traceparent"] = CloudEventAttributeValue.FromString(RandomText(random, extra));
                envelope.Extensions["count"] = CloudEventAttributeValue.FromInteger(random.Next(int.MinValue, int.MaxValue));
                envelope.Extensions["flag"] = CloudEventAttributeValue.FromBoolean(random.Next(2) == 0);
            }

            if (!CloudEventRules.IsUriReference(envelope.Source))
            {
                envelope.Source = "/s";
            }

            Assert.Equal(Encoding.UTF8.GetString(SerializeWith(standard, envelope)), Encoding.UTF8.GetString(SerializeWith(fast, envelope)));
        }
    }

    [Fact]
    public void Serialize_DataAroundTheDepthLimit_SucceedsAndFailsAsTheConventionalSerializer()
    {
        // The fast serializer writes the data with a writer of its own, one level up: its limit must be one less.
        MessageTypeMap map = TestSerializers.Map(TestSerializers.Options(o => o.MaxJsonDepth = 6));
        using var standard = new StandardJsonEnvelopeSerializer(map);
        using var fast = new Utf8JsonEnvelopeSerializer(map);
        var outcomes = new List<string>();
        for (int depth = 1; depth <= 9; depth++)
        {
            var node = new Node();
            for (int i = 1; i < depth; i++)
            {
                node = new Node { Child = node };
            }

            var envelope = new MessageEnvelope<Node> { Id = "1", Source = "/s", Type = "test.node", Message = node };
            string expected = Outcome(() => standard.SerializeToString(envelope));
            Assert.Equal(expected, Outcome(() => fast.SerializeToString(envelope)));
            outcomes.Add(expected);
        }

        Assert.Contains(outcomes, o => o.StartsWith("written", StringComparison.Ordinal));
        Assert.Contains(outcomes, o => o.StartsWith("rejected", StringComparison.Ordinal));

        static string Outcome(Func<string> write)
        {
            try
            {
                return "written " + write();
            }
            catch (InvalidEnvelopeException e)
            {
                return "rejected " + e.Reason;
            }
        }
    }

    private static string RandomText(Random random, string extra)
    {
        var text = new StringBuilder();
        int length = random.Next(1, 40);
        for (int i = 0; i < length; i++)
        {
            text.Append(random.Next(20) == 0 ? extra[random.Next(extra.Length)] : (char)random.Next(0x20, 0x7F));
        }

        return text.ToString();
    }

    private static DateTimeOffset RandomTime(Random random)
    {
        var utc = new DateTime(random.NextInt64(DateTime.MinValue.Ticks + TimeSpan.TicksPerDay, DateTime.MaxValue.Ticks - TimeSpan.TicksPerDay), DateTimeKind.Utc);
        long ticks = random.Next(4) switch
        {
            0 => utc.Ticks - (utc.Ticks % TimeSpan.TicksPerSecond), // no fraction
            1 => utc.Ticks - (utc.Ticks % TimeSpan.TicksPerMillisecond), // trailing zeros
            _ => utc.Ticks,
        };
        var offset = TimeSpan.FromMinutes(random.Next(-14 * 60, (14 * 60) + 1));
        return new DateTimeOffset(new DateTime(ticks, DateTimeKind.Utc)).ToOffset(offset);
    }

    [Theory]
    [MemberData(nameof(Envelopes))]
    public void Serialize_IntoWriterThatGrowsAByteAtATime_WritesTheSameBytes(string name)
    {
        MessageEnvelope envelope = EnvelopeCorpus.Get(name);
        var trickle = new TrickleBufferWriter();

        int written = SerializeInto(Fast, trickle, envelope);

        Assert.Equal(written, trickle.WrittenSpan.Length);
        Assert.Equal(Encoding.UTF8.GetString(SerializeWith(Standard, envelope)), Encoding.UTF8.GetString(trickle.WrittenSpan));
    }

    [Theory]
    [MemberData(nameof(Envelopes))]
    public void Deserialize_EachReadsTheOthersOutput_InEverySplit(string name)
    {
        MessageEnvelope envelope = EnvelopeCorpus.Get(name);
        byte[] fromStandard = SerializeWith(Standard, envelope);
        byte[] fromFast = SerializeWith(Fast, envelope);

        foreach (Sequences.Split split in new[] { Sequences.Split.Single, Sequences.Split.OneByte, Sequences.Split.OneByteWithEmpty, Sequences.Split.Random })
        {
            MessageEnvelope byFast = Fast.Deserialize(Sequences.Create(fromStandard, split));
            MessageEnvelope byStandard = Standard.Deserialize(Sequences.Create(fromFast, split));

            EnvelopeAssert.Equal(envelope, byFast);
            EnvelopeAssert.Equal(envelope, byStandard);
            Assert.Equal(envelope.Time?.Offset, byFast.Time?.Offset);
            Assert.Equal(envelope.Time?.Offset, byStandard.Time?.Offset);
        }
    }

    [Theory]
    [MemberData(nameof(Envelopes))]
    public void Serialize_ReturnsTheNumberOfBytesWritten(string name)
    {
        MessageEnvelope envelope = EnvelopeCorpus.Get(name);
        var standardBuffer = new System.Buffers.ArrayBufferWriter<byte>();
        var fastBuffer = new System.Buffers.ArrayBufferWriter<byte>();

        Assert.Equal(standardBuffer.WrittenCount + SerializeInto(Standard, standardBuffer, envelope), standardBuffer.WrittenCount);
        Assert.Equal(SerializeInto(Fast, fastBuffer, envelope), fastBuffer.WrittenCount);
    }

    [Fact]
    public void SerializeBatch_BothSerializers_WriteIdenticalBytesAndReadBack()
    {
        var batch = new System.Collections.Generic.List<MessageEnvelope>();
        foreach ((_, MessageEnvelope envelope) in EnvelopeCorpus.All())
        {
            batch.Add(envelope);
        }

        var standardBuffer = new System.Buffers.ArrayBufferWriter<byte>();
        var fastBuffer = new System.Buffers.ArrayBufferWriter<byte>();
        Standard.SerializeBatch(standardBuffer, batch);
        Fast.SerializeBatch(fastBuffer, batch);

        Assert.Equal(Encoding.UTF8.GetString(standardBuffer.WrittenSpan), Encoding.UTF8.GetString(fastBuffer.WrittenSpan));
        var byFast = Fast.DeserializeBatch(Sequences.Create(standardBuffer.WrittenSpan.ToArray(), Sequences.Split.Random));
        var byStandard = Standard.DeserializeBatch(Sequences.Create(fastBuffer.WrittenSpan.ToArray(), Sequences.Split.OneByte));
        Assert.Equal(batch.Count, byFast.Count);
        Assert.Equal(batch.Count, byStandard.Count);
        for (int i = 0; i < batch.Count; i++)
        {
            EnvelopeAssert.Equal(batch[i], byFast[i]);
            EnvelopeAssert.Equal(batch[i], byStandard[i]);
        }
    }

    [Fact]
    public void Deserialize_DataBeforeType_IsReadOnceTheTypeIsKnown()
    {
        const string json = """{"data":{"OrderId":"A-1","Lines":[{"Sku":"S","Quantity":2}]},"id":"1","source":"/s","specversion":"1.0","type":"Orders.OrderPlaced"}""";
        const string base64First = """{"data_base64":"AQID","id":"1","source":"/s","specversion":"1.0","type":"blobs.binary"}""";

        foreach (Sequences.Split split in new[] { Sequences.Split.Single, Sequences.Split.OneByte })
        {
            var order = (MessageEnvelope<Order>)Fast.Deserialize(Sequences.Create(Encoding.UTF8.GetBytes(json), split));
            var blob = (MessageEnvelope<byte[]>)Fast.Deserialize(Sequences.Create(Encoding.UTF8.GetBytes(base64First), split));

            Assert.Equal("A-1", order.Message.OrderId);
            Assert.Equal(2, order.Message.Lines[0].Quantity);
            Assert.Equal(new byte[] { 1, 2, 3 }, blob.Message);
        }
    }

    private static byte[] SerializeWith(IEnvelopeSerializer serializer, MessageEnvelope envelope)
    {
        var buffer = new System.Buffers.ArrayBufferWriter<byte>();
        SerializeInto(serializer, buffer, envelope);
        return buffer.WrittenSpan.ToArray();
    }

    private static int SerializeInto(IEnvelopeSerializer serializer, System.Buffers.IBufferWriter<byte> buffer, MessageEnvelope envelope) => envelope switch
    {
        MessageEnvelope<Order> e => serializer.Serialize(buffer, e),
        MessageEnvelope<string> e => serializer.Serialize(buffer, e),
        MessageEnvelope<byte[]> e => serializer.Serialize(buffer, e),
        MessageEnvelope<System.ReadOnlyMemory<byte>> e => serializer.Serialize(buffer, e),
        _ => throw new System.NotSupportedException(envelope.MessageType.Name),
    };
}
