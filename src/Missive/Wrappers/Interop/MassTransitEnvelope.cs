using System;
using System.Collections.Generic;
using System.Collections.ObjectModel;
using System.Text;
using System.Text.Json;
using System.Threading;
using Missive.Serialization;

namespace Missive.Transport;

/// <summary>
/// MassTransit's JSON envelope (<c>application/vnd.masstransit+json</c>): its message URNs, read to choose a type, and
/// the whole envelope, read where it lies with the message read by the chosen type's registration.
/// </summary>
/// <remarks>
/// MassTransit 8 writes camelCase members (<c>messageId</c>, <c>requestId</c>, <c>correlationId</c>,
/// <c>conversationId</c>, <c>initiatorId</c>, the four addresses, <c>messageType</c>, <c>message</c>,
/// <c>expirationTime</c>, <c>sentTime</c>, <c>headers</c>, <c>host</c>), indented, with <c>null</c> members, and reads
/// comments and trailing commas; its <c>decimal</c> values are JSON strings. Member order is not relied on.
/// </remarks>
internal static class MassTransitEnvelope
{
    /// <summary>The start of every message URN.</summary>
    public const string UrnPrefix = "urn:message:";

    /// <summary>The SQS message attribute MassTransit puts its trace context in (a W3C <c>traceparent</c> value).</summary>
    public const string ActivityIdAttribute = "MT-Activity-Id";

    /// <summary>The message attribute that names a raw message's URNs (joined by <c>;</c>), as MassTransit's raw JSON serializer sends them.</summary>
    public const string RawMessageTypeAttribute = "MT-MessageType";

    /// <summary>The message attribute MassTransit's transport reads the body's format from.</summary>
    public const string ContentTypeAttribute = "Content-Type";

    /// <summary>The content type of MassTransit's JSON envelope.</summary>
    public const string ContentType = "application/vnd.masstransit+json";

    /// <summary>The source last found to be an absolute URI: a bus publishes from one source, so parsing it runs once, not per message.</summary>
    private static string? s_absoluteSource;

    // The written member names (the read ones' spelling; messageType's is also what the preamble looks for), escaped
    // once: a name given as bytes is checked for characters to escape at every write.
    private static readonly JsonEncodedText MessageIdName = JsonEncodedText.Encode(NameOf(Member.MessageId));
    private static readonly JsonEncodedText SourceAddressName = JsonEncodedText.Encode(NameOf(Member.SourceAddress));
    private static readonly JsonEncodedText MessageTypeName = JsonEncodedText.Encode("messageType"u8);
    private static readonly JsonEncodedText MessageName = JsonEncodedText.Encode(NameOf(Member.Message));
    private static readonly JsonEncodedText SentTimeName = JsonEncodedText.Encode(NameOf(Member.SentTime));
    private static readonly JsonEncodedText HeadersName = JsonEncodedText.Encode(NameOf(Member.Headers));

    /// <summary>The digits of a GUID as .NET and MassTransit write one (<c>D</c>, lowercase).</summary>
    private static readonly System.Buffers.SearchValues<char> LowercaseHex = System.Buffers.SearchValues.Create("0123456789abcdef");

    /// <summary>
    /// The URN MassTransit's convention gives a type: <c>urn:message:</c>, the namespace, <c>:</c>, then the name, nested
    /// types after their declaring types and <c>+</c>, generic arguments as <c>[[Namespace:Name],…]</c> without arity.
    /// </summary>
    public static string UrnOf(Type type)
    {
        ArgumentNullException.ThrowIfNull(type);
        if (type.ContainsGenericParameters)
        {
            throw new ArgumentException($"{type.Name} has open generic parameters: a message URN names a closed type.", nameof(type));
        }

        var urn = new StringBuilder(UrnPrefix);
        AppendName(urn, type, withNamespace: true);
        return urn.ToString();
    }

    private static void AppendName(StringBuilder urn, Type type, bool withNamespace)
    {
        if (withNamespace && type.Namespace is { } ns)
        {
            urn.Append(ns).Append(':');
        }

        if (type.IsNested && type.DeclaringType is { } declaring)
        {
            AppendName(urn, declaring, withNamespace: false);
            urn.Append('+');
        }

        string name = type.Name;
        if (!type.IsGenericType)
        {
            urn.Append(name);
            return;
        }

        int tick = name.IndexOf('`', StringComparison.Ordinal);
        urn.Append(tick > 0 ? name.AsSpan(0, tick) : name).Append('[');
        Type[] arguments = type.GetGenericArguments();
        for (int i = 0; i < arguments.Length; i++)
        {
            urn.Append(i == 0 ? "[" : ",[");
            AppendName(urn, arguments[i], withNamespace: true);
            urn.Append(']');
        }

        urn.Append(']');
    }

