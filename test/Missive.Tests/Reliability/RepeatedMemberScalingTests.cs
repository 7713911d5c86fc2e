using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Text;
using Missive.Json;
using Missive.Protobuf;
using Missive.Serialization;
using Missive.Tests.Infrastructure;
using Missive.Transport;
using Xunit.Abstractions;

namespace Missive.Tests.Reliability;

/// <summary>
/// Hostile bodies cost in proportion to their size: every wrapper (raw, SNS, EventBridge, protobuf), with each of its
/// members repeated to fill 10 KB and then 1 MB, is read at no more than three times the cost per byte at 1 MB that it
/// has at 10 KB. A member whose every repeat redoes work over the rest of the document (a buffer rented and cleared for
/// the rest of the body, as an SNS Message once did) costs quadratic time, which anyone who can publish can use.
/// </summary>
/// <remarks>
/// Times are compared within one test, each the fastest of several rounds, with no other test running (a collection of
/// its own); a comparison over the threshold is made again, twice at most, and the lowest ratio counts, so that a
/// burst of load on a shared machine cannot fail it, while quadratic cost (13x at 1 MB for the SNS Message it found,
/// and growing with the size) fails every time.
/// </remarks>
[Collection(ProcessAllocationCollection.Name)]
public sealed class RepeatedMemberScalingTests(ITestOutputHelper output)
{
    private const int Small = 10_000;
    private const int Large = 1_000_000;
    private const double MaxRatio = 3.0;

    public static TheoryData<string, string> Cases()
    {
        var cases = new TheoryData<string, string>();
        foreach (string member in EnvelopeMembers)
        {
            cases.Add("raw", member);
        }

        foreach (string member in new[] { "Type", "MessageId", "TopicArn", "Message", "Subject", "Timestamp", "MessageAttributes", "SignatureVersion", "Unknown" })
        {
            cases.Add("sns", member);
        }

        foreach (string member in new[] { "version", "id", "detail-type", "source", "account", "time", "region", "resources", "detail", "unknown" })
        {
            cases.Add("eventbridge", member);
        }

        foreach (string field in new[] { "id", "source", "specversion", "type", "attribute", "binary_data", "text_data", "unknown" })
        {
            cases.Add("protobuf", field);
        }

        return cases;
    }

    private static readonly string[] EnvelopeMembers = ["id", "source", "specversion", "type", "time", "datacontenttype", "data", "data_base64", "subject", "dataschema", "extension"];

    [Theory]
    [MemberData(nameof(Cases))]
    public void RepeatedMember_CostsInProportionToTheBody(string wrapper, string member)
    {
        foreach (bool experimental in new[] { false, true })
        {
            MessageTypeMap map = TestSerializers.Map();
            EnvelopeSerializer json = experimental ? new Utf8JsonEnvelopeSerializer(map) : new StandardJsonEnvelopeSerializer(map);
            var reader = TestSerializers.Inbound(json, new ProtobufEnvelopeSerializer(map), map.Options);
            SqsMessage small = Body(wrapper, member, Small), large = Body(wrapper, member, Large);
            double ratio = double.MaxValue, perByteSmall = 0, perByteLarge = 0;
            for (int attempt = 0; attempt < 3 && ratio > MaxRatio; attempt++)
            {
                perByteSmall = FastestNanoseconds(reader, small, rounds: 7, reads: 100) / Size(small);
                perByteLarge = FastestNanoseconds(reader, large, rounds: 7, reads: 1) / Size(large);
                ratio = Math.Min(ratio, perByteLarge / perByteSmall);
            }

            output.WriteLine($"{wrapper} {member} ({(experimental ? "fast" : "standard")}): {perByteSmall:F2} ns/B at {Size(small):N0} B, {perByteLarge:F2} ns/B at {Size(large):N0} B, ratio {ratio:F2}");
            Assert.True(ratio <= MaxRatio, $"{wrapper} with {member} repeated ({(experimental ? "fast" : "standard")} serializer): {perByteLarge:F2} ns/B at 1 MB against {perByteSmall:F2} ns/B at 10 KB ({ratio:F1}x)");
        }
    }

    private static int Size(SqsMessage message) => message.Body.Length;

    private static double FastestNanoseconds(InboundMessageReader reader, SqsMessage message, int rounds, int reads)
    {
        Read(reader, message); // warm up

        // A refused 1 MB body allocates its raw copies on the large object heap: collect what earlier tests left, so
        // that the full collections those copies bring cost what this test's own heap costs, not the whole run's.
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();
        double fastest = double.MaxValue;
        for (int round = 0; round < rounds; round++)
        {
            long start = Stopwatch.GetTimestamp();
            for (int i = 0; i < reads; i++)
            {
                Read(reader, message);
            }

            fastest = Math.Min(fastest, Stopwatch.GetElapsedTime(start).TotalNanoseconds / reads);
        }

        return fastest;
    }

    private static void Read(InboundMessageReader reader, SqsMessage message)
    {
        try
        {
            reader.Read(message);
        }
        catch (InvalidEnvelopeException)
        {
            // Refusing it is fine; what it costs is what is measured.
        }
    }

