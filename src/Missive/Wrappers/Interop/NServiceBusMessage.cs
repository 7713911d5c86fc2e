using System;
using System.Buffers.Text;
using System.Collections.Generic;
using System.Collections.ObjectModel;
using System.Globalization;
using System.Text.Json;
using System.Threading;
using Missive.Buffers;
using Missive.Lexing;
using Missive.Serialization;

namespace Missive.Transport;

/// <summary>
/// A message an NServiceBus endpoint sent through its SQS transport, in any of its three shapes: the wrapped transport
/// message (a JSON body with <c>Body</c> in base64, <c>S3BodyKey</c> and <c>Headers</c>), the unwrapped body with its
/// headers as JSON in the <c>NServiceBus.AmazonSQS.Headers</c> attribute, and a native message whose type is in the
/// <c>MessageTypeFullName</c> attribute. The transport's receiver tries them in that order of attributes first, as
/// here: the headers attribute, then <c>MessageTypeFullName</c>, then the wrapper.
/// </summary>
internal sealed class NServiceBusMessage
{
    public const string HeadersAttribute = "NServiceBus.AmazonSQS.Headers";
    public const string MessageTypeFullNameAttribute = "MessageTypeFullName";
    public const string MessageIdHeader = "NServiceBus.MessageId";
    public const string EnclosedMessageTypesHeader = "NServiceBus.EnclosedMessageTypes";
    public const string S3BodyKeyName = "S3BodyKey";
    private const string ContentTypeHeader = "NServiceBus.ContentType";
    private const string ConversationIdHeader = "NServiceBus.ConversationId";
    private const string CorrelationIdHeader = "NServiceBus.CorrelationId";
    private const string MessageIntentHeader = "NServiceBus.MessageIntent";
    private const string TimeSentHeader = "NServiceBus.TimeSent";
    private const string ReplyToAddressHeader = "NServiceBus.ReplyToAddress";
    private const string OriginatingEndpointHeader = "NServiceBus.OriginatingEndpoint";
    private const string TimeSentFormat = "yyyy-MM-dd HH:mm:ss:ffffff 'Z'";

    /// <summary>The names of the headers NServiceBus sets on every message, read without making a string of each for each message.</summary>
    private static readonly string[] CommonHeaderNames =
    [
        MessageIdHeader, EnclosedMessageTypesHeader, ContentTypeHeader, ConversationIdHeader, CorrelationIdHeader,
        MessageIntentHeader, TimeSentHeader, ReplyToAddressHeader, OriginatingEndpointHeader,
        "NServiceBus.OriginatingMachine", "NServiceBus.Version", "NServiceBus.RelatedTo", "$.diagnostics.originating.hostid", S3BodyKeyName,
    ];

    private static readonly byte[][] CommonHeaderNamesUtf8 = Array.ConvertAll(CommonHeaderNames, System.Text.Encoding.UTF8.GetBytes);

    /// <summary>
    /// Which of <see cref="CommonHeaderNames"/> carry a value an endpoint sends again and again (its types, content type,
    /// intent, addresses, machine, version), rather than one new for each message (ids, times).
    /// </summary>
    private static readonly bool[] RepeatedValues = Array.ConvertAll(CommonHeaderNames, name => name is EnclosedMessageTypesHeader or ContentTypeHeader
        or MessageIntentHeader or ReplyToAddressHeader or OriginatingEndpointHeader or "NServiceBus.OriginatingMachine" or "NServiceBus.Version"
        or "$.diagnostics.originating.hostid");

    /// <summary>The last value read of each header of <see cref="RepeatedValues"/>, so that an equal one is matched as bytes, not decoded again.</summary>
    private static readonly HeaderValue?[] s_lastValues = new HeaderValue?[CommonHeaderNames.Length];

    /// <summary>The enclosed types last read: an endpoint's messages repeat one header, so it is split and named once.</summary>
    private static EnclosedTypes? s_lastEnclosedTypes;

    /// <summary>The length of the wrapper's <c>Body</c> as it stands in the SQS body, between its quotes.</summary>
    private readonly int _wrappedBodyLength;

