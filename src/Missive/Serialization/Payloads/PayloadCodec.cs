using System;
using System.Text.Json;
using System.Text.Json.Nodes;

namespace Missive.Serialization.Payloads;

/// <summary>
/// Turns a message of type <typeparamref name="T"/> into envelope data and back, for every wire
/// form: a JSON value written into the envelope's writer, a DOM node for the conventional
/// serializer, and UTF-8 text or bytes for <c>data_base64</c> and protobuf.
/// </summary>
/// <remarks>
/// Errors caused by the input (JSON that does not fit the type, bad text) surface as
/// <see cref="JsonException"/>, <see cref="FormatException"/> or <see cref="InvalidOperationException"/>;
/// the envelope readers turn them into <see cref="InvalidEnvelopeException"/>.
/// </remarks>
/// <typeparam name="T">The message type.</typeparam>
internal abstract class PayloadCodec<T>
{
    /// <summary>Gets how the data travels.</summary>
    public abstract PayloadKind Kind { get; }

    /// <summary>Gets the <c>datacontenttype</c> written for this type unless its registration names one.</summary>
    public virtual string DefaultContentType => ContentTypes.ApplicationJson;

    /// <summary>
    /// Writes the value of the data member (the serializer has written its name: <c>data_base64</c> for
    /// the <see cref="PayloadKind.Binary"/> kind, else <c>data</c>).
    /// </summary>
    public abstract void WriteJsonValue(Utf8JsonWriter writer, T message);

    /// <summary>Builds the value of the data member for the DOM-based serializer (same kinds as <see cref="WriteJsonValue"/>).</summary>
    /// <param name="message">The message, not null.</param>
    public abstract JsonNode? ToNode(T message);

    /// <summary>Reads the value of a <c>data</c> member; the reader is on its first token.</summary>
    public abstract T ReadJsonData(ref Utf8JsonReader reader);

    /// <summary>This codec reading JSON numbers also from strings and member names in any case, or itself when it reads no JSON through metadata.</summary>
    public virtual PayloadCodec<T> Lenient() => this;

    /// <summary>Reads the value of a <c>data</c> member from the DOM.</summary>
    public abstract T ReadJsonData(JsonElement element);

    /// <summary>Reads binary data (<c>data_base64</c> decoded, or protobuf <c>binary_data</c>); the array is handed over.</summary>
    public abstract T ReadBinary(byte[] data);

    /// <summary>Reads text data (protobuf <c>text_data</c>) given as UTF-8.</summary>
    /// <param name="utf8">The text.</param>
    /// <param name="contentType">The envelope's <c>datacontenttype</c>, which tells whether the text is JSON.</param>
    public abstract T ReadText(ReadOnlySpan<byte> utf8, string? contentType);

    /// <summary>
    /// Writes the data as protobuf payload bytes: UTF-8 text for the text and JSON kinds
    /// (<c>text_data</c>), raw bytes for the binary kind (<c>binary_data</c>).
    /// </summary>
    /// <param name="destination">Where the bytes go.</param>
    /// <param name="message">The message, not null.</param>
    /// <param name="contentType">The envelope's <c>datacontenttype</c>.</param>
    /// <param name="jsonWriter">A writer pointed at <paramref name="destination"/> when the size was unknown (see <see cref="GetKnownPayloadSize"/>), else <c>null</c>.</param>
    public abstract void WritePayload(System.Buffers.IBufferWriter<byte> destination, T message, string? contentType, Utf8JsonWriter? jsonWriter);

    /// <summary>Gets the payload size in bytes when it is known without writing it, else -1 (the payload is then staged).</summary>
    public virtual int GetKnownPayloadSize(T message, string? contentType) => -1;
}
