using System;
using System.Buffers;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Text;
using Missive.Json;
using Missive.Serialization;
using Missive.Tests.Infrastructure;
using Xunit;
using Xunit.Abstractions;

namespace Missive.Tests.Json;

/// <summary>
/// Envelopes of the common shape are read by hand, anything else by the reader. Whatever the input, both ways must
/// give the same envelope (every attribute, extension types and data included) or the same error (reason, position
/// and message), read on its own and read where it lies before other content, as an EventBridge detail is.
/// </summary>
public sealed class CommonShapeReadTests
{
    private readonly ITestOutputHelper _output;

    public CommonShapeReadTests(ITestOutputHelper output) => _output = output;

    [Fact]
    public void Read_ByHand_ReadsAsTheReaderDoes_AtEveryCutAndEveryReplacedByte()
    {
        const string Trace = "\"traceparent\":\"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01\"";
        string order = TestSerializers.Fast().SerializeToString(Orders.Envelope(1));
        (string Document, MessageTypeMap Map)[] documents =
        [
            (order, TestSerializers.Map()),
            ("{\r\n  \"specversion\" : \"1.0\",\n\t\"type\":\"notes.text\" , \"source\":\"/s\", \"id\":\"a\", \"time\":\"2025-11-03T14:27:09Z\", \"subject\":\"sub\", \"dataschema\":\"https://x/s\", \"datacontenttype\":\"text/plain\", \"data\":\"hello\", \"ext1\":\"v\" }\r\n", TestSerializers.Map()),
            ("{\"id\":\"1\",\"source\":\"/s\",\"specversion\":\"1.0\",\"data\":\"x\",\"type\":\"notes.text\"," + Trace + "}", TestSerializers.Map()),
            ("{\"id\":\"1\",\"source\":\"/s\",\"specversion\":\"1.0\",\"type\":\"blobs.binary\",\"data_base64\":\"AAEC\"}", TestSerializers.Map()),
            ("{\"id\":\"\\u0041\",\"source\":\"/s\",\"specversion\":\"1.0\",\"type\":\"notes.text\",\"subject\":null,\"data\":\"x\\ny\"," + Trace + "}", TestSerializers.Map()),
            ("{\"id\":\"1\",\"source\":\"/s\",\"specversion\":\"1.0\",\"type\":\"tests.node\",\"data\":{\"Child\":{\"Child\":{\"Child\":{}}}},\"n\":\"1\"}", TestSerializers.Map(TestSerializers.Options(o => o.MaxJsonDepth = 5))),
            ("{\"id\":\"1\",\"source\":\"/s\",\"specversion\":\"1.0\",\"type\":\"tests.node\",\"data\":{\"Child\":{\"Child\":{\"Child\":{\"Child\":{}}}}}}", TestSerializers.Map(TestSerializers.Options(o => o.MaxJsonDepth = 5))),
            ("{\"id\":\"1\",\"source\":\"/s\",\"specversion\":\"1.0\",\"type\":\"blobs.binary\",\"data\":null,\"e\":\"v\"}", TestSerializers.Map()),
            ("{\"id\":\"1\",\"source\":\"/s\",\"specversion\":\"1.0\",\"type\":\"notes.text\",\"id\":\"2\",\"e\":\"v\",\"e\":\"w\"}", TestSerializers.Map()),
            ("{\"id\":\"1\",\"source\":\"/s\",\"specversion\":\"1.0\",\"type\":\"io.cloudevents.test\",\"extinteger\":\"5\",\"extstring\":\"s\",\"exturi\":\"https://x\",\"data\":\"t\"}", TestSerializers.ConformanceMap()),
            ("{\"id\":\"1\",\"source\":\"/s\",\"specversion\":\"1.0\",\"type\":\"unknown.type\",\"data\":{\"a\":[1,2]}}", TestSerializers.Map()),
            ("{\"id\":\"1\",\"source\":\"/s\",\"specversion\":\"1.0\",\"type\":\"Orders.OrderPlaced\",\"time\":\"2025-11-03T14:27:09.4418273+01:00\",\"data\":{\"Id\":\"o\",\"Lines\":[]},\"a\":\"x\",\"b\":\"y\"}", TestSerializers.Map(TestSerializers.Options(o => o.MaxExtensionAttributes = 1))),
        ];

        int compared = 0, failed = 0;
        foreach ((string document, MessageTypeMap map) in documents)
        {
            var byHand = new Utf8JsonEnvelopeSerializer(map);
            var byReader = new Utf8JsonEnvelopeSerializer(map) { ReadsCommonShapeByHand = false };
            foreach (byte[] variant in Variants(Encoding.UTF8.GetBytes(document)))
            {
                string expected = Outcome(byReader, variant), actual = Outcome(byHand, variant);
                if (expected != actual)
                {
                    Assert.Fail($"{Encoding.UTF8.GetString(variant)} ({Convert.ToHexString(variant)})\nby hand:   {actual}\nby reader: {expected}");
                }

                compared++;
                failed += actual.StartsWith("error", StringComparison.Ordinal) ? 1 : 0;
                byte[] leading = [.. variant, .. ",\"after\":1}"u8];
                expected = LeadingOutcome(byReader, leading);
                actual = LeadingOutcome(byHand, leading);
                if (expected != actual)
                {
                    Assert.Fail($"{Encoding.UTF8.GetString(leading)}\nby hand:   {actual}\nby reader: {expected}");
                }
            }
        }

        _output.WriteLine($"{compared} documents compared, {failed} of them errors");
        Assert.True(failed > 10_000 && compared - failed > 1_000, $"{failed} of {compared} failed: both outcomes were exercised");
    }