    /// <summary>Whether the wrapper's <c>Body</c> has JSON escapes (the transport's encoder writes <c>+</c> as <c>\u002B</c>).</summary>
    private readonly bool _wrappedBodyEscaped;

    /// <summary>The headers Missive maps, noted as the headers were read.</summary>
    private readonly KnownHeaders _known;

    private NServiceBusMessage(IReadOnlyDictionary<string, string> headers, KnownHeaders known, string enclosedMessageTypes, int wrappedBodyStart, string? s3BodyKey, int wrappedBodyLength = 0, bool wrappedBodyEscaped = false)
    {
        Headers = headers;
        _known = known;
        EnclosedTypes types = EnclosedTypes.Of(enclosedMessageTypes);
        EnclosedMessageTypesAsSent = types.AsSent;
        EnclosedTypeNames = types.Names;
        WrappedBodyStart = wrappedBodyStart;
        S3BodyKey = s3BodyKey;
        _wrappedBodyLength = wrappedBodyLength;
        _wrappedBodyEscaped = wrappedBodyEscaped;
    }

    /// <summary>Gets the headers (empty for a native message with only <c>MessageTypeFullName</c>).</summary>
    public IReadOnlyDictionary<string, string> Headers { get; }

    /// <summary>Gets the message types as sent (assembly-qualified or not), most specific first.</summary>
    public IReadOnlyList<string> EnclosedMessageTypesAsSent { get; }

    /// <summary>Gets the full names of <see cref="EnclosedMessageTypesAsSent"/>, without their assemblies: what rules match.</summary>
    public string[] EnclosedTypeNames { get; }

    /// <summary>Gets where the wrapper's <c>Body</c> string starts in the SQS body, or -1 when the body is the message itself.</summary>
    public int WrappedBodyStart { get; }

    /// <summary>Gets the S3 key of a body NServiceBus put in S3, or <c>null</c>.</summary>
    public string? S3BodyKey { get; }

    /// <summary>
    /// The NServiceBus message <paramref name="body"/> and <paramref name="attributes"/> make, or <c>null</c> when they
    /// are not one (no headers attribute, no <c>MessageTypeFullName</c>, and no wrapper with an
    /// <c>NServiceBus.EnclosedMessageTypes</c> header).
    /// </summary>
    /// <exception cref="InvalidEnvelopeException">The headers attribute is not a JSON object of strings.</exception>
    public static NServiceBusMessage? Recognise(ReadOnlySpan<byte> body, IReadOnlyDictionary<string, MessageAttributeValue> attributes, JsonReaderOptions options)
    {
        if (attributes.Count > 0)
        {
            if (attributes.TryGetValue(HeadersAttribute, out MessageAttributeValue? headersAttribute) && headersAttribute.StringValue is { } json)
            {
                KnownHeaders known = default;
                Dictionary<string, string> headers = ReadHeadersAttribute(json, ref known);
                return known.EnclosedMessageTypes is { } types ? new NServiceBusMessage(headers, known, types, -1, known.S3BodyKey) : null;
            }

            if (attributes.TryGetValue(MessageTypeFullNameAttribute, out MessageAttributeValue? typeAttribute) && typeAttribute.StringValue is { Length: > 0 } type)
            {
                string? keyOfS3 = attributes.TryGetValue(S3BodyKeyName, out MessageAttributeValue? key) ? key.StringValue : null;
                return new NServiceBusMessage(ReadOnlyDictionary<string, string>.Empty, default, type, -1, keyOfS3);
            }
        }

        return body.IndexOf("\"Headers\""u8) < 0 || body.IndexOf("\"Body\""u8) < 0 ? null : RecogniseWrapper(body, options);
    }

