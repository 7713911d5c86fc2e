using System;
using System.Text.Json;
using Missive.Serialization.Payloads;

namespace Missive.Serialization;

/// <summary>A registered message type <typeparamref name="T"/>.</summary>
internal sealed class MessageTypeInfo<T> : MessageTypeInfo
{
    private MessageTypeInfo? _massTransit;

    private MessageTypeInfo? _nServiceBus;

    public MessageTypeInfo(string identifier, string contentType, PayloadCodec<T> codec)
        : base(identifier, contentType, typeof(T))
    {
        Codec = codec;
    }

    public PayloadCodec<T> Codec { get; }

    public override MessageTypeInfo Lenient(ForeignBus bus) => bus == ForeignBus.MassTransit
        ? _massTransit ??= LenientCopy()
        : _nServiceBus ??= LenientCopy();

    private MessageTypeInfo<T> LenientCopy()
        => Codec.Lenient() is { } codec && codec != Codec ? new MessageTypeInfo<T>(Identifier, ContentType, codec) : this;

    public override MessageEnvelope CreateEnvelope() => new MessageEnvelope<T>();

    public override void ReadJsonData(MessageEnvelope envelope, ref Utf8JsonReader reader)
        => ((MessageEnvelope<T>)envelope).Message = Codec.ReadJsonData(ref reader);

    public override void ReadJsonData(MessageEnvelope envelope, JsonElement element)
        => ((MessageEnvelope<T>)envelope).Message = Codec.ReadJsonData(element);

    public override void ReadBinary(MessageEnvelope envelope, byte[] data)
        => ((MessageEnvelope<T>)envelope).Message = Codec.ReadBinary(data);

    public override void ReadText(MessageEnvelope envelope, ReadOnlySpan<byte> utf8)
        => ((MessageEnvelope<T>)envelope).Message = Codec.ReadText(utf8, envelope.DataContentType);

    public override void Accept<TVisitor>(ref TVisitor visitor, MessageEnvelope envelope)
        => visitor.Visit((MessageEnvelope<T>)envelope, this);
}
