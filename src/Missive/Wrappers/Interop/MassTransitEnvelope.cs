using System;
using System.Collections.Generic;
using System.Collections.ObjectModel;
using System.Text;
using System.Text.Json;
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
    /// The envelope's <c>messageType</c> URNs when <paramref name="body"/> is a MassTransit envelope (a JSON object with a
    /// top-level <c>messageType</c> array of strings), else <c>null</c>. Reads only up to that member; a body without
    /// the name anywhere is answered by one vectorized search.
    /// </summary>
    public static string[]? MessageTypes(ReadOnlySpan<byte> body, JsonReaderOptions options)
    {
        if (body.IndexOf("\"messageType\""u8) < 0)
        {
            return null;
        }

        var reader = new Utf8JsonReader(body, ReaderOptions(options));
        try
        {
            if (!reader.Read() || reader.TokenType != JsonTokenType.StartObject)
            {
                return null;
            }

            while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
            {
                bool isMessageType = reader.ValueTextEquals("messageType"u8);
                reader.Read();
                if (isMessageType)
                {
                    return reader.TokenType == JsonTokenType.StartArray ? ReadUrns(ref reader) : null;
                }

                reader.Skip();
            }
        }
        catch (JsonException)
        {
            // Not well-formed before its messageType: not read as MassTransit's, and the reader of the type a later rule chooses says what is wrong.
        }

        return null;
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
    /// as MassTransit reads it (numbers also from strings, member names in any case).
    /// </summary>
    /// <returns>The envelope (its attributes for the caller to set) and what MassTransit's envelope carried.</returns>
    /// <exception cref="InvalidEnvelopeException">
    /// The envelope is malformed, has no <c>message</c>, or its message does not fit the type (<see cref="InvalidEnvelopeReason.InvalidData"/>).
    /// </exception>
    public static (MessageEnvelope Envelope, MassTransitMetadata Metadata) Read(MessageTypeInfo info, ReadOnlySpan<byte> body, string[] messageTypes, JsonReaderOptions options, bool logContent)
    {
        MessageEnvelope envelope = info.CreateEnvelope();
        envelope.DataContentType = ContentTypes.ApplicationJson;
        MessageTypeInfo lenient = info.Lenient();
        Guid? messageId = null, requestId = null, correlationId = null, conversationId = null, initiatorId = null;
        string? sourceAddress = null, destinationAddress = null, responseAddress = null, faultAddress = null;
        DateTimeOffset? sentTime = null, expirationTime = null;
        IReadOnlyDictionary<string, string> headers = ReadOnlyDictionary<string, string>.Empty;
        bool hasMessage = false;

        var reader = new Utf8JsonReader(body, ReaderOptions(options));
        reader.Read();
        while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
        {
            Member member = MemberOf(ref reader);
            reader.Read();
            switch (member)
            {
                case Member.MessageId: messageId = ReadGuid(ref reader, "messageId"); break;
                case Member.RequestId: requestId = ReadGuid(ref reader, "requestId"); break;
                case Member.CorrelationId: correlationId = ReadGuid(ref reader, "correlationId"); break;
                case Member.ConversationId: conversationId = ReadGuid(ref reader, "conversationId"); break;
                case Member.InitiatorId: initiatorId = ReadGuid(ref reader, "initiatorId"); break;
                case Member.SourceAddress: sourceAddress = ReadString(ref reader, "sourceAddress"); break;
                case Member.DestinationAddress: destinationAddress = ReadString(ref reader, "destinationAddress"); break;
                case Member.ResponseAddress: responseAddress = ReadString(ref reader, "responseAddress"); break;
                case Member.FaultAddress: faultAddress = ReadString(ref reader, "faultAddress"); break;
                case Member.SentTime: sentTime = ReadTime(ref reader, "sentTime"); break;
                case Member.ExpirationTime: expirationTime = ReadTime(ref reader, "expirationTime"); break;
                case Member.Headers: headers = ReadHeaders(ref reader, body); break;
                case Member.Message:
                    if (reader.TokenType == JsonTokenType.Null)
                    {
                        break;
                    }

                    long start = reader.TokenStartIndex;
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
                default:
                    reader.Skip(); // messageType (read before), host, and anything a newer MassTransit adds
                    break;
            }
        }

        if (reader.TokenType != JsonTokenType.EndObject || reader.Read())
        {
            throw ThrowHelper.Create(InvalidEnvelopeReason.Malformed, "The MassTransit envelope has content after its end", reader.TokenStartIndex);
        }

        if (!hasMessage)
        {
            throw ThrowHelper.Create(InvalidEnvelopeReason.MissingAttribute, "The MassTransit envelope has no message (its message member is missing or null)");
        }

        var metadata = new MassTransitMetadata
        {
            MessageId = messageId,
            RequestId = requestId,
            CorrelationId = correlationId,
            ConversationId = conversationId,
            InitiatorId = initiatorId,
            SourceAddress = sourceAddress,
            DestinationAddress = destinationAddress,
            ResponseAddress = responseAddress,
            FaultAddress = faultAddress,
            MessageTypes = messageTypes,
            SentTime = sentTime,
            ExpirationTime = expirationTime,
            Headers = headers,
        };
        return (envelope, metadata);
    }

    private static Member MemberOf(ref Utf8JsonReader reader)
        => reader.ValueTextEquals("messageId"u8) ? Member.MessageId
            : reader.ValueTextEquals("message"u8) ? Member.Message
            : reader.ValueTextEquals("sentTime"u8) ? Member.SentTime
            : reader.ValueTextEquals("sourceAddress"u8) ? Member.SourceAddress
            : reader.ValueTextEquals("destinationAddress"u8) ? Member.DestinationAddress
            : reader.ValueTextEquals("correlationId"u8) ? Member.CorrelationId
            : reader.ValueTextEquals("conversationId"u8) ? Member.ConversationId
            : reader.ValueTextEquals("initiatorId"u8) ? Member.InitiatorId
            : reader.ValueTextEquals("requestId"u8) ? Member.RequestId
            : reader.ValueTextEquals("responseAddress"u8) ? Member.ResponseAddress
            : reader.ValueTextEquals("faultAddress"u8) ? Member.FaultAddress
            : reader.ValueTextEquals("expirationTime"u8) ? Member.ExpirationTime
            : reader.ValueTextEquals("headers"u8) ? Member.Headers
            : Member.Other;

    private static Guid? ReadGuid(ref Utf8JsonReader reader, string name)
        => reader.TokenType == JsonTokenType.Null ? null
            : reader.TokenType == JsonTokenType.String && reader.TryGetGuid(out Guid id) ? id
            : throw ThrowHelper.Create(InvalidEnvelopeReason.Malformed, $"The MassTransit envelope's {name} is not a GUID", reader.TokenStartIndex);

    private static string? ReadString(ref Utf8JsonReader reader, string name)
        => reader.TokenType == JsonTokenType.Null ? null
            : reader.TokenType == JsonTokenType.String ? reader.GetString()
            : throw ThrowHelper.Create(InvalidEnvelopeReason.Malformed, $"The MassTransit envelope's {name} is not a string", reader.TokenStartIndex);

    private static DateTimeOffset? ReadTime(ref Utf8JsonReader reader, string name)
        => reader.TokenType == JsonTokenType.Null ? null
            : reader.TokenType == JsonTokenType.String && reader.TryGetDateTimeOffset(out DateTimeOffset time) ? time
            : throw ThrowHelper.Create(InvalidEnvelopeReason.Malformed, $"The MassTransit envelope's {name} is not an ISO 8601 time", reader.TokenStartIndex);

    /// <summary>
    /// Writes <paramref name="envelope"/> as MassTransit's envelope: <c>messageId</c> its id (a new GUID when the id is not
    /// one, as MassTransit's ids are), <c>sourceAddress</c> its source when that is an absolute URI, <c>messageType</c>
    /// the URN, <c>message</c> as <paramref name="codec"/> writes it, <c>sentTime</c> its time, and empty <c>headers</c>.
    /// </summary>
    public static void Write<T>(Utf8JsonWriter writer, MessageEnvelope<T> envelope, string urn, Serialization.Payloads.PayloadCodec<T> codec)
    {
        writer.WriteStartObject();
        writer.WriteString("messageId"u8, Guid.TryParse(envelope.Id, out Guid id) ? id : Guid.NewGuid());
        if (Uri.TryCreate(envelope.Source, UriKind.Absolute, out _))
        {
            writer.WriteString("sourceAddress"u8, envelope.Source);
        }

        writer.WriteStartArray("messageType"u8);
        writer.WriteStringValue(urn);
        writer.WriteEndArray();
        writer.WritePropertyName("message"u8);
        codec.WriteJsonValue(writer, envelope.Message);
        if (envelope.Time is { } time)
        {
            writer.WriteString("sentTime"u8, time.ToUniversalTime().UtcDateTime);
        }

        writer.WriteStartObject("headers"u8);
        writer.WriteEndObject();
        writer.WriteEndObject();
    }

    /// <summary>The <c>headers</c> object: strings as their text, other values as their JSON, <c>null</c> values left out.</summary>
    private static IReadOnlyDictionary<string, string> ReadHeaders(ref Utf8JsonReader reader, ReadOnlySpan<byte> body)
    {
        if (reader.TokenType == JsonTokenType.Null)
        {
            return ReadOnlyDictionary<string, string>.Empty;
        }

        if (reader.TokenType != JsonTokenType.StartObject)
        {
            throw ThrowHelper.Create(InvalidEnvelopeReason.Malformed, "The MassTransit envelope's headers are not an object", reader.TokenStartIndex);
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
                value = Encoding.UTF8.GetString(body[(int)start..(int)reader.BytesConsumed]);
            }

            if (value is not null)
            {
                (headers ??= new Dictionary<string, string>(StringComparer.Ordinal))[name] = value;
            }
        }

        return headers is null ? ReadOnlyDictionary<string, string>.Empty : headers;
    }

    private enum Member
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