    /// <summary>The wrapped transport message: a JSON object whose <c>Headers</c> name the message types and whose <c>Body</c> is a string.</summary>
    private static NServiceBusMessage? RecogniseWrapper(ReadOnlySpan<byte> body, JsonReaderOptions options)
    {
        var reader = new Utf8JsonReader(body, options);
        Dictionary<string, string>? headers = null;
        KnownHeaders known = default;
        int bodyStart = -1, bodyLength = 0;
        bool bodyEscaped = false;
        string? s3BodyKey = null;
        try
        {
            if (!reader.Read() || reader.TokenType != JsonTokenType.StartObject)
            {
                return null;
            }

            while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
            {
                bool isBody = reader.ValueTextEquals("Body"u8), isHeaders = reader.ValueTextEquals("Headers"u8), isKey = reader.ValueTextEquals("S3BodyKey"u8);
                reader.Read();
                if (isBody && reader.TokenType == JsonTokenType.String)
                {
                    // Where it stands, so that the reader decodes it from there without tokenizing it again.
                    bodyStart = (int)reader.TokenStartIndex;
                    bodyLength = reader.ValueSpan.Length;
                    bodyEscaped = reader.ValueIsEscaped;
                }
                else if (isHeaders && reader.TokenType == JsonTokenType.StartObject)
                {
                    headers = ReadHeaders(ref reader, ref known);
                }
                else if (isKey && reader.TokenType == JsonTokenType.String)
                {
                    s3BodyKey = reader.GetString();
                }
                else
                {
                    reader.Skip();
                }
            }
        }
        catch (JsonException)
        {
            return null; // not the transport's wrapper: a later rule, or the reader of its type, says what is wrong
        }

        return headers is not null && bodyStart >= 0 && known.EnclosedMessageTypes is { } types
            ? new NServiceBusMessage(headers, known, types, bodyStart, s3BodyKey, bodyLength, bodyEscaped)
            : null;
    }

    private static Dictionary<string, string> ReadHeadersAttribute(string json, ref KnownHeaders known)
    {
        try
        {
            var reader = new Utf8JsonReader(System.Text.Encoding.UTF8.GetBytes(json));
            if (reader.Read() && reader.TokenType == JsonTokenType.StartObject)
            {
                Dictionary<string, string> headers = ReadHeaders(ref reader, ref known);
                if (!reader.Read())
                {
                    return headers;
                }
            }
        }
        catch (JsonException)
        {
        }

        throw ThrowHelper.Create(InvalidEnvelopeReason.Malformed, $"The {HeadersAttribute} message attribute is not a JSON object of header names and values");
    }

    /// <summary>
    /// The headers object the reader is on: string values kept (and those Missive maps noted in <paramref name="known"/>),
    /// <c>null</c> values left out, anything else refused.
    /// </summary>
    private static Dictionary<string, string> ReadHeaders(ref Utf8JsonReader reader, ref KnownHeaders known)
    {
        var headers = new Dictionary<string, string>(CommonHeaderNames.Length, StringComparer.Ordinal); // room for what an endpoint sets, without growing
        while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
        {
            int common = CommonHeader(ref reader);
            string name = common >= 0 ? CommonHeaderNames[common] : reader.GetString()!;
            reader.Read();
            if (reader.TokenType == JsonTokenType.String)
            {
                string value = common >= 0 && RepeatedValues[common] ? RepeatedValue(ref reader, common) : reader.GetString()!;
                headers[name] = value;
                known.Note(name, value);
            }
            else if (reader.TokenType != JsonTokenType.Null)
            {
                throw new JsonException($"The header {name} is not a string.");
            }
        }

        return headers;
    }

    /// <summary>The index in <see cref="CommonHeaderNames"/> of the header name the reader is on, or -1 when it is none of them.</summary>
    private static int CommonHeader(ref Utf8JsonReader reader)
    {
        if (!reader.ValueIsEscaped)
        {
            ReadOnlySpan<byte> name = reader.ValueSpan;
            for (int i = 0; i < CommonHeaderNamesUtf8.Length; i++)
            {
                if (name.SequenceEqual(CommonHeaderNamesUtf8[i]))
                {
                    return i;
                }
            }
        }

        return -1;
    }

