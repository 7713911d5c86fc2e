using System.Collections.Generic;
using System.Text;
using System.Text.Json;
using Missive.Json;
using Missive.Serialization;
using Missive.Tests.Infrastructure;

namespace Missive.Tests.Conformance;

/// <summary>The CloudEvents JSON format conformance suite, run through both JSON serializers and every input split.</summary>
public sealed class JsonConformanceTests
{
    public static TheoryData<string, string, Sequences.Split> Cases(string file)
    {
        var data = new TheoryData<string, string, Sequences.Split>();
        foreach (JsonElement test in ConformanceData.Load("format/json/" + file).GetProperty("tests").EnumerateArray())
        {
            foreach (string serializer in new[] { "standard", "utf8" })
            {
                foreach (Sequences.Split split in new[] { Sequences.Split.Single, Sequences.Split.OneByteWithEmpty, Sequences.Split.Random })
                {
                    data.Add(serializer, test.GetProperty("id").GetString()!, split);
                }
            }
        }

        return data;
    }

    public static TheoryData<string, string, Sequences.Split> ValidEvents => Cases("valid-events.json");

    public static TheoryData<string, string, Sequences.Split> InvalidEvents => Cases("invalid-events.json");

    public static TheoryData<string, string, Sequences.Split> ValidBatches => Cases("valid-batches.json");

    public static TheoryData<string, string, Sequences.Split> InvalidBatches => Cases("invalid-batches.json");

    [Theory]
    [MemberData(nameof(ValidEvents))]
    public void Deserialize_ValidEvent_ReadsTheSampleEvent(string serializer, string testId, Sequences.Split split)
    {
        JsonElement test = FindTest("valid-events.json", testId);
        EnvelopeSerializer subject = Create(serializer);

        MessageEnvelope envelope = subject.Deserialize(Input(test.GetProperty("event"), split));

        EnvelopeAssert.Equal(ConformanceData.SampleEvent(test.GetProperty("sampleId").GetString()!), envelope);
    }

    [Theory]
    [MemberData(nameof(InvalidEvents))]
    public void Deserialize_InvalidEvent_ThrowsInvalidEnvelopeException(string serializer, string testId, Sequences.Split split)
    {
        JsonElement test = FindTest("invalid-events.json", testId);
        EnvelopeSerializer subject = Create(serializer);

        var error = Assert.Throws<InvalidEnvelopeException>(() => subject.Deserialize(Input(test.GetProperty("event"), split)));

        Assert.False(error.RawBody.IsEmpty);
    }

    [Theory]
    [MemberData(nameof(ValidBatches))]
    public void DeserializeBatch_ValidBatch_ReadsTheSampleBatch(string serializer, string testId, Sequences.Split split)
    {
        JsonElement test = FindTest("valid-batches.json", testId);
        EnvelopeSerializer subject = Create(serializer);

        IReadOnlyList<MessageEnvelope> batch = subject.DeserializeBatch(Input(test.GetProperty("batch"), split));

        List<MessageEnvelope> expected = ConformanceData.SampleBatch(test.GetProperty("sampleId").GetString()!);
        EnvelopeAssert.Equal(expected, batch);
    }

    [Theory]
    [MemberData(nameof(InvalidBatches))]
    public void DeserializeBatch_InvalidBatch_ThrowsInvalidEnvelopeException(string serializer, string testId, Sequences.Split split)
    {
        JsonElement test = FindTest("invalid-batches.json", testId);
        EnvelopeSerializer subject = Create(serializer);

        Assert.Throws<InvalidEnvelopeException>(() => subject.DeserializeBatch(Input(test.GetProperty("batch"), split)));
    }

    [Theory]
    [MemberData(nameof(ValidEvents))]
    public void Serialize_SampleEvent_RoundTripsThroughBothSerializers(string serializer, string testId, Sequences.Split split)
    {
        JsonElement test = FindTest("valid-events.json", testId);
        var sample = (MessageEnvelope<string>)ConformanceData.SampleEvent(test.GetProperty("sampleId").GetString()!);
        EnvelopeSerializer writer = Create(serializer);
        EnvelopeSerializer reader = Create(serializer == "utf8" ? "standard" : "utf8");

        byte[] bytes = writer.SerializeToArray(sample);
        MessageEnvelope back = reader.Deserialize(Sequences.Create(bytes, split));

        EnvelopeAssert.Equal(sample, back);
    }

    private static EnvelopeSerializer Create(string serializer)
    {
        MessageTypeMap map = TestSerializers.ConformanceMap();
        return serializer == "utf8" ? new Utf8JsonEnvelopeSerializer(map) : new StandardJsonEnvelopeSerializer(map);
    }

    private static System.Buffers.ReadOnlySequence<byte> Input(JsonElement element, Sequences.Split split)
        => Sequences.Create(Encoding.UTF8.GetBytes(element.GetRawText()), split);

    private static JsonElement FindTest(string file, string testId) => ConformanceData.FindTest("format/json/" + file, testId);
}
