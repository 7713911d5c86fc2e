using System;
using System.Collections.Generic;
using Missive.Protobuf;
using Missive.Serialization;
using Missive.Tests.Infrastructure;

namespace Missive.Tests.Protobuf;

/// <summary>Byte vectors derived by hand from the protobuf encoding rules, and hostile wire input.</summary>
public sealed class ProtobufWireTests
{
    private static readonly ProtobufEnvelopeSerializer Serializer = new(TestSerializers.Map());

    [Fact]
    public void Serialize_SmallEvent_MatchesTheHandDerivedBytes()
    {
        var envelope = new MessageEnvelope<string>
        {
            Id = "1",
            Source = "/s",
            Type = "notes.text",
            Time = DateTimeOffset.FromUnixTimeSeconds(1).AddTicks(1),
            DataContentType = "text/plain",
            Message = "hi",
        };
        envelope.Extensions["n"] = CloudEventAttributeValue.FromInteger(-1);
        envelope.Extensions["b"] = CloudEventAttributeValue.FromBoolean(false);

        byte[] expected =
        [
            0x0A, 0x01, (byte)'1',                                   // 1 id: tag (1<<3|2), length 1, "1"
            0x12, 0x02, (byte)'/', (byte)'s',                        // 2 source: "/s"
            0x1A, 0x03, (byte)'1', (byte)'.', (byte)'0',             // 3 spec_version: "1.0"
            0x22, 0x0A, .. "notes.text"u8,                          // 4 type
            0x2A, 0x0E,                                              // 5 attributes entry, 14 bytes
                  0x0A, 0x04, .. "time"u8,                           //   key
                  0x12, 0x06, 0x3A, 0x04,                            //   value (6 bytes): ce_timestamp (7<<3|2), 4 bytes
                              0x08, 0x01,                            //     seconds = 1
                              0x10, 0x64,                            //     nanos = 100 (one tick)
            0x2A, 0x1F,                                              // 5 attributes entry, 31 bytes: key 2+15, value 2+12
                  0x0A, 0x0F, .. "datacontenttype"u8,
                  0x12, 0x0C, 0x1A, 0x0A, .. "text/plain"u8,         //   ce_string (3<<3|2)
            0x2A, 0x10,                                              // 5 attributes entry, 16 bytes
                  0x0A, 0x01, (byte)'n',
                  0x12, 0x0B, 0x10, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, // ce_integer -1: sign-extended, ten bytes
            0x2A, 0x07,                                              // 5 attributes entry, 7 bytes
                  0x0A, 0x01, (byte)'b',
                  0x12, 0x02, 0x08, 0x00,                            //   ce_boolean false: a oneof member is written even at its default
            0x3A, 0x02, (byte)'h', (byte)'i',                        // 7 text_data "hi"
        ];

        Assert.Equal(Convert.ToHexString(expected), Convert.ToHexString(Serializer.SerializeToArray(envelope)));
        MessageEnvelope back = Serializer.Deserialize(expected.AsMemory());
        EnvelopeAssert.Equal(envelope, back);
    }

    [Fact]
    public void Serialize_LongString_UsesAMinimalTwoByteLength()
    {
        var envelope = new MessageEnvelope<string> { Id = new string('i', 200), Source = "/s", Type = "notes.text" };

        byte[] bytes = Serializer.SerializeToArray(envelope);

        Assert.Equal([0x0A, 0xC8, 0x01], bytes[..3]); // 200 = 0b1_1001000 -> C8 01
    }

    public static TheoryData<string, byte[], InvalidEnvelopeReason> Hostile => new()
    {
        { "empty", [], InvalidEnvelopeReason.MissingAttribute },
        { "length-past-end", [0x0A, 0x7F, 0x31], InvalidEnvelopeReason.Malformed },
        { "huge-length", [0x0A, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 0x31], InvalidEnvelopeReason.Malformed },
        { "truncated-varint", [0x0A, 0x80], InvalidEnvelopeReason.Malformed },
        { "eleven-byte-varint", [0x48, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01], InvalidEnvelopeReason.Malformed },
        { "wire-type-6", [0x0E, 0x00], InvalidEnvelopeReason.Malformed },
        { "wire-type-7", [0x0F, 0x00], InvalidEnvelopeReason.Malformed },
        { "field-zero", [0x02, 0x00], InvalidEnvelopeReason.Malformed },
        { "truncated-fixed64", [0x49, 1, 2, 3], InvalidEnvelopeReason.Malformed },
        { "unterminated-group", [0x4B, 0x48, 0x01], InvalidEnvelopeReason.Malformed },
        { "mismatched-group-end", [0x4B, 0x54], InvalidEnvelopeReason.Malformed },
        { "stray-group-end", [0x4C], InvalidEnvelopeReason.Malformed },
        { "deep-groups", [.. Repeat(0x4B, 40), .. Repeat(0x4C, 40)], InvalidEnvelopeReason.LimitExceeded },
    };