    [Fact]
    public void Read_CommonShape_AllocatesLessThanTheReader()
    {
        // Not a timing: the hand read must not cost more in allocation than the reader's for the same envelope.
        MessageTypeMap map = TestSerializers.Map();
        var byHand = new Utf8JsonEnvelopeSerializer(map);
        var byReader = new Utf8JsonEnvelopeSerializer(map) { ReadsCommonShapeByHand = false };
        var input = new ReadOnlySequence<byte>(byHand.SerializeToArray(Orders.Envelope(1)));
        long hand = Allocations.PerCall(() => byHand.Deserialize(input));
        long reader = Allocations.PerCall(() => byReader.Deserialize(input));
        _output.WriteLine($"by hand {hand} B, by reader {reader} B");
        Assert.True(hand <= reader, $"by hand {hand} B, by reader {reader} B");
    }

    /// <summary>The document, cut short at every byte, and with every byte replaced by structural characters, a letter, a digit and bytes that are not UTF-8.</summary>
    private static IEnumerable<byte[]> Variants(byte[] document)
    {
        yield return document;
        for (int at = 1; at < document.Length; at++)
        {
            yield return document[..at];
            foreach (byte replacement in " \n\"\\,:{}[]0xn"u8.ToArray().Append((byte)0xFF).Append((byte)0xC3))
            {
                byte[] changed = (byte[])document.Clone();
                changed[at] = replacement;
                yield return changed;
            }
        }
    }

    private static string Outcome(Utf8JsonEnvelopeSerializer serializer, byte[] input)
    {
        try
        {
            return Describe(serializer, serializer.Deserialize(new ReadOnlySequence<byte>(input)));
        }
        catch (InvalidEnvelopeException e)
        {
            return $"error {e.Reason} {e.Position} {e.Message}";
        }
    }

    /// <summary>What a leading read gives: an envelope, none (for the ordinary read to report), or the failure of its data, which no reader reads again.</summary>
    private static string LeadingOutcome(Utf8JsonEnvelopeSerializer serializer, byte[] input)
    {
        try
        {
            return ((ILeadingEnvelopeReader)serializer).TryReadLeadingEnvelope(input, out MessageEnvelope? envelope, out int length)
                ? $"leading {length} {Describe(serializer, envelope)}"
                : "none";
        }
        catch (InvalidEnvelopeException e) when (e.DataReadFailed)
        {
            return $"data failed {e.Reason} {e.Position} {e.Message}";
        }
    }

    private static string Describe(Utf8JsonEnvelopeSerializer serializer, MessageEnvelope e)
    {
        string extensions = e.ExtensionsOrNull is { } all ? string.Join('|', all.Select(x => $"{x.Key}:{x.Value.Type}:{x.Value}")) : "none";
        var written = new ArrayBufferWriter<byte>();
        try
        {
            serializer.SerializeBatch(written, [e]);
        }
        catch (InvalidEnvelopeException x)
        {
            // The batch's array is one level more: data read at the depth limit cannot be written inside it.
            return $"unwritable {x.Message}";
        }
        return $"{e.GetType().Name} {e.Id} {e.Source} {e.Type} {e.Time?.ToString("O", CultureInfo.InvariantCulture)} {e.DataContentType} {e.DataSchema} {e.Subject} [{extensions}] {Encoding.UTF8.GetString(written.WrittenSpan)}";
    }
}