    /// <summary>The URN given, checked, or the conventional one of <typeparamref name="T"/>.</summary>
    /// <exception cref="ArgumentException">The URN does not start with <c>urn:message:</c> or names nothing after it.</exception>
    public static string CheckedUrn<T>(string? messageUrn)
    {
        string urn = messageUrn ?? UrnOf(typeof(T));
        if (!urn.StartsWith(UrnPrefix, StringComparison.Ordinal) || urn.Length == UrnPrefix.Length)
        {
            throw new ArgumentException($"'{urn}' is not a message URN: MassTransit's start with '{UrnPrefix}' (e.g. urn:message:Orders:OrderPlaced).", nameof(messageUrn));
        }

        return urn;
    }

    /// <summary>The reader options for MassTransit's JSON: the application's limits, with comments and trailing commas allowed as MassTransit allows them.</summary>
    public static JsonReaderOptions ReaderOptions(JsonReaderOptions options)
        => options with { CommentHandling = JsonCommentHandling.Skip, AllowTrailingCommas = true };

    /// <summary>
    /// The envelope's <c>messageType</c> URNs and what comes before them, when <paramref name="body"/> is a MassTransit
    /// envelope (a JSON object with a top-level <c>messageType</c> array of strings), else <c>default</c> (no URNs).
    /// Reads only up to that member (a body without the name anywhere is answered by one vectorized search), and keeps
    /// where it stopped, so that <see cref="Read"/> reads on from there.
    /// </summary>
    public static Preamble ReadPreamble(ReadOnlySpan<byte> body, JsonReaderOptions options)
    {
        if (body.IndexOf("\"messageType\""u8) < 0)
        {
            return default;
        }

        var reader = new Utf8JsonReader(body, ReaderOptions(options));
        Fields values = default;
        bool resumable = true;
        try
        {
            if (!reader.Read() || reader.TokenType != JsonTokenType.StartObject)
            {
                return default;
            }

            while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
            {
                if (reader.ValueTextEquals(MessageTypeName.EncodedUtf8Bytes))
                {
                    reader.Read();
                    return reader.TokenType == JsonTokenType.StartArray && ReadUrns(ref reader) is { } urns
                        ? new Preamble { MessageTypes = urns, Values = values, ResumeAt = resumable ? checked((int)reader.BytesConsumed) : -1, ResumeState = reader.CurrentState }
                        : default;
                }

                Member member = MemberOf(ref reader);
                reader.Read();

                // A message before its type, or a value that does not read, leaves the whole envelope to Read (which says what is wrong).
                if (!resumable || member is Member.Other or Member.Message || !values.TryRead(member, ref reader, body))
                {
                    resumable &= member is Member.Other;
                    reader.Skip();
                }
            }
        }
        catch (JsonException)
        {
            // Not well-formed before its messageType: not read as MassTransit's, and the reader of the type a later rule chooses says what is wrong.
        }

        return default;
    }

    /// <summary>The URNs of a message MassTransit sent raw (its <c>MT-MessageType</c> attribute, joined by <c>;</c>), or <c>null</c>.</summary>
    public static string[]? RawMessageTypes(IReadOnlyDictionary<string, MessageAttributeValue> attributes)
        => attributes.Count > 0 && attributes.TryGetValue(RawMessageTypeAttribute, out MessageAttributeValue? value) && value.StringValue is { Length: > 0 } urns
            ? urns.Split(';', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries)
            : null;