    [Theory]
    [MemberData(nameof(Hostile))]
    public void Deserialize_HostileWire_ThrowsTypedException(string name, byte[] input, InvalidEnvelopeReason reason)
    {
        foreach (Sequences.Split split in new[] { Sequences.Split.Single, Sequences.Split.OneByteWithEmpty })
        {
            var error = Assert.Throws<InvalidEnvelopeException>(() => Serializer.Deserialize(Sequences.Create(input, split)));
            Assert.True(reason == error.Reason, $"{name}: expected {reason}, got {error.Reason}: {error.Message}");
        }
    }

    public static TheoryData<string, byte[], InvalidEnvelopeReason> BadEvents()
    {
        byte[] head = [0x0A, 0x01, (byte)'1', 0x12, 0x02, (byte)'/', (byte)'s', 0x1A, 0x03, (byte)'1', (byte)'.', (byte)'0', 0x22, 0x0A, .. "notes.text"u8];
        return new()
        {
            { "invalid-utf8-id", [0x0A, 0x01, 0xC3, .. head[3..]], InvalidEnvelopeReason.Malformed },
            { "invalid-utf8-text-data", [.. head, 0x3A, 0x02, 0xC3, 0x28], InvalidEnvelopeReason.Malformed },
            { "spec-0.3", [.. head[..7], 0x1A, 0x03, (byte)'0', (byte)'.', (byte)'3', .. head[12..]], InvalidEnvelopeReason.UnsupportedFormat },
            { "missing-type", head[..12], InvalidEnvelopeReason.MissingAttribute },
            { "unknown-type", [.. head[..12], 0x22, 0x03, (byte)'x', (byte)'y', (byte)'z'], InvalidEnvelopeReason.UnknownMessageType },
            { "integer-out-of-range", [.. head, 0x2A, 0x0B, 0x0A, 0x01, (byte)'n', 0x12, 0x06, 0x10, 0x80, 0x80, 0x80, 0x80, 0x10], InvalidEnvelopeReason.Malformed },
            { "value-without-case", [.. head, 0x2A, 0x05, 0x0A, 0x01, (byte)'n', 0x12, 0x00], InvalidEnvelopeReason.InvalidAttribute },
            { "entry-without-value", [.. head, 0x2A, 0x03, 0x0A, 0x01, (byte)'n'], InvalidEnvelopeReason.InvalidAttribute },
            { "reserved-name-in-map", [.. head, 0x2A, 0x08, 0x0A, 0x02, (byte)'i', (byte)'d', 0x12, 0x02, 0x08, 0x01], InvalidEnvelopeReason.InvalidAttribute },
            { "uppercase-name", [.. head, 0x2A, 0x07, 0x0A, 0x01, (byte)'N', 0x12, 0x02, 0x08, 0x01], InvalidEnvelopeReason.InvalidAttribute },
            { "time-as-string", [.. head, 0x2A, 0x0B, 0x0A, 0x04, .. "time"u8, 0x12, 0x03, 0x1A, 0x01, (byte)'x'], InvalidEnvelopeReason.InvalidAttribute },
            { "nanos-out-of-range", [.. head, 0x2A, 0x10, 0x0A, 0x04, .. "time"u8, 0x12, 0x08, 0x3A, 0x06, 0x10, 0x80, 0x94, 0xEB, 0xDC, 0x03], InvalidEnvelopeReason.InvalidAttribute },
            { "uri-not-absolute", [.. head, 0x2A, 0x08, 0x0A, 0x01, (byte)'u', 0x12, 0x03, 0x2A, 0x01, (byte)'/'], InvalidEnvelopeReason.InvalidAttribute },
            { "proto-data", [.. head, 0x42, 0x00], InvalidEnvelopeReason.UnsupportedFormat },
            { "json-data-that-does-not-fit", [0x0A, 0x01, (byte)'1', 0x12, 0x02, (byte)'/', (byte)'s', 0x1A, 0x03, (byte)'1', (byte)'.', (byte)'0', 0x22, 0x12, .. "Orders.OrderPlaced"u8, 0x3A, 0x0C, .. "{\"Total\":[]}"u8], InvalidEnvelopeReason.InvalidData },
        };
    }

    [Theory]
    [MemberData(nameof(BadEvents))]
    public void Deserialize_BadEvent_ThrowsTypedException(string name, byte[] input, InvalidEnvelopeReason reason)
    {
        foreach (Sequences.Split split in new[] { Sequences.Split.Single, Sequences.Split.OneByte })
        {
            var error = Assert.Throws<InvalidEnvelopeException>(() => Serializer.Deserialize(Sequences.Create(input, split)));
            Assert.True(reason == error.Reason, $"{name}: expected {reason}, got {error.Reason}: {error.Message}");
            Assert.Equal(input, error.RawBody.ToArray());
        }
    }

