using System;
using System.Collections.Generic;
using Google.Protobuf;
using Missive.Json;
using Missive.Protobuf;
using Missive.Serialization;
using Missive.Tests.Infrastructure;
using Missive.Tests.Protobuf.Reference;

namespace Missive.Tests.Protobuf;

/// <summary>Google.Protobuf (generated from the CloudEvents schema) is the reference: same bytes, each parses the other's.</summary>
public sealed class ProtobufInteropTests
{
    private static readonly MessageTypeMap Map = TestSerializers.Map(EnvelopeCorpus.Options());
    private static readonly ProtobufEnvelopeSerializer Protobuf = new(Map);
    private static readonly Utf8JsonEnvelopeSerializer Json = new(Map);

    public static TheoryData<string> Envelopes => EnvelopeCorpus.Names();

    [Theory]
    [MemberData(nameof(Envelopes))]
    public void Serialize_WritesExactlyWhatGoogleProtobufWrites(string name)
    {
        MessageEnvelope envelope = EnvelopeCorpus.Get(name);

        byte[] ours = Serialize(Protobuf, envelope);

        Assert.Equal(Convert.ToHexString(ReferenceEvents.From(envelope).ToByteArray()), Convert.ToHexString(ours));
    }

    [Theory]
    [MemberData(nameof(Envelopes))]
    public void Serialize_IntoWriterThatGrowsAByteAtATime_WritesTheSameBytes(string name)
    {
        MessageEnvelope envelope = EnvelopeCorpus.Get(name);
        var trickle = new TrickleBufferWriter();

        int written = SerializeInto(Protobuf, trickle, envelope);

        Assert.Equal(written, trickle.WrittenSpan.Length);
        Assert.Equal(Serialize(Protobuf, envelope), trickle.WrittenSpan.ToArray());
    }

    [Theory]
    [MemberData(nameof(Envelopes))]
    public void GoogleProtobuf_ParsesOurBytesToTheSameEvent(string name)
    {
        MessageEnvelope envelope = EnvelopeCorpus.Get(name);

        CloudEvent parsed = CloudEvent.Parser.ParseFrom(Serialize(Protobuf, envelope));

        Assert.Equal(ReferenceEvents.From(envelope), parsed);
    }

    [Theory]
    [MemberData(nameof(Envelopes))]
    public void Deserialize_GoogleProtobufBytes_InEverySplit(string name)
    {
        MessageEnvelope envelope = EnvelopeCorpus.Get(name);
        byte[] reference = ReferenceEvents.From(envelope).ToByteArray();

        foreach (Sequences.Split split in new[] { Sequences.Split.Single, Sequences.Split.OneByte, Sequences.Split.OneByteWithEmpty, Sequences.Split.Random })
        {
            EnvelopeAssert.Equal(envelope, Protobuf.Deserialize(Sequences.Create(reference, split)));
        }
    }

    [Theory]
    [MemberData(nameof(Envelopes))]
    public void Deserialize_WithUnknownFieldsOfEveryWireTypeAndOverlongVarints_ReadsTheSameEvent(string name)
    {
        MessageEnvelope envelope = EnvelopeCorpus.Get(name);
        byte[] mutated = WireMutations.Stretch(WireMutations.WithUnknownFields(ReferenceEvents.From(envelope).ToByteArray()));

        // The reference accepts the mutated bytes as the same event (compared without the unknown fields it keeps)...
        Assert.Equal(JsonFormatter.Default.Format(ReferenceEvents.From(envelope)), JsonFormatter.Default.Format(CloudEvent.Parser.ParseFrom(mutated)));

        // ...and so must we.
        EnvelopeAssert.Equal(envelope, Protobuf.Deserialize(Sequences.Create(mutated, Sequences.Split.Random)));
        EnvelopeAssert.Equal(envelope, Protobuf.Deserialize(Sequences.Create(mutated, Sequences.Split.OneByte)));
    }

    [Theory]
    [MemberData(nameof(Envelopes))]
    public void RoundTrip_JsonToProtobufAndBack_GivesAnEqualEnvelope(string name)
    {
        MessageEnvelope envelope = EnvelopeCorpus.Get(name);

        MessageEnvelope fromJson = Json.Deserialize(Serialize(Json, envelope).AsMemory());
        MessageEnvelope fromProtobuf = Protobuf.Deserialize(Serialize(Protobuf, fromJson).AsMemory());
        MessageEnvelope backToJson = Json.Deserialize(Serialize(Json, fromProtobuf).AsMemory());

        EnvelopeAssert.Equal(envelope, fromProtobuf);
        EnvelopeAssert.Equal(envelope, backToJson);
    }