    /// <summary>
    /// What a message MassTransit sent raw carried beside it, from its attributes: <c>MessageId</c>, <c>CorrelationId</c>,
    /// <c>ConversationId</c>, <c>MT-Source-Address</c>, and every other string attribute as a header.
    /// </summary>
    /// <exception cref="InvalidEnvelopeException">An id attribute is not a GUID.</exception>
    public static MassTransitMetadata RawMetadata(IReadOnlyDictionary<string, MessageAttributeValue> attributes, string[] messageTypes)
    {
        Dictionary<string, string>? headers = null;
        foreach ((string name, MessageAttributeValue value) in attributes)
        {
            if (!value.IsBinary && value.StringValue is { } text && name is not ("MessageId" or "CorrelationId" or "ConversationId" or "MT-Source-Address" or RawMessageTypeAttribute or ContentTypeAttribute))
            {
                (headers ??= new Dictionary<string, string>(StringComparer.Ordinal))[name] = text;
            }
        }

        return new MassTransitMetadata
        {
            MessageId = GuidAttribute(attributes, "MessageId"),
            CorrelationId = GuidAttribute(attributes, "CorrelationId"),
            ConversationId = GuidAttribute(attributes, "ConversationId"),
            SourceAddress = attributes.TryGetValue("MT-Source-Address", out MessageAttributeValue? source) ? source.StringValue : null,
            MessageTypes = messageTypes,
            Headers = headers is null ? ReadOnlyDictionary<string, string>.Empty : headers,
        };
    }

    private static Guid? GuidAttribute(IReadOnlyDictionary<string, MessageAttributeValue> attributes, string name)
        => !attributes.TryGetValue(name, out MessageAttributeValue? value) || value.StringValue is not { } text ? null
            : Guid.TryParse(text, out Guid id) ? id
            : throw ThrowHelper.Create(InvalidEnvelopeReason.Malformed, $"The {name} attribute of a message MassTransit sent raw is not a GUID", attribute: name);

    /// <summary>The strings of the array the reader is on, or <c>null</c> when an element is not a string.</summary>
    private static string[]? ReadUrns(ref Utf8JsonReader reader)
    {
        var urns = new List<string>(2);
        while (reader.Read() && reader.TokenType != JsonTokenType.EndArray)
        {
            if (reader.TokenType != JsonTokenType.String)
            {
                return null;
            }

            urns.Add(reader.GetString()!);
        }

        return [.. urns];
    }

    /// <summary>
    /// Reads the envelope in <paramref name="body"/> with its <c>message</c> read as <paramref name="info"/>'s type
    /// as MassTransit reads it (numbers also from strings, member names in any case), on from where
    /// <paramref name="preamble"/> stopped when it could.
    /// </summary>
    /// <returns>The envelope (its attributes for the caller to set) and what MassTransit's envelope carried.</returns>
    /// <exception cref="InvalidEnvelopeException">
    /// The envelope is malformed, has no <c>message</c>, or its message does not fit the type (<see cref="InvalidEnvelopeReason.InvalidData"/>).
    /// </exception>
    public static (MessageEnvelope Envelope, MassTransitMetadata Metadata) Read(MessageTypeInfo info, ReadOnlySpan<byte> body, in Preamble preamble, JsonReaderOptions options, bool logContent)
    {
        MessageEnvelope envelope = info.CreateEnvelope();
        envelope.DataContentType = ContentTypes.ApplicationJson;
        MessageTypeInfo lenient = info.Lenient(ForeignBus.MassTransit);
        bool hasMessage = false;

        // Positions in errors are the body's: the reader reads on from the preamble's end over the rest of the body.
        int offset = Math.Max(preamble.ResumeAt, 0);
        ReadOnlySpan<byte> rest = body[offset..];
        Fields values = preamble.ResumeAt >= 0 ? preamble.Values : default;
        Utf8JsonReader reader = preamble.ResumeAt >= 0 ? new Utf8JsonReader(rest, isFinalBlock: true, preamble.ResumeState) : new Utf8JsonReader(body, ReaderOptions(options));
        if (preamble.ResumeAt < 0)
        {
            reader.Read();
        }

        while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
        {
            Member member = MemberOf(ref reader);
            reader.Read();
            switch (member)
            {
                case Member.Message:
                    if (reader.TokenType == JsonTokenType.Null)
                    {
                        break;
                    }

                    long start = offset + reader.TokenStartIndex;
                    try
                    {
                        lenient.ReadJsonData(envelope, ref reader);
                    }
                    catch (Exception e) when (PayloadErrors.IsDataError(e))
                    {
                        throw PayloadErrors.InvalidData(e, start, logContent);
                    }

                    hasMessage = true;
                    break;
                case Member.Other:
                    reader.Skip(); // messageType (read before), host, and anything a newer MassTransit adds
                    break;
                default:
                    values.Read(member, ref reader, rest, offset);
                    break;
            }
        }

        if (reader.TokenType != JsonTokenType.EndObject || reader.Read())
        {
            throw ThrowHelper.Create(InvalidEnvelopeReason.Malformed, "The MassTransit envelope has content after its end", offset + reader.TokenStartIndex);
        }

        if (!hasMessage)
        {
            throw ThrowHelper.Create(InvalidEnvelopeReason.MissingAttribute, "The MassTransit envelope has no message (its message member is missing or null)");
        }

        return (envelope, values.ToMetadata(preamble.MessageTypes!));
    }

