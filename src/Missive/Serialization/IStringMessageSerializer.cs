using System;

namespace Missive.Serialization;

/// <summary>
/// A string-based message serializer, for applications that already have one (for example an XML
/// serializer, or a JSON serializer other than System.Text.Json). Missive adapts it: when
/// <see cref="ContentType"/> is a JSON type the text is embedded in the envelope as JSON, otherwise
/// it travels as a JSON string (and as <c>text_data</c> in protobuf).
/// </summary>
public interface IStringMessageSerializer
{
    /// <summary>Gets the content type of the text this serializer produces; it becomes the envelope's <c>datacontenttype</c>.</summary>
    string ContentType { get; }

    /// <summary>Turns a message into text.</summary>
    /// <param name="message">The message. Must not be null.</param>
    /// <returns>The text.</returns>
    string Serialize(object message);

    /// <summary>Turns text back into a message.</summary>
    /// <param name="data">The text. Must not be null.</param>
    /// <param name="messageType">The registered message type.</param>
    /// <returns>The message.</returns>
    object Deserialize(string data, Type messageType);
}
