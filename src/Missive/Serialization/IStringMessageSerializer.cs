using System;

namespace Missive.Serialization;

/// <summary>
/// A string-based message serializer, for applications that already have one (for example an XML
/// serializer, or a JSON serializer other than System.Text.Json). Missive adapts it: when
/// <see cref="ContentType"/> is a JSON type the text is embedded in the envelope as JSON, otherwise
/// it travels as a JSON string (and as <c>text_data</c> in protobuf).
/// </summary>
/// <remarks>
/// When it fails, whatever it throws (its own exception types too, and an <see cref="OperationCanceledException"/>),
/// or answers <c>null</c> or an object of another type: reading, the envelope's data is invalid
/// (<see cref="InvalidEnvelopeException"/>, <see cref="InvalidEnvelopeReason.InvalidData"/>; the pump logs event 2001 and
/// the message is retried after <c>PollerOptions.RetryDelay</c>, then dead-lettered by the queue's redrive policy, body
/// intact; the Lambda processor reports it in <c>batchItemFailures</c>); writing, the publish throws that exception and
/// nothing is sent. The exception names the type thrown; the thrown exception itself, whose message may hold content, is
/// its inner exception and is logged only with <c>SerializationOptions.LogMessageContent</c> on. It is called once per
/// read or write of the data, never again for the same failure.
/// </remarks>
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