    /// <summary>The member whose name the reader is on: by its length and then its bytes (one comparison, not one per name), or, written with escapes, by the reader's unescaping comparison.</summary>
    private static Member MemberOf(ref Utf8JsonReader reader)
    {
        if (reader.ValueIsEscaped)
        {
            return MemberOfEscaped(ref reader);
        }

        ReadOnlySpan<byte> name = reader.ValueSpan;
        Member member = name.Length switch
        {
            7 => name[0] == (byte)'m' ? Member.Message : Member.Headers,
            8 => Member.SentTime,
            9 => name[0] == (byte)'m' ? Member.MessageId : Member.RequestId,
            11 => Member.InitiatorId,
            12 => Member.FaultAddress,
            13 => name[0] == (byte)'s' ? Member.SourceAddress : Member.CorrelationId,
            14 => name[0] == (byte)'c' ? Member.ConversationId : Member.ExpirationTime,
            15 => Member.ResponseAddress,
            18 => Member.DestinationAddress,
            _ => Member.Other,
        };
        return member != Member.Other && name.SequenceEqual(NameOf(member)) ? member : Member.Other;
    }

    private static ReadOnlySpan<byte> NameOf(Member member) => member switch
    {
        Member.Message => "message"u8,
        Member.Headers => "headers"u8,
        Member.SentTime => "sentTime"u8,
        Member.MessageId => "messageId"u8,
        Member.RequestId => "requestId"u8,
        Member.InitiatorId => "initiatorId"u8,
        Member.FaultAddress => "faultAddress"u8,
        Member.SourceAddress => "sourceAddress"u8,
        Member.CorrelationId => "correlationId"u8,
        Member.ConversationId => "conversationId"u8,
        Member.ExpirationTime => "expirationTime"u8,
        Member.ResponseAddress => "responseAddress"u8,
        Member.DestinationAddress => "destinationAddress"u8,
        _ => default,
    };

    private static Member MemberOfEscaped(ref Utf8JsonReader reader)
    {
        for (Member member = Member.MessageId; member <= Member.Headers; member++) // every member but Other
        {
            if (reader.ValueTextEquals(NameOf(member)))
            {
                return member;
            }
        }

        return Member.Other;
    }

    private static Guid? ReadGuid(ref Utf8JsonReader reader, string name, long offset)
        => reader.TokenType == JsonTokenType.Null ? null
            : reader.TokenType == JsonTokenType.String && reader.TryGetGuid(out Guid id) ? id
            : throw ThrowHelper.Create(InvalidEnvelopeReason.Malformed, $"The MassTransit envelope's {name} is not a GUID", offset + reader.TokenStartIndex);

    private static string? ReadString(ref Utf8JsonReader reader, string name, long offset)
        => reader.TokenType == JsonTokenType.Null ? null
            : reader.TokenType == JsonTokenType.String ? reader.GetString()
            : throw ThrowHelper.Create(InvalidEnvelopeReason.Malformed, $"The MassTransit envelope's {name} is not a string", offset + reader.TokenStartIndex);

    private static DateTimeOffset? ReadTime(ref Utf8JsonReader reader, string name, long offset)
        => reader.TokenType == JsonTokenType.Null ? null
            : reader.TokenType == JsonTokenType.String && reader.TryGetDateTimeOffset(out DateTimeOffset time) ? time
            : throw ThrowHelper.Create(InvalidEnvelopeReason.Malformed, $"The MassTransit envelope's {name} is not an ISO 8601 time", offset + reader.TokenStartIndex);