    [Fact]
    public void Deserialize_RepeatedFieldsAndMapKeys_LastOneWins()
    {
        byte[] input =
        [
            0x0A, 0x01, (byte)'1', 0x0A, 0x01, (byte)'2',
            0x12, 0x02, (byte)'/', (byte)'s', 0x1A, 0x03, (byte)'1', (byte)'.', (byte)'0', 0x22, 0x0C, .. "blobs.binary"u8,
            0x2A, 0x07, 0x0A, 0x01, (byte)'n', 0x12, 0x02, 0x10, 0x01,
            0x2A, 0x07, 0x0A, 0x01, (byte)'n', 0x12, 0x02, 0x10, 0x02,
            0x32, 0x01, 0xAA, 0x32, 0x01, 0xBB,
        ];

        var envelope = (MessageEnvelope<byte[]>)Serializer.Deserialize(input.AsMemory());

        Assert.Equal("2", envelope.Id);
        Assert.Equal(2, envelope.Extensions["n"].AsInteger());
        Assert.Single(envelope.Extensions);
        Assert.Equal(new byte[] { 0xBB }, envelope.Message);
    }

    [Fact]
    public void Deserialize_NegativeIntegerInFiveBytes_IsReadAsTwosComplement()
    {
        byte[] head = [0x0A, 0x01, (byte)'1', 0x12, 0x02, (byte)'/', (byte)'s', 0x1A, 0x03, (byte)'1', (byte)'.', (byte)'0', 0x22, 0x0A, .. "notes.text"u8];
        byte[] input = [.. head, 0x2A, 0x0B, 0x0A, 0x01, (byte)'n', 0x12, 0x06, 0x10, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F]; // 0xFFFFFFFF in five bytes

        var envelope = Serializer.Deserialize(input.AsMemory());

        Assert.Equal(-1, envelope.Extensions["n"].AsInteger());
    }

    [Fact]
    public void Deserialize_OverTheSizeLimit_IsRejectedBeforeReading()
    {
        using var serializer = new ProtobufEnvelopeSerializer(TestSerializers.Map(TestSerializers.Options(o => o.MaxEnvelopeSize = 100)));

        var error = Assert.Throws<InvalidEnvelopeException>(() => serializer.Deserialize(new byte[101].AsMemory()));

        Assert.Equal(InvalidEnvelopeReason.LimitExceeded, error.Reason);
    }

    [Fact]
    public void Deserialize_TooManyExtensions_IsRejected()
    {
        var envelope = new MessageEnvelope<string> { Id = "1", Source = "/s", Type = "notes.text" };
        for (int i = 0; i < 65; i++)
        {
            envelope.Extensions["e" + i] = CloudEventAttributeValue.FromInteger(i);
        }

        byte[] bytes = Serializer.SerializeToArray(envelope);

        Assert.Equal(InvalidEnvelopeReason.LimitExceeded, Assert.Throws<InvalidEnvelopeException>(() => Serializer.Deserialize(bytes.AsMemory())).Reason);
    }

    [Fact]
    public void Deserialize_AttributeValueOverTheLimit_IsRejectedBeforeDecoding()
    {
        var envelope = new MessageEnvelope<string> { Id = new string('i', 70_000), Source = "/s", Type = "notes.text" };
        var extension = new MessageEnvelope<string> { Id = "1", Source = "/s", Type = "notes.text" };
        extension.Extensions["big"] = CloudEventAttributeValue.FromBinary(new byte[70_000]);

        var id = Assert.Throws<InvalidEnvelopeException>(() => Serializer.Deserialize(Serializer.SerializeToArray(envelope).AsMemory()));
        var big = Assert.Throws<InvalidEnvelopeException>(() => Serializer.Deserialize(Serializer.SerializeToArray(extension).AsMemory()));

        Assert.Equal(InvalidEnvelopeReason.LimitExceeded, id.Reason);
        Assert.Equal("id", id.AttributeName);
        Assert.Equal(InvalidEnvelopeReason.LimitExceeded, big.Reason);
        Assert.Equal("big", big.AttributeName);
    }

    [Fact]
    public void TextConveniences_UseBase64()
    {
        var envelope = new MessageEnvelope<string> { Id = "1", Source = "/s", Type = "notes.text", Message = "hi" };

        string text = Serializer.SerializeToString(envelope);

        Assert.Equal(Convert.ToBase64String(Serializer.SerializeToArray(envelope)), text);
        Assert.Equal("hi", ((MessageEnvelope<string>)Serializer.Deserialize(text)).Message);
        Assert.Equal(InvalidEnvelopeReason.Malformed, Assert.Throws<InvalidEnvelopeException>(() => Serializer.Deserialize("not base64!")).Reason);
    }

    private static byte[] Repeat(byte value, int count)
    {
        var list = new List<byte>();
        for (int i = 0; i < count; i++)
        {
            list.Add(value);
        }

        return list.ToArray();
    }
}