    /// <summary>The string value the reader is on, of the common header at <paramref name="common"/>: the one read last when the bytes are equal.</summary>
    private static string RepeatedValue(ref Utf8JsonReader reader, int common)
    {
        HeaderValue? last = Volatile.Read(ref s_lastValues[common]);
        if (last is not null && reader.ValueTextEquals(last.Utf8))
        {
            return last.Text;
        }

        string value = reader.GetString()!;
        Volatile.Write(ref s_lastValues[common], new HeaderValue(value));
        return value;
    }

    /// <summary>The full name given (up to its assembly), or <typeparamref name="T"/>'s own.</summary>
    /// <exception cref="ArgumentException">The name is empty, or <typeparamref name="T"/> has no full name and none is given.</exception>
    public static string CheckedName<T>(string? messageTypeFullName)
    {
        string name = messageTypeFullName ?? typeof(T).FullName ?? throw new ArgumentException($"{typeof(T).Name} has no full name: give the name the NServiceBus side uses.", nameof(messageTypeFullName));
        ArgumentException.ThrowIfNullOrWhiteSpace(name, nameof(messageTypeFullName));
        return FullNameOf(name);
    }

    /// <summary>
    /// The attributes of a message sent as NServiceBus's SQS transport sends one unwrapped: its id in
    /// <c>NServiceBus.MessageId</c>, its headers as JSON in <c>NServiceBus.AmazonSQS.Headers</c>.
    /// </summary>
    public static Dictionary<string, MessageAttributeValue> AttributesOf(MessageEnvelope envelope, string fullName, bool published)
    {
        using PoolLease<PooledBufferWriter> lease = new(PerThreadBufferWriterPool.Instance, PerThreadBufferWriterPool.Instance.Get());
        Utf8JsonWriter writer = PerThreadBufferWriterPool.JsonWriter(lease.Value);
        {
            writer.WriteStartObject();
            writer.WriteString(EnclosedMessageTypesHeader, fullName);
            writer.WriteString(ContentTypeHeader, ContentTypes.ApplicationJson);
            writer.WriteString(MessageIntentHeader, published ? "Publish" : "Send");
            if (envelope.Time is { } time)
            {
                writer.WriteString(TimeSentHeader, time.ToUniversalTime().ToString(TimeSentFormat, CultureInfo.InvariantCulture));
            }

            if (envelope.ExtensionsOrNull is { } extensions && extensions.TryGetValue(CloudEventAttributeNames.TraceParent, out CloudEventAttributeValue traceParent))
            {
                writer.WriteString(CloudEventAttributeNames.TraceParent, traceParent.AsString());
            }

            writer.WriteEndObject();
            writer.Flush();
        }

        return new Dictionary<string, MessageAttributeValue>(StringComparer.Ordinal)
        {
            [MessageIdHeader] = MessageAttributeValue.FromString(envelope.Id),
            [HeadersAttribute] = MessageAttributeValue.FromString(System.Text.Encoding.UTF8.GetString(lease.Value.WrittenSpan)),
        };
    }

    /// <summary>The transport's wrapper around <paramref name="body"/>: <c>Body</c> in base64, no <c>S3BodyKey</c>, the headers.</summary>
    public static ReadOnlyMemory<byte> Wrapper(ReadOnlySpan<byte> body, IReadOnlyDictionary<string, string> headers)
    {
        var buffer = new System.Buffers.ArrayBufferWriter<byte>(Base64.GetMaxEncodedToUtf8Length(body.Length) + 256);
        using (var writer = new Utf8JsonWriter(buffer))
        {
            writer.WriteStartObject();
            writer.WriteBase64String("Body", body);
            writer.WriteNull(S3BodyKeyName);
            writer.WritePropertyName(nameof(Headers));
            WriteHeaders(writer, headers);
            writer.WriteEndObject();
        }

        return buffer.WrittenMemory;
    }

    /// <summary>Headers as the <c>NServiceBus.AmazonSQS.Headers</c> attribute holds them: one JSON object of strings.</summary>
    public static string HeadersJson(IReadOnlyDictionary<string, string> headers)
    {
        var buffer = new System.Buffers.ArrayBufferWriter<byte>(256);
        using (var writer = new Utf8JsonWriter(buffer))
        {
            WriteHeaders(writer, headers);
        }

        return System.Text.Encoding.UTF8.GetString(buffer.WrittenSpan);
    }