    [Fact]
    public void Batch_EqualsGoogleProtobufBatchAndReadsBack()
    {
        var batch = new List<MessageEnvelope>();
        var reference = new CloudEventBatch();
        foreach ((_, MessageEnvelope envelope) in EnvelopeCorpus.All())
        {
            batch.Add(envelope);
            reference.Events.Add(ReferenceEvents.From(envelope));
        }

        var buffer = new System.Buffers.ArrayBufferWriter<byte>();
        int written = Protobuf.SerializeBatch(buffer, batch);

        Assert.Equal(written, buffer.WrittenCount);
        Assert.Equal(reference.ToByteArray(), buffer.WrittenSpan.ToArray());
        IReadOnlyList<MessageEnvelope> read = Protobuf.DeserializeBatch(Sequences.Create(buffer.WrittenSpan.ToArray(), Sequences.Split.Random));
        Assert.Equal(batch.Count, read.Count);
        for (int i = 0; i < batch.Count; i++)
        {
            EnvelopeAssert.Equal(batch[i], read[i]);
        }
    }

    [Fact]
    public void RandomEvents_MatchGoogleProtobufBothWays()
    {
        var random = new Random(20261122);
        for (int i = 0; i < 500; i++)
        {
            MessageEnvelope envelope = RandomEnvelope(random);
            byte[] ours = Serialize(Protobuf, envelope);
            CloudEvent reference = ReferenceEvents.From(envelope);

            Assert.Equal(reference.ToByteArray(), ours);
            Assert.Equal(reference, CloudEvent.Parser.ParseFrom(ours));
            EnvelopeAssert.Equal(envelope, Protobuf.Deserialize(Sequences.Create(reference.ToByteArray(), Sequences.Split.Random, seed: i)));
        }
    }

    private static MessageEnvelope<byte[]> RandomEnvelope(Random random)
    {
        var envelope = new MessageEnvelope<byte[]>
        {
            Id = RandomText(random, 1, 40),
            Source = "/src/" + random.Next(),
            Type = TestSerializers.BinaryType,
            Message = random.Next(4) == 0 ? null! : RandomBytes(random, random.Next(0, 300)),
        };
        if (random.Next(2) == 0)
        {
            envelope.Time = new DateTimeOffset(random.NextInt64(DateTimeOffset.MinValue.UtcTicks + TimeSpan.TicksPerDay, DateTimeOffset.MaxValue.UtcTicks - TimeSpan.TicksPerDay), TimeSpan.Zero);
        }

        if (random.Next(2) == 0)
        {
            envelope.DataContentType = "application/octet-stream";
        }

        int extensions = random.Next(0, 6);
        for (int i = 0; i < extensions; i++)
        {
            string name = "ext" + i;
            envelope.Extensions[name] = random.Next(7) switch
            {
                0 => CloudEventAttributeValue.FromBoolean(random.Next(2) == 0),
                1 => CloudEventAttributeValue.FromInteger(random.Next(int.MinValue, int.MaxValue)),
                2 => CloudEventAttributeValue.FromString(RandomText(random, 0, 30)),
                3 => CloudEventAttributeValue.FromBinary(RandomBytes(random, random.Next(0, 20))),
                4 => CloudEventAttributeValue.FromUri("https://example.com/" + random.Next()),
                5 => CloudEventAttributeValue.FromUriReference("/ref/" + random.Next()),
                _ => CloudEventAttributeValue.FromTimestamp(new DateTimeOffset(random.NextInt64(0, DateTimeOffset.MaxValue.UtcTicks), TimeSpan.Zero)),
            };
        }

        return envelope;
    }

    private static string RandomText(Random random, int min, int max)
    {
        const string alphabet = "abcXYZ019 -_/.é漢😀";
        var chars = new System.Text.StringBuilder();
        int length = random.Next(min, max);
        while (chars.Length < length)
        {
            int index = random.Next(alphabet.Length);
            chars.Append(char.IsHighSurrogate(alphabet[index]) ? alphabet.Substring(index, 2) : char.IsLowSurrogate(alphabet[index]) ? "x" : alphabet[index].ToString());
        }

        return chars.ToString();
    }

    private static byte[] RandomBytes(Random random, int length)
    {
        byte[] bytes = new byte[length];
        random.NextBytes(bytes);
        return bytes;
    }

    internal static byte[] Serialize(IEnvelopeSerializer serializer, MessageEnvelope envelope)
    {
        var buffer = new System.Buffers.ArrayBufferWriter<byte>();
        SerializeInto(serializer, buffer, envelope);
        return buffer.WrittenSpan.ToArray();
    }

    internal static int SerializeInto(IEnvelopeSerializer serializer, System.Buffers.IBufferWriter<byte> buffer, MessageEnvelope envelope) => envelope switch
    {
        MessageEnvelope<Order> e => serializer.Serialize(buffer, e),
        MessageEnvelope<string> e => serializer.Serialize(buffer, e),
        MessageEnvelope<byte[]> e => serializer.Serialize(buffer, e),
        MessageEnvelope<ReadOnlyMemory<byte>> e => serializer.Serialize(buffer, e),
        _ => throw new NotSupportedException(envelope.MessageType.Name),
    };
}
