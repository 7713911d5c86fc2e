using System;
using System.Text.Json;

namespace Missive.Serialization;

/// <summary>What the map knows of one registered message type: its identifier, content type and codec.</summary>
internal abstract class MessageTypeInfo
{
    protected MessageTypeInfo(string identifier, string contentType, Type messageType)
    {
        Identifier = identifier;
        ContentType = contentType;
        MessageType = messageType;
    }

    /// <summary>Gets the type identifier written as the envelope's <c>type</c>.</summary>
    public string Identifier { get; }

    /// <summary>Gets the <c>datacontenttype</c> the envelope factory writes for this type.</summary>
    public string ContentType { get; }

    /// <summary>Gets the .NET message type.</summary>
    public Type MessageType { get; }

    /// <summary>Creates an empty envelope of the right generic type.</summary>
    public abstract MessageEnvelope CreateEnvelope();

    /// <summary>Reads the JSON <c>data</c> value the reader is on into the envelope's message.</summary>
    public abstract void ReadJsonData(MessageEnvelope envelope, ref Utf8JsonReader reader);

    /// <summary>
    /// This registration reading as <paramref name="bus"/>'s serializer reads: numbers also from strings (MassTransit writes
    /// <c>decimal</c> as one) and member names in any case; itself when its message is not read through System.Text.Json
    /// metadata. Each bus reads through metadata of its own, never the registration's nor the other bus's: System.Text.Json
    /// learns the member names a type's metadata meets in the spelling it meets them (MassTransit's are camelCase,
    /// NServiceBus's as declared), and metadata shared by both buses looked up every name of the second one the slow way.
    /// </summary>
    public abstract MessageTypeInfo Lenient(ForeignBus bus);

    /// <summary>Reads a DOM <c>data</c> value into the envelope's message.</summary>
    public abstract void ReadJsonData(MessageEnvelope envelope, JsonElement element);

    /// <summary>Reads binary data into the envelope's message; the array is handed over.</summary>
    public abstract void ReadBinary(MessageEnvelope envelope, byte[] data);

    /// <summary>Reads UTF-8 text data into the envelope's message.</summary>
    public abstract void ReadText(MessageEnvelope envelope, ReadOnlySpan<byte> utf8);

    /// <summary>Calls the visitor with the envelope cast to its generic type.</summary>
    /// <exception cref="System.ArgumentException">The envelope is not of this message type.</exception>
    public abstract void Accept<TVisitor>(ref TVisitor visitor, MessageEnvelope envelope)
        where TVisitor : IEnvelopeVisitor, allows ref struct;
}