    private static void WriteHeaders(Utf8JsonWriter writer, IReadOnlyDictionary<string, string> headers)
    {
        writer.WriteStartObject();
        foreach ((string name, string value) in headers)
        {
            writer.WriteString(name, value);
        }

        writer.WriteEndObject();
    }

    /// <summary>
    /// A type's full name from an <c>EnclosedMessageTypes</c> entry: the entry up to its first comma outside brackets
    /// (<c>Ns.Outer+Inner, Assembly, Version=…</c> gives <c>Ns.Outer+Inner</c>; a generic's arguments keep theirs).
    /// </summary>
    public static string FullNameOf(string entry)
    {
        int depth = 0;
        for (int i = 0; i < entry.Length; i++)
        {
            switch (entry[i])
            {
                case '[':
                    depth++;
                    break;
                case ']':
                    depth--;
                    break;
                case ',' when depth == 0:
                    return entry[..i].TrimEnd();
            }
        }

        return entry;
    }

    /// <summary>
    /// Reads the message as <paramref name="info"/>'s type: the wrapper's <c>Body</c> decoded from base64, or the SQS body
    /// itself (decoded when it is valid base64, as the transport's receiver does), into a rented buffer that is cleared
    /// as the settings say.
    /// </summary>
    /// <exception cref="InvalidEnvelopeException">The body is in S3, is not base64 where it must be, or does not fit the type.</exception>
    public (MessageEnvelope Envelope, NServiceBusMetadata Metadata) Read(MessageTypeInfo info, ReadOnlySpan<byte> body, IReadOnlyDictionary<string, MessageAttributeValue> attributes, SerializerSettings settings)
    {
        if (S3BodyKey is { Length: > 0 })
        {
            throw ThrowHelper.Create(InvalidEnvelopeReason.PayloadUnavailable, $"The NServiceBus message's body is in S3 (S3BodyKey '{S3BodyKey}'): to fetch it, UsePayloadOffload with an S3 store and set PayloadOffloadOptions.NServiceBusBucket to the endpoints' S3BucketForLargeMessages");
        }

        MessageEnvelope envelope = info.CreateEnvelope();
        envelope.DataContentType = _known.ContentType ?? ContentTypes.ApplicationJson;
        if (WrappedBodyStart >= 0)
        {
            ReadOnlySpan<byte> text = body.Slice(WrappedBodyStart + 1, _wrappedBodyLength);
            // One rented buffer: the text with its escapes taken out (when it has any), then what it decodes to.
            int unescapedLength = _wrappedBodyEscaped ? text.Length : 0;
            using RentedBuffer buffer = settings.Rent(unescapedLength + Base64.GetMaxDecodedFromUtf8Length(text.Length));
            if (_wrappedBodyEscaped)
            {
                Span<byte> unescaped = buffer.Span[..unescapedLength];
                if (!TryUnescapeBase64(text, unescaped, out int written))
                {
                    var reader = new Utf8JsonReader(body[WrappedBodyStart..], settings.JsonReaderOptions); // an escape base64 has no use for
                    reader.Read();
                    written = reader.CopyString(unescaped);
                }

                text = unescaped[..written];
            }

            if (!TryReadBase64Message(info, envelope, text, buffer.Span[unescapedLength..], settings))
            {
                throw ThrowHelper.Create(InvalidEnvelopeReason.Malformed, "The NServiceBus transport message's Body is not base64", WrappedBodyStart);
            }
        }
        else if (JsonTopLevel.IsContainer(body)) // base64 has neither brace nor bracket: read as it is
        {
            ReadMessage(info, envelope, body, settings);
        }
        else
        {
            using RentedBuffer decoded = settings.Rent(Base64.GetMaxDecodedFromUtf8Length(body.Length));
            if (!TryReadBase64Message(info, envelope, body, decoded.Span, settings))
            {
                ReadMessage(info, envelope, body, settings); // not base64: the message itself, as the transport's receiver takes it
            }
        }

        string? messageId = attributes.TryGetValue(MessageIdHeader, out MessageAttributeValue? idAttribute) && idAttribute.StringValue is { Length: > 0 } id
            ? id
            : _known.MessageId;
        var metadata = new NServiceBusMetadata
        {
            MessageId = messageId,
            EnclosedMessageTypes = EnclosedMessageTypesAsSent,
            ConversationId = _known.ConversationId,
            CorrelationId = _known.CorrelationId,
            MessageIntent = _known.MessageIntent,
            TimeSent = TimeSent(),
            ReplyToAddress = _known.ReplyToAddress,
            OriginatingEndpoint = _known.OriginatingEndpoint,
            Headers = Headers,
        };
        return (envelope, metadata);
    }

