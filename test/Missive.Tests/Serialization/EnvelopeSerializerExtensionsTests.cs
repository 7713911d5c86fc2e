using System;
using System.Text;
using Missive.Json;
using Missive.Protobuf;
using Missive.Serialization;
using Missive.Tests.Infrastructure;

namespace Missive.Tests.Serialization;

public sealed class EnvelopeSerializerExtensionsTests
{
    [Fact]
    public void SerializeToString_Json_IsTheUtf8TextOfTheCoreWrite()
    {
        using var serializer = TestSerializers.Fast();
        MessageEnvelope<Order> envelope = Orders.Envelope(2);
        var buffer = new TrickleBufferWriter();
        serializer.Serialize(buffer, envelope);

        Assert.Equal(Encoding.UTF8.GetString(buffer.WrittenSpan), serializer.SerializeToString(envelope));
        Assert.Equal(buffer.WrittenSpan.ToArray(), serializer.SerializeToArray(envelope));
    }

    [Fact]
    public void SerializeToString_Protobuf_IsBase64OfTheBytes()
    {
        using var serializer = new ProtobufEnvelopeSerializer(TestSerializers.Map());
        MessageEnvelope<Order> envelope = Orders.Envelope(2);

        string text = serializer.SerializeToString(envelope);

        Assert.Equal(Convert.ToBase64String(serializer.SerializeToArray(envelope)), text);
        EnvelopeAssert.Equal(envelope, serializer.Deserialize(text));
    }

    [Fact]
    public void Deserialize_EveryDoor_ReadsTheSameEnvelope()
    {
        using var serializer = TestSerializers.Fast();
        MessageEnvelope<Order> envelope = Orders.Envelope(3);
        byte[] bytes = serializer.SerializeToArray(envelope);

        EnvelopeAssert.Equal(envelope, serializer.Deserialize(bytes.AsMemory()));
        EnvelopeAssert.Equal(envelope, serializer.Deserialize((ReadOnlySpan<byte>)bytes));
        EnvelopeAssert.Equal(envelope, serializer.Deserialize(Encoding.UTF8.GetString(bytes)));
    }

    [Fact]
    public void DeserializeString_Protobuf_NotBase64_IsMalformed()
    {
        using var serializer = new ProtobufEnvelopeSerializer(TestSerializers.Map());

        var e = Assert.Throws<InvalidEnvelopeException>(() => serializer.Deserialize("not base64!"));

        Assert.Equal(InvalidEnvelopeReason.Malformed, e.Reason);
    }

    [Fact]
    public void Conveniences_WorkOnASerializerFromOutsideTheLibrary()
    {
        // A user's own IEnvelopeSerializer: the doors funnel into its core methods on the thread's buffer.
        using var inner = TestSerializers.Fast();
        IEnvelopeSerializer wrapper = new ForwardingSerializer(inner);
        MessageEnvelope<Order> envelope = Orders.Envelope(1);

        string text = wrapper.SerializeToString(envelope);

        Assert.Equal(inner.SerializeToString(envelope), text);
        EnvelopeAssert.Equal(envelope, wrapper.Deserialize((ReadOnlySpan<byte>)Encoding.UTF8.GetBytes(text)));
    }

    [Fact]
    public void Conveniences_OnABinarySerializerFromOutsideTheLibrary_UseBase64_AsItsFormatSays()
    {
        // Told by the serializer's Format, not by its class: a user's wrapper around protobuf is base64 text too.
        using var inner = new ProtobufEnvelopeSerializer(TestSerializers.Map());
        IEnvelopeSerializer wrapper = new ForwardingSerializer(inner);
        MessageEnvelope<Order> envelope = Orders.Envelope(2);

        string text = wrapper.SerializeToString(envelope);

        Assert.Equal(Convert.ToBase64String(inner.SerializeToArray(envelope)), text);
        EnvelopeAssert.Equal(envelope, wrapper.Deserialize(text));
    }

    [Fact]
    public void Conveniences_CalledFromInsideAConvenience_OnTheSameThread_EachGetTheirOwnBuffer()
    {
        // The thread's buffer is out while the outer call runs: a nested call (a serializer calling a convenience)
        // must get another buffer, not write over the outer envelope.
        using var inner = TestSerializers.Fast();
        MessageEnvelope<Order> outerEnvelope = Orders.Envelope(3), innerEnvelope = Orders.Envelope(1);
        string? nested = null;
        var reentrant = new ReentrantSerializer(inner, () => nested = inner.SerializeToString(innerEnvelope));

        string outer = reentrant.SerializeToString(outerEnvelope);

        Assert.Equal(inner.SerializeToString(outerEnvelope), outer);
        Assert.Equal(inner.SerializeToString(innerEnvelope), nested);
    }

    private sealed class ReentrantSerializer(IEnvelopeSerializer inner, Action during) : IEnvelopeSerializer
    {
        public string ContentType => inner.ContentType;

        public EnvelopeFormat Format => inner.Format;

        public int Serialize<T>(System.Buffers.IBufferWriter<byte> destination, MessageEnvelope<T> envelope)
        {
            int written = inner.Serialize(destination, envelope);
            during();
            return written;
        }

        public MessageEnvelope Deserialize(in System.Buffers.ReadOnlySequence<byte> source) => inner.Deserialize(source);
    }

    private sealed class ForwardingSerializer(IEnvelopeSerializer inner) : IEnvelopeSerializer
    {
        public string ContentType => inner.ContentType;

        public EnvelopeFormat Format => inner.Format;

        public int Serialize<T>(System.Buffers.IBufferWriter<byte> destination, MessageEnvelope<T> envelope) => inner.Serialize(destination, envelope);

        public MessageEnvelope Deserialize(in System.Buffers.ReadOnlySequence<byte> source) => inner.Deserialize(source);
    }

    [Fact]
    public void SerializeBatch_OnASerializerWithoutBatches_SaysSo()
    {
        IEnvelopeSerializer serializer = new SingleOnlySerializer();

        var error = Assert.Throws<NotSupportedException>(() => serializer.SerializeBatch(new System.Buffers.ArrayBufferWriter<byte>(), []));
        Assert.Contains(nameof(SingleOnlySerializer), error.Message, StringComparison.Ordinal);
        Assert.Contains(nameof(IBatchEnvelopeSerializer), error.Message, StringComparison.Ordinal);
        Assert.Throws<NotSupportedException>(() => serializer.DeserializeBatch(System.Buffers.ReadOnlySequence<byte>.Empty));
    }

    private sealed class SingleOnlySerializer : IEnvelopeSerializer
    {
        public string ContentType => "application/x-single";

        public EnvelopeFormat Format => EnvelopeFormat.Json;

        public int Serialize<T>(System.Buffers.IBufferWriter<byte> destination, MessageEnvelope<T> envelope) => 0;

        public MessageEnvelope Deserialize(in System.Buffers.ReadOnlySequence<byte> source) => throw new InvalidOperationException();
    }
}
