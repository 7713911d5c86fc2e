using System.Buffers;
using System.Text;
using Missive.Serialization;
using Missive.Tests.Infrastructure;

namespace Missive.Tests.Serialization;

public sealed class EnvelopeFormatDetectorTests
{
    [Theory]
    [InlineData("application/cloudevents+protobuf", EnvelopeFormat.Protobuf)]
    [InlineData("application/cloudevents+protobuf; charset=binary", EnvelopeFormat.Protobuf)]
    [InlineData("  APPLICATION/CloudEvents+Protobuf  ", EnvelopeFormat.Protobuf)]
    [InlineData("application/protobuf", EnvelopeFormat.Protobuf)]
    [InlineData("application/x-protobuf", EnvelopeFormat.Protobuf)]
    [InlineData("application/cloudevents+json", EnvelopeFormat.Json)]
    [InlineData("application/json; charset=utf-8", EnvelopeFormat.Json)]
    [InlineData("text/plain", EnvelopeFormat.Json)]
    [InlineData("", EnvelopeFormat.Json)]
    public void FromContentType_NamesTheFormat(string contentType, EnvelopeFormat expected)
        => Assert.Equal(expected, EnvelopeFormatDetector.FromContentType(contentType));

    [Theory]
    [InlineData("{\"id\":\"1\"}", EnvelopeFormat.Json)]
    [InlineData(" \r\n\t{}", EnvelopeFormat.Json)]
    [InlineData("\uFEFF {}", EnvelopeFormat.Json)]
    [InlineData("[{}]", EnvelopeFormat.Json)] // JSON, so that the error says "must be a JSON object", not a protobuf problem
    [InlineData("null", EnvelopeFormat.Json)]
    [InlineData(" true", EnvelopeFormat.Json)]
    [InlineData("-1", EnvelopeFormat.Json)]
    [InlineData("7", EnvelopeFormat.Json)]
    [InlineData("2", EnvelopeFormat.Protobuf)] // 0x32 is field 6 (binary_data) as length-delimited: a protobuf tag
    [InlineData("\"text\"", EnvelopeFormat.Protobuf)] // 0x22 is field 4 (type) as length-delimited
    [InlineData("", EnvelopeFormat.Protobuf)]
    [InlineData("   ", EnvelopeFormat.Protobuf)]
    public void Detect_TellsJsonByItsFirstSignificantByte_InEverySplit(string text, EnvelopeFormat expected)
    {
        byte[] bytes = Encoding.UTF8.GetBytes(text);
        Assert.Equal(expected, EnvelopeFormatDetector.Detect(bytes));
        foreach (Sequences.Split split in new[] { Sequences.Split.Single, Sequences.Split.OneByte, Sequences.Split.OneByteWithEmpty, Sequences.Split.Random })
        {
            ReadOnlySequence<byte> sequence = Sequences.Create(bytes, split);
            Assert.Equal(expected, EnvelopeFormatDetector.Detect(sequence));
        }
    }

    [Fact]
    public void Detect_ProtobufEnvelope_IsProtobuf()
    {
        using var serializer = new Missive.Protobuf.ProtobufEnvelopeSerializer(TestSerializers.Map());
        byte[] bytes = serializer.SerializeToArray(Orders.Envelope(1));

        // The first byte of a CloudEvent is a field tag; '{' (0x7B) would be field 15, wire type 3, which the schema does not have.
        Assert.NotEqual((byte)'{', bytes[0]);
        Assert.Equal(EnvelopeFormat.Protobuf, EnvelopeFormatDetector.Detect(bytes));
    }
}