    /// <summary>
    /// Decodes <paramref name="base64"/> into <paramref name="into"/> (at least its largest decoded length) and reads the
    /// message from there; <c>false</c>, with nothing read, when the text is empty or not base64.
    /// </summary>
    private static bool TryReadBase64Message(MessageTypeInfo info, MessageEnvelope envelope, ReadOnlySpan<byte> base64, Span<byte> into, SerializerSettings settings)
    {
        if (base64.IsEmpty || Base64.DecodeFromUtf8(base64, into, out _, out int length) != System.Buffers.OperationStatus.Done)
        {
            return false;
        }

        ReadMessage(info, envelope, into[..length], settings);
        return true;
    }

    /// <summary>
    /// The escapes a JSON writer puts in base64 text (<c>\uXXXX</c> of an ASCII character, <c>\/</c>) taken out;
    /// <c>false</c> for any other escape, which the JSON reader then unescapes.
    /// </summary>
    private static bool TryUnescapeBase64(ReadOnlySpan<byte> text, Span<byte> into, out int written)
    {
        written = 0;
        for (int i = 0; i < text.Length;)
        {
            byte b = text[i];
            if (b != (byte)'\\')
            {
                into[written++] = b;
                i++;
            }
            else if (i + 1 < text.Length && text[i + 1] == (byte)'/')
            {
                into[written++] = (byte)'/';
                i += 2;
            }
            else if (i + 5 < text.Length && text[i + 1] == (byte)'u' && System.Buffers.Text.Utf8Parser.TryParse(text.Slice(i + 2, 4), out ushort code, out int consumed, 'X') && consumed == 4 && code < 0x80)
            {
                into[written++] = (byte)code;
                i += 6;
            }
            else
            {
                return false;
            }
        }

        return true;
    }

    private DateTimeOffset? TimeSent()
    {
        if (_known.TimeSent is not { } text)
        {
            return null;
        }

        if (TryParseTimeSent(text, out DateTimeOffset exact))
        {
            return exact;
        }

        return DateTimeOffset.TryParseExact(text, TimeSentFormat, CultureInfo.InvariantCulture, DateTimeStyles.AssumeUniversal | DateTimeStyles.AdjustToUniversal, out DateTimeOffset time)
            ? time
            : throw ThrowHelper.Create(InvalidEnvelopeReason.Malformed, $"The NServiceBus.TimeSent header is not in NServiceBus's format ({TimeSentFormat})", attribute: TimeSentHeader);
    }

    /// <summary>NServiceBus's own time format, <c>2026-12-01 09:30:00:123456 Z</c>, read without a format string; <c>false</c> for anything else.</summary>
    private static bool TryParseTimeSent(string text, out DateTimeOffset time)
    {
        time = default;
        ReadOnlySpan<char> t = text;
        if (t.Length != 28 || t[4] != '-' || t[7] != '-' || t[10] != ' ' || t[13] != ':' || t[16] != ':' || t[19] != ':' || t[26] != ' ' || t[27] != 'Z')
        {
            return false;
        }

        if (!Digits(t[..4], out int year) || !Digits(t.Slice(5, 2), out int month) || !Digits(t.Slice(8, 2), out int day) || !Digits(t.Slice(11, 2), out int hour)
            || !Digits(t.Slice(14, 2), out int minute) || !Digits(t.Slice(17, 2), out int second) || !Digits(t.Slice(20, 6), out int microseconds)
            || year < 1 || month is < 1 or > 12 || day < 1 || day > DateTime.DaysInMonth(year, month) || hour > 23 || minute > 59 || second > 59)
        {
            return false;
        }

        time = new DateTimeOffset(new DateTime(year, month, day, hour, minute, second, DateTimeKind.Utc).AddTicks(microseconds * 10L));
        return true;

        static bool Digits(ReadOnlySpan<char> digits, out int value)
        {
            value = 0;
            foreach (char c in digits)
            {
                if (!char.IsAsciiDigit(c))
                {
                    return false;
                }

                value = (value * 10) + (c - '0');
            }

            return true;
        }
    }

