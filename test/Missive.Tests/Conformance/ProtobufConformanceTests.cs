using System.Collections.Generic;
using System.Text.Json;
using Google.Protobuf;
using Missive.Protobuf;
using Missive.Serialization;
using Missive.Tests.Protobuf;
using Missive.Tests.Infrastructure;
using Missive.Tests.Protobuf.Reference;

namespace Missive.Tests.Conformance;

/// <summary>
/// The CloudEvents protobuf conformance suite. The files hold the JSON form of the test messages;
/// Google.Protobuf's JSON parser turns each event into binary, which Missive must read to the
/// sample (valid cases) or reject with InvalidEnvelopeException (invalid cases), in every split.
/// </summary>
public sealed class ProtobufConformanceTests
{
    public static TheoryData<string, Sequences.Split> Cases(string file)
    {
        var data = new TheoryData<string, Sequences.Split>();
        foreach (JsonElement test in ConformanceData.Load("format/protobuf/" + file).GetProperty("tests").EnumerateArray())
        {
            foreach (Sequences.Split split in new[] { Sequences.Split.Single, Sequences.Split.OneByteWithEmpty, Sequences.Split.Random })
            {
                data.Add(test.GetProperty("id").GetString()!, split);
            }
        }

        return data;
    }

    public static TheoryData<string, Sequences.Split> ValidEvents => Cases("valid-events.json");

    public static TheoryData<string, Sequences.Split> InvalidEvents => Cases("invalid-events.json");

    public static TheoryData<string, Sequences.Split> ValidBatches => Cases("valid-batches.json");

    public static TheoryData<string, Sequences.Split> InvalidBatches => Cases("invalid-batches.json");

    [Theory]
    [MemberData(nameof(ValidEvents))]
    public void Deserialize_ValidEvent_ReadsTheSampleEvent(string testId, Sequences.Split split)
    {
        JsonElement test = FindTest("valid-events.json", testId);
        using var serializer = new ProtobufEnvelopeSerializer(TestSerializers.ConformanceMap());
        byte[] bytes = JsonParser.Default.Parse<CloudEvent>(test.GetProperty("validSingle").GetRawText()).ToByteArray();

        MessageEnvelope envelope = serializer.Deserialize(Sequences.Create(bytes, split));

        EnvelopeAssert.Equal(ConformanceData.SampleEvent(test.GetProperty("sampleId").GetString()!), envelope);
    }

    [Theory]
    [MemberData(nameof(InvalidEvents))]
    public void Deserialize_InvalidEvent_ThrowsInvalidEnvelopeException(string testId, Sequences.Split split)
    {
        JsonElement test = FindTest("invalid-events.json", testId);
        using var serializer = new ProtobufEnvelopeSerializer(TestSerializers.ConformanceMap());
        byte[] bytes = JsonParser.Default.Parse<CloudEvent>(test.GetProperty("invalidSingle").GetRawText()).ToByteArray();

        var error = Assert.Throws<InvalidEnvelopeException>(() => serializer.Deserialize(Sequences.Create(bytes, split)));

        Assert.Equal(bytes, error.RawBody.ToArray());
    }

    [Theory]
    [MemberData(nameof(ValidBatches))]
    public void DeserializeBatch_ValidBatch_ReadsTheSampleBatch(string testId, Sequences.Split split)
    {
        JsonElement test = FindTest("valid-batches.json", testId);
        using var serializer = new ProtobufEnvelopeSerializer(TestSerializers.ConformanceMap());
        byte[] bytes = JsonParser.Default.Parse<CloudEventBatch>(test.GetProperty("validBatch").GetRawText()).ToByteArray();

        IReadOnlyList<MessageEnvelope> batch = serializer.DeserializeBatch(Sequences.Create(bytes, split));

        List<MessageEnvelope> expected = ConformanceData.SampleBatch(test.GetProperty("sampleId").GetString()!);
        EnvelopeAssert.Equal(expected, batch);
    }

    [Theory]
    [MemberData(nameof(InvalidBatches))]
    public void DeserializeBatch_InvalidBatch_ThrowsInvalidEnvelopeException(string testId, Sequences.Split split)
    {
        JsonElement test = FindTest("invalid-batches.json", testId);
        using var serializer = new ProtobufEnvelopeSerializer(TestSerializers.ConformanceMap());
        byte[] bytes = JsonParser.Default.Parse<CloudEventBatch>(test.GetProperty("invalidBatch").GetRawText()).ToByteArray();

        Assert.Throws<InvalidEnvelopeException>(() => serializer.DeserializeBatch(Sequences.Create(bytes, split)));
    }

    [Theory]
    [MemberData(nameof(ValidEvents))]
    public void Serialize_SampleEvent_WritesGoogleProtobufsBytes(string testId, Sequences.Split split)
    {
        JsonElement test = FindTest("valid-events.json", testId);
        using var serializer = new ProtobufEnvelopeSerializer(TestSerializers.ConformanceMap());
        var sample = (MessageEnvelope<string>)ConformanceData.SampleEvent(test.GetProperty("sampleId").GetString()!);

        byte[] ours = serializer.SerializeToArray(sample);

        Assert.Equal(ReferenceEvents.From(sample).ToByteArray(), ours);
        EnvelopeAssert.Equal(sample, serializer.Deserialize(Sequences.Create(ours, split)));
    }

    private static JsonElement FindTest(string file, string testId) => ConformanceData.FindTest("format/protobuf/" + file, testId);
}