    /// <summary>
    /// Writes <paramref name="envelope"/> as MassTransit's envelope: <c>messageId</c> its id (a new GUID when the id is not
    /// one, as MassTransit's ids are), <c>sourceAddress</c> its source when that is an absolute URI with a scheme, <c>messageType</c>
    /// the URN, <c>message</c> as <paramref name="codec"/> writes it, <c>sentTime</c> its time, and empty <c>headers</c>.
    /// </summary>
    public static void Write<T>(Utf8JsonWriter writer, MessageEnvelope<T> envelope, string urn, Serialization.Payloads.PayloadCodec<T> codec)
    {
        writer.WriteStartObject();
        if (IsWrittenGuid(envelope.Id))
        {
            writer.WriteString(MessageIdName, envelope.Id); // the bus's own ids: written as they are, not parsed and formatted again
        }
        else
        {
            writer.WriteString(MessageIdName, Guid.TryParse(envelope.Id, out Guid id) ? id : Guid.NewGuid());
        }

        if (IsAbsoluteUri(envelope.Source))
        {
            writer.WriteString(SourceAddressName, envelope.Source);
        }

        writer.WriteStartArray(MessageTypeName);
        writer.WriteStringValue(urn);
        writer.WriteEndArray();
        writer.WritePropertyName(MessageName);
        codec.WriteJsonValue(writer, envelope.Message);
        if (envelope.Time is { } time)
        {
            writer.WriteString(SentTimeName, time.ToUniversalTime().UtcDateTime);
        }

        writer.WriteStartObject(HeadersName);
        writer.WriteEndObject();
        writer.WriteEndObject();
    }

    /// <summary>
    /// Whether <paramref name="id"/> is a GUID as <c>Guid.ToString()</c> writes it (32 lowercase hexadecimal digits in
    /// groups of 8, 4, 4, 4 and 12 joined by <c>-</c>): exactly what writing it parsed would give.
    /// </summary>
    private static bool IsWrittenGuid(string id)
    {
        ReadOnlySpan<char> text = id;
        return text.Length == 36 && text[8] == '-' && text[13] == '-' && text[18] == '-' && text[23] == '-'
            && !text[..8].ContainsAnyExcept(LowercaseHex) && !text[9..13].ContainsAnyExcept(LowercaseHex)
            && !text[14..18].ContainsAnyExcept(LowercaseHex) && !text[19..23].ContainsAnyExcept(LowercaseHex)
            && !text[24..].ContainsAnyExcept(LowercaseHex);
    }

    /// <summary>
    /// Whether <paramref name="source"/> is an absolute URI with a scheme of its own, as MassTransit's addresses are. A
    /// path (Missive's default <c>/missive</c>) is not one on any platform: .NET reads it as a <c>file://</c> URI on
    /// Linux and macOS only.
    /// </summary>
    private static bool IsAbsoluteUri(string? source)
    {
        if (source is null || ReferenceEquals(source, Volatile.Read(ref s_absoluteSource)))
        {
            return source is not null;
        }

        if (!Uri.TryCreate(source, UriKind.Absolute, out Uri? uri) || (uri.IsFile && !source.StartsWith("file:", StringComparison.OrdinalIgnoreCase)))
        {
            return false;
        }

        Volatile.Write(ref s_absoluteSource, source);
        return true;
    }

    /// <summary>The <c>headers</c> object (in <paramref name="span"/>, <paramref name="offset"/> bytes into the body): strings as their text, other values as their JSON, <c>null</c> values left out.</summary>
    private static IReadOnlyDictionary<string, string> ReadHeaders(ref Utf8JsonReader reader, ReadOnlySpan<byte> span, long offset)
    {
        if (reader.TokenType == JsonTokenType.Null)
        {
            return ReadOnlyDictionary<string, string>.Empty;
        }

        if (reader.TokenType != JsonTokenType.StartObject)
        {
            throw ThrowHelper.Create(InvalidEnvelopeReason.Malformed, "The MassTransit envelope's headers are not an object", offset + reader.TokenStartIndex);
        }

        Dictionary<string, string>? headers = null;
        while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
        {
            string name = reader.GetString()!;
            reader.Read();
            string? value;
            if (reader.TokenType is JsonTokenType.Null or JsonTokenType.String)
            {
                value = reader.GetString();
            }
            else
            {
                long start = reader.TokenStartIndex;
                reader.Skip();
                value = Encoding.UTF8.GetString(span[(int)start..(int)reader.BytesConsumed]);
            }

            if (value is not null)
            {
                (headers ??= new Dictionary<string, string>(StringComparer.Ordinal))[name] = value;
            }
        }

        return headers is null ? ReadOnlyDictionary<string, string>.Empty : headers;
    }