    /// <summary>The message's JSON read as the type, as MassTransit's and NServiceBus's serializers are lenient (numbers from strings, names in any case).</summary>
    private static void ReadMessage(MessageTypeInfo info, MessageEnvelope envelope, ReadOnlySpan<byte> json, SerializerSettings settings)
    {
        var reader = new Utf8JsonReader(json, settings.JsonReaderOptions);
        try
        {
            reader.Read();
            info.Lenient(ForeignBus.NServiceBus).ReadJsonData(envelope, ref reader);
            if (reader.Read())
            {
                throw ThrowHelper.Create(InvalidEnvelopeReason.Malformed, "The NServiceBus message has content after its JSON value", reader.TokenStartIndex);
            }
        }
        catch (Exception e) when (PayloadErrors.IsDataError(e))
        {
            throw PayloadErrors.InvalidData(e, reader.TokenStartIndex, settings.LogMessageContent);
        }
    }

    /// <summary>The values of the headers Missive maps, noted while the headers are read (the last of a name repeated, as in the dictionary).</summary>
    private struct KnownHeaders
    {
        public string? MessageId;
        public string? EnclosedMessageTypes;
        public string? ContentType;
        public string? ConversationId;
        public string? CorrelationId;
        public string? MessageIntent;
        public string? TimeSent;
        public string? ReplyToAddress;
        public string? OriginatingEndpoint;
        public string? S3BodyKey;

        public void Note(string name, string value)
        {
            switch (name)
            {
                case MessageIdHeader: MessageId = value; break;
                case EnclosedMessageTypesHeader: EnclosedMessageTypes = value; break;
                case ContentTypeHeader: ContentType = value; break;
                case ConversationIdHeader: ConversationId = value; break;
                case CorrelationIdHeader: CorrelationId = value; break;
                case MessageIntentHeader: MessageIntent = value; break;
                case TimeSentHeader: TimeSent = value; break;
                case ReplyToAddressHeader: ReplyToAddress = value; break;
                case OriginatingEndpointHeader: OriginatingEndpoint = value; break;
                case S3BodyKeyName: S3BodyKey = value; break;
            }
        }
    }

    /// <summary>A header value as text and as its UTF-8 bytes.</summary>
    private sealed class HeaderValue(string text)
    {
        public string Text { get; } = text;

        public byte[] Utf8 { get; } = System.Text.Encoding.UTF8.GetBytes(text);
    }

    /// <summary>An <c>NServiceBus.EnclosedMessageTypes</c> header read: shared by the messages that carry the same text, so read-only.</summary>
    private sealed class EnclosedTypes
    {
        private EnclosedTypes(string text, string[] asSent)
        {
            Text = text;
            AsSent = Array.AsReadOnly(asSent);
            Names = Array.ConvertAll(asSent, FullNameOf);
        }

        public string Text { get; }

        public ReadOnlyCollection<string> AsSent { get; }

        /// <summary>Gets the full names; never changed (rules and messages only read them).</summary>
        public string[] Names { get; }

        public static EnclosedTypes Of(string text)
        {
            EnclosedTypes? last = Volatile.Read(ref s_lastEnclosedTypes);
            if (last is not null && string.Equals(last.Text, text, StringComparison.Ordinal))
            {
                return last;
            }

            var read = new EnclosedTypes(text, text.Split(';', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries));
            Volatile.Write(ref s_lastEnclosedTypes, read);
            return read;
        }
    }
}