    /// <summary>A body of about <paramref name="size"/> bytes in which <paramref name="member"/> is repeated, the last repeat before the members that make the shape.</summary>
    private static SqsMessage Body(string wrapper, string member, int size)
    {
        const string Envelope = "{\"id\":\"1\",\"source\":\"/s\",\"specversion\":\"1.0\",\"type\":\"notes.text\",\"datacontenttype\":\"text/plain\",\"data\":\"hello\"}";
        switch (wrapper)
        {
            case "raw":
                string unit = member switch
                {
                    "id" => "\"id\":\"1\",",
                    "source" => "\"source\":\"/s\",",
                    "specversion" => "\"specversion\":\"1.0\",",
                    "type" => "\"type\":\"notes.text\",",
                    "time" => "\"time\":\"2025-11-03T14:27:09Z\",",
                    "datacontenttype" => "\"datacontenttype\":\"text/plain\",",
                    "data" => "\"data\":\"hello\",",
                    "data_base64" => "\"data_base64\":\"aGVsbG8=\",",
                    "subject" => "\"subject\":\"s\",",
                    "dataschema" => "\"dataschema\":\"https://s/\",",
                    _ => "\"ext\":\"v\",",
                };
                return new SqsMessage { Body = "{" + Repeat(unit, size) + Envelope[1..] };
            case "sns":
                string escaped = Envelope.Replace("\"", "\\\"", StringComparison.Ordinal);
                string snsUnit = member switch
                {
                    "Message" => $"\"Message\":\"{escaped}\",",
                    "MessageAttributes" => "\"MessageAttributes\":{\"a\":{\"Type\":\"String\",\"Value\":\"v\"}},",
                    "Unknown" => "\"Unknown\":\"x\",",
                    _ => $"\"{member}\":\"x\",",
                };
                return new SqsMessage
                {
                    Body = "{\"Type\":\"Notification\"," + Repeat(snsUnit, size) + "\"MessageId\":\"m\",\"TopicArn\":\"arn:aws:sns:eu-west-1:1:t\",\"Type\":\"Notification\",\"Message\":\"" + escaped + "\",\"Timestamp\":\"2025-11-03T14:27:09.441Z\"}",
                };
            case "eventbridge":
                string ebUnit = member switch
                {
                    "detail" => "\"detail\":" + Envelope + ",",
                    "resources" => "\"resources\":[],",
                    _ => $"\"{member}\":\"x\",",
                };
                return new SqsMessage
                {
                    Body = "{\"version\":\"0\"," + Repeat(ebUnit, size) + "\"id\":\"e\",\"detail-type\":\"t\",\"source\":\"/s\",\"account\":\"1\",\"time\":\"2025-11-03T14:27:09Z\",\"region\":\"eu-west-1\",\"resources\":[],\"detail\":" + Envelope + "}",
                };
            default:
                return Protobuf(member, size);
        }
    }

    private static string Repeat(string unit, int size)
    {
        var text = new StringBuilder(size + unit.Length);
        while (text.Length + unit.Length < size)
        {
            text.Append(unit);
        }

        return text.ToString();
    }

    /// <summary>A protobuf CloudEvent (base64 in the body, as on SQS) with <paramref name="field"/> repeated, then the required fields.</summary>
    private static SqsMessage Protobuf(string field, int size)
    {
        var bytes = new List<byte>(size);
        void Field(int number, int wireType, byte[] value)
        {
            bytes.Add((byte)((number << 3) | wireType));
            int length = value.Length;
            while (length >= 0x80)
            {
                bytes.Add((byte)(length | 0x80));
                length >>= 7;
            }

            bytes.Add((byte)length);
            bytes.AddRange(value);
        }

        byte[] Utf8(string s) => Encoding.UTF8.GetBytes(s);
        byte[] attribute = [0x0A, 0x01, (byte)'e', 0x12, 0x03, 0x2A, 0x01, (byte)'v']; // key "e", value { ce_string: "v" }
        (int Number, byte[] Value) unit = field switch
        {
            "id" => (1, Utf8("1")),
            "source" => (2, Utf8("/s")),
            "specversion" => (3, Utf8("1.0")),
            "type" => (4, Utf8("notes.text")),
            "attribute" => (5, attribute),
            "binary_data" => (6, Utf8("hello")),
            "text_data" => (7, Utf8("hello")),
            _ => (15, Utf8("x")),
        };
        int budget = (size / 4 * 3) - 64; // base64 grows it by a third
        while (bytes.Count < budget)
        {
            Field(unit.Number, 2, unit.Value);
        }

        Field(1, 2, Utf8("1"));
        Field(2, 2, Utf8("/s"));
        Field(3, 2, Utf8("1.0"));
        Field(4, 2, Utf8("notes.text"));
        Field(7, 2, Utf8("hello"));
        return new SqsMessage
        {
            Body = Convert.ToBase64String(bytes.ToArray()),
            MessageAttributes = new Dictionary<string, MessageAttributeValue> { ["contentType"] = MessageAttributeValue.FromString("application/cloudevents+protobuf") },
        };
    }
}