    /// <summary>
    /// What a MassTransit envelope holds up to its <c>messageType</c>: its URNs (<c>null</c> when the body is not such
    /// an envelope), the members before them, and where to read on. A struct: kept by the rules' candidate, not allocated.
    /// </summary>
    public readonly struct Preamble
    {
        /// <summary>Gets the envelope's message URNs, or <c>null</c>.</summary>
        public string[]? MessageTypes { get; init; }

        /// <summary>Gets the members read before the URNs.</summary>
        internal Fields Values { get; init; }

        /// <summary>Gets how many bytes of the body were read (up to the URNs' end), or -1 when the envelope must be read from its start.</summary>
        internal int ResumeAt { get; init; }

        /// <summary>Gets the JSON reader's state at <see cref="ResumeAt"/>.</summary>
        internal JsonReaderState ResumeState { get; init; }
    }

    /// <summary>The envelope's members other than its message and URNs, as read so far (a repeated member: the last).</summary>
    internal struct Fields
    {
        public Guid? MessageId, RequestId, CorrelationId, ConversationId, InitiatorId;
        public string? SourceAddress, DestinationAddress, ResponseAddress, FaultAddress;
        public DateTimeOffset? SentTime, ExpirationTime;
        public IReadOnlyDictionary<string, string>? Headers;

        /// <summary>Reads the value the reader is on as <paramref name="member"/>; <paramref name="offset"/> places errors in the body.</summary>
        /// <exception cref="InvalidEnvelopeException">The value is not of the member's kind.</exception>
        public void Read(Member member, ref Utf8JsonReader reader, ReadOnlySpan<byte> span, long offset)
        {
            switch (member)
            {
                case Member.MessageId: MessageId = ReadGuid(ref reader, "messageId", offset); break;
                case Member.RequestId: RequestId = ReadGuid(ref reader, "requestId", offset); break;
                case Member.CorrelationId: CorrelationId = ReadGuid(ref reader, "correlationId", offset); break;
                case Member.ConversationId: ConversationId = ReadGuid(ref reader, "conversationId", offset); break;
                case Member.InitiatorId: InitiatorId = ReadGuid(ref reader, "initiatorId", offset); break;
                case Member.SourceAddress: SourceAddress = ReadString(ref reader, "sourceAddress", offset); break;
                case Member.DestinationAddress: DestinationAddress = ReadString(ref reader, "destinationAddress", offset); break;
                case Member.ResponseAddress: ResponseAddress = ReadString(ref reader, "responseAddress", offset); break;
                case Member.FaultAddress: FaultAddress = ReadString(ref reader, "faultAddress", offset); break;
                case Member.SentTime: SentTime = ReadTime(ref reader, "sentTime", offset); break;
                case Member.ExpirationTime: ExpirationTime = ReadTime(ref reader, "expirationTime", offset); break;
                case Member.Headers: Headers = ReadHeaders(ref reader, span, offset); break;
                default: throw new ArgumentOutOfRangeException(nameof(member));
            }
        }

        /// <summary>As <see cref="Read"/>, <c>false</c> where that throws (the reader then still on the value).</summary>
        public bool TryRead(Member member, ref Utf8JsonReader reader, ReadOnlySpan<byte> body)
        {
            Utf8JsonReader start = reader;
            try
            {
                Read(member, ref reader, body, 0);
                return true;
            }
            catch (Exception e) when (e is InvalidEnvelopeException or InvalidOperationException)
            {
                reader = start; // a header name or value that is not text also leaves the envelope to Read
                return false;
            }
        }

        public readonly MassTransitMetadata ToMetadata(string[] messageTypes) => new()
        {
            MessageId = MessageId,
            RequestId = RequestId,
            CorrelationId = CorrelationId,
            ConversationId = ConversationId,
            InitiatorId = InitiatorId,
            SourceAddress = SourceAddress,
            DestinationAddress = DestinationAddress,
            ResponseAddress = ResponseAddress,
            FaultAddress = FaultAddress,
            MessageTypes = messageTypes,
            SentTime = SentTime,
            ExpirationTime = ExpirationTime,
            Headers = Headers ?? ReadOnlyDictionary<string, string>.Empty,
        };
    }

    internal enum Member
    {
        Other,
        MessageId,
        RequestId,
        CorrelationId,
        ConversationId,
        InitiatorId,
        SourceAddress,
        DestinationAddress,
        ResponseAddress,
        FaultAddress,
        Message,
        SentTime,
        ExpirationTime,
        Headers,
    }
}
