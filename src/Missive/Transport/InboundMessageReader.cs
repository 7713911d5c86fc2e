using System;
using System.Buffers;
using System.Buffers.Text;
using System.Collections.Generic;
using System.Text;
using System.Text.Json;
using Missive.Serialization;

namespace Missive.Transport;

/// <summary>
/// Turns a received SQS message into an envelope with its transport metadata: classifies the body
/// (SNS notification, EventBridge event, or raw envelope), unwraps it, detects the format, and
/// reads the envelope.
/// </summary>
/// <remarks>
/// <para>Classification follows AWS.Messaging's rules, tested on the current document, which is
/// replaced by the inner payload after an unwrap (at most three levels):</para>
/// <list type="number">
/// <item>SNS notification: <c>Type</c> is <c>"Notification"</c> and <c>MessageId</c> and <c>TopicArn</c>
/// are present; the envelope is the <c>Message</c> string. <c>SubscriptionConfirmation</c> and
/// <c>UnsubscribeConfirmation</c> give <see cref="InboundMessageKind.SnsControlMessage"/>.</item>
/// <item>EventBridge event: <c>detail</c>, <c>detail-type</c>, <c>source</c> and <c>time</c> are present;
/// the envelope is <c>detail</c> (an object, or a string holding one).</item>
/// <item>Raw: the body is the envelope. A JSON document whose first member is a CloudEvents
/// attribute name is taken as raw at once (SNS notifications start with <c>Type</c>, EventBridge
/// events with <c>version</c>), so raw envelopes are not scanned twice.</item>
/// </list>
/// <para>The body is encoded to UTF-8 once, into a rented buffer; an SNS <c>Message</c> is unescaped in
/// one pass into a second rented buffer (no intermediate string); an EventBridge <c>detail</c> object is
/// read where it lies. Format: the <c>contentType</c> message attribute when present (SNS's, then SQS's),
/// else a payload starting with <c>{</c> is JSON and anything else base64 protobuf, decoded in place.
/// Rented buffers are cleared as <see cref="SerializationOptions.CleanRentedBuffers"/> says.</para>
/// <para>A body that cannot be read throws <see cref="InvalidEnvelopeException"/> whose
/// <see cref="InvalidEnvelopeException.RawBody"/> is the whole SQS body, so nothing is lost.</para>
/// </remarks>
public sealed class InboundMessageReader
{
    private const int MaxUnwrapDepth = 3;

    private readonly IEnvelopeSerializerProvider _serializers;
    private readonly SerializationOptions _options;
    private readonly JsonReaderOptions _readerOptions;

    /// <summary>Creates the reader.</summary>
    /// <param name="serializers">The envelope serializers. Must not be null.</param>
    /// <param name="options">The serialization options (pool, limits). Must not be null.</param>
    public InboundMessageReader(IEnvelopeSerializerProvider serializers, SerializationOptions options)
    {
        ArgumentNullException.ThrowIfNull(serializers);
        ArgumentNullException.ThrowIfNull(options);
        _serializers = serializers;
        _options = options;
        _readerOptions = new JsonReaderOptions { MaxDepth = options.MaxJsonDepth };
    }

    /// <summary>Reads a received message.</summary>
    /// <param name="message">The message. Must not be null.</param>
    /// <returns>The kind of body and, unless it was an SNS control message, the envelope with its metadata.</returns>
    /// <exception cref="InvalidEnvelopeException">The body is not a readable envelope in any of the shapes.</exception>
    public InboundMessage Read(SqsMessage message)
    {
        ArgumentNullException.ThrowIfNull(message);
        string body = message.Body ?? string.Empty;

        // SQS bodies are at most 1 MiB; allow for base64 and escaping around an envelope of MaxEnvelopeSize.
        long limit = (_options.MaxEnvelopeSize * 2L) + 4096;
        if ((long)body.Length * 3 > limit && Encoding.UTF8.GetByteCount(body) > limit)
        {
            throw new InvalidEnvelopeException(InvalidEnvelopeReason.LimitExceeded, $"The message body is over {limit} bytes.");
        }

        ArrayPool<byte> pool = _options.BufferPool;
        byte[] bodyBuffer = pool.Rent(Math.Max(1, Encoding.UTF8.GetByteCount(body)));
        int bodyLength = Encoding.UTF8.GetBytes(body, bodyBuffer);
        byte[]? innerBuffer = null;
        int innerLength = 0;
        byte[]? pending = null; // an SNS Message unescaped during classification, until it is adopted
        int pendingLength = 0;
        try
        {
            var state = new UnwrapState(message);
            byte[] current = bodyBuffer;
            int offset = 0, length = bodyLength;
            for (int depth = 0; ; depth++)
            {
                Shape shape = Classify(current.AsSpan(offset, length), out Members members, ref pending, ref pendingLength);
                if (shape == Shape.Raw || depth == MaxUnwrapDepth)
                {
                    break;
                }

                if (shape == Shape.SnsControl)
                {
                    return new InboundMessage(InboundMessageKind.SnsControlMessage, null);
                }

                ReadOnlySpan<byte> document = current.AsSpan(offset, length);
                if (shape == Shape.Sns)
                {
                    state.Kind = InboundMessageKind.SnsNotification;
                    state.Sns = ReadSnsMetadata(document, members, ref state.ContentType);
                    if (pending is null)
                    {
                        throw new InvalidEnvelopeException(InvalidEnvelopeReason.Malformed, "The SNS Message is not a JSON string.", members.Message.Start);
                    }

                    // The document being read may live in the previous inner buffer: it is released only now.
                    if (innerBuffer is not null)
                    {
                        Return(pool, innerBuffer, innerLength);
                    }

                    (innerBuffer, innerLength, pending) = (pending, pendingLength, null);
                    current = innerBuffer;
                    offset = 0;
                    length = innerLength;
                }
                else
                {
                    state.Kind = InboundMessageKind.EventBridgeEvent;
                    state.EventBridge = ReadEventBridgeMetadata(document, members);
                    if (members.Detail.TokenType == JsonTokenType.String)
                    {
                        Unescape(document, members.Detail, ref innerBuffer, ref innerLength);
                        current = innerBuffer!;
                        offset = 0;
                        length = innerLength;
                    }
                    else
                    {
                        offset += (int)members.Detail.Start;
                        length = (int)members.Detail.Length;
                        UnwrapProtobufDetail(current, ref offset, ref length, ref state.ContentType);
                    }
                }
            }

            MessageEnvelope envelope = ReadEnvelope(current, offset, length, state.ContentType);
            envelope.SqsMetadata = CreateSqsMetadata(message);
            envelope.SnsMetadata = state.Sns;
            envelope.EventBridgeMetadata = state.EventBridge;
            return new InboundMessage(state.Kind, envelope);
        }
        catch (InvalidEnvelopeException e)
        {
            e.RawBody = Encoding.UTF8.GetBytes(body); // from the text: the buffer may have been decoded in place
            throw;
        }
        catch (JsonException e)
        {
            throw Malformed("The message body is not well-formed JSON around the envelope.", body, e, e.BytePositionInLine ?? -1);
        }
        catch (InvalidOperationException e)
        {
            // Decoding a wrapper string (the envelope itself is read by the serializers, which convert their own).
            throw Malformed("A string around the envelope is not valid UTF-8.", body, e, -1);
        }
        catch (FormatException e)
        {
            throw Malformed("A binary SNS message attribute is not valid base64.", body, e, -1);
        }
        finally
        {
            Return(pool, bodyBuffer, bodyLength);
            if (innerBuffer is not null)
            {
                Return(pool, innerBuffer, innerLength);
            }

            if (pending is not null)
            {
                Return(pool, pending, pendingLength);
            }
        }
    }

    private InvalidEnvelopeException Malformed(string message, string body, Exception cause, long position)
        => new(InvalidEnvelopeReason.Malformed, message, position, innerException: _options.LogMessageContent ? cause : null)
        {
            RawBody = Encoding.UTF8.GetBytes(body),
        };

    private MessageEnvelope ReadEnvelope(byte[] buffer, int offset, int length, string? contentType)
    {
        EnvelopeFormat format = contentType is not null
            ? EnvelopeSerializerProvider.FromContentType(contentType)
            : EnvelopeSerializerProvider.Detect(new ReadOnlySequence<byte>(buffer, offset, length));
        if (format == EnvelopeFormat.Protobuf)
        {
            // Protobuf travels as base64 text: decode where it lies.
            if (Base64.DecodeFromUtf8InPlace(buffer.AsSpan(offset, length), out int decoded) != OperationStatus.Done)
            {
                throw new InvalidEnvelopeException(InvalidEnvelopeReason.Malformed, "The body is neither a JSON envelope nor base64 protobuf.");
            }

            length = decoded;
        }

        return _serializers.Deserialize(new ReadOnlySequence<byte>(buffer, offset, length), format == EnvelopeFormat.Protobuf ? ContentTypes.CloudEventsProtobuf : ContentTypes.CloudEventsJson);
    }

    private void Unescape(ReadOnlySpan<byte> document, Member member, ref byte[]? buffer, ref int length)
    {
        if (member.TokenType != JsonTokenType.String)
        {
            throw new InvalidEnvelopeException(InvalidEnvelopeReason.Malformed, "The wrapped envelope is not a JSON string.", member.Start);
        }

        var reader = new Utf8JsonReader(document.Slice((int)member.Start, (int)member.Length), _readerOptions);
        reader.Read();
        byte[] target = CopyToRented(ref reader, out int copied);

        // The document may live in the previous buffer: release it only once the copy is made.
        if (buffer is not null)
        {
            Return(_options.BufferPool, buffer, length);
        }

        buffer = target;
        length = copied;
    }

    /// <summary>Unescapes the string token the reader is on into a newly rented array (never longer than its escaped form).</summary>
    private byte[] CopyToRented(ref Utf8JsonReader reader, out int length)
    {
        int needed = reader.HasValueSequence ? (int)reader.ValueSequence.Length : reader.ValueSpan.Length;
        byte[] target = _options.BufferPool.Rent(Math.Max(1, needed));
        try
        {
            length = reader.CopyString(target);
            return target;
        }
        catch
        {
            _options.BufferPool.Return(target);
            throw;
        }
    }

    /// <summary>Recognises Missive's protobuf-in-EventBridge shape and points at the base64 text it holds.</summary>
    private void UnwrapProtobufDetail(byte[] buffer, ref int offset, ref int length, ref string? contentType)
    {
        var reader = new Utf8JsonReader(buffer.AsSpan(offset, length), _readerOptions);
        reader.Read();
        if (!reader.Read() || reader.TokenType != JsonTokenType.PropertyName || !reader.ValueTextEquals("contentType"u8)
            || !reader.Read() || reader.TokenType != JsonTokenType.String || !reader.ValueTextEquals(ContentTypes.CloudEventsProtobuf)
            || !reader.Read() || reader.TokenType != JsonTokenType.PropertyName || !reader.ValueTextEquals("body"u8)
            || !reader.Read() || reader.TokenType != JsonTokenType.String || reader.ValueIsEscaped)
        {
            return;
        }

        int start = offset + (int)reader.TokenStartIndex + 1; // inside the quotes: base64 needs no escaping
        length = reader.ValueSpan.Length;
        offset = start;
        contentType = ContentTypes.CloudEventsProtobuf;
    }

    /// <summary>
    /// Finds the top-level members that tell the shape, in one pass. A string <c>Message</c> member is
    /// unescaped into <paramref name="pending"/> while the reader is on it, so an SNS notification's
    /// envelope is validated and copied once.
    /// </summary>
    private Shape Classify(ReadOnlySpan<byte> document, out Members members, ref byte[]? pending, ref int pendingLength)
    {
        members = default;
        if (EnvelopeSerializerProvider.Detect(document) != EnvelopeFormat.Json)
        {
            return Shape.Raw; // not a JSON object: base64 protobuf, or garbage the serializer will reject
        }

        var reader = new Utf8JsonReader(document, _readerOptions);
        reader.Read();

        bool first = true;
        while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
        {
            if (first && IsCloudEventsMember(ref reader))
            {
                return Shape.Raw;
            }

            first = false;
            ref Member slot = ref members.Slot(ref reader);
            reader.Read();
            long start = reader.TokenStartIndex;
            JsonTokenType type = reader.TokenType;
            if (type == JsonTokenType.String && !System.Runtime.CompilerServices.Unsafe.IsNullRef(ref slot) && System.Runtime.CompilerServices.Unsafe.AreSame(ref slot, ref members.Message))
            {
                byte[] copy = CopyToRented(ref reader, out int copied);
                if (pending is not null)
                {
                    Return(_options.BufferPool, pending, pendingLength); // a repeated member: the last one counts
                }

                (pending, pendingLength) = (copy, copied);
            }

            reader.Skip();
            if (!System.Runtime.CompilerServices.Unsafe.IsNullRef(ref slot))
            {
                slot = new Member(type, start, reader.BytesConsumed - start);
            }
        }

        if (members.Type.IsPresent && members.MessageId.IsPresent && members.TopicArn.IsPresent && members.Type.TokenType == JsonTokenType.String)
        {
            ReadOnlySpan<byte> type = Value(document, members.Type);
            if (type.SequenceEqual("\"Notification\""u8))
            {
                return Shape.Sns;
            }

            if (type.SequenceEqual("\"SubscriptionConfirmation\""u8) || type.SequenceEqual("\"UnsubscribeConfirmation\""u8))
            {
                return Shape.SnsControl;
            }
        }

        if (members.Detail.IsPresent && members.DetailType.IsPresent && members.Source.IsPresent && members.Time.IsPresent)
        {
            return Shape.EventBridge;
        }

        return Shape.Raw;
    }

    private static bool IsCloudEventsMember(ref Utf8JsonReader reader)
        => reader.ValueTextEquals("id"u8) || reader.ValueTextEquals("specversion"u8) || reader.ValueTextEquals("type"u8)
        || reader.ValueTextEquals("datacontenttype"u8) || reader.ValueTextEquals("data"u8) || reader.ValueTextEquals("data_base64"u8);

    private static ReadOnlySpan<byte> Value(ReadOnlySpan<byte> document, Member member) => document.Slice((int)member.Start, (int)member.Length);

    private SnsMetadata ReadSnsMetadata(ReadOnlySpan<byte> document, in Members members, ref string? contentType)
    {
        Dictionary<string, MessageAttributeValue> attributes = members.MessageAttributes.IsPresent
            ? ReadSnsAttributes(Value(document, members.MessageAttributes))
            : [];
        if (attributes.TryGetValue(TransportConventions.ContentTypeAttribute, out MessageAttributeValue? ct) && ct.StringValue is { } text)
        {
            contentType = text;
        }

        return new SnsMetadata
        {
            MessageId = StringOf(document, members.MessageId) ?? string.Empty,
            TopicArn = StringOf(document, members.TopicArn) ?? string.Empty,
            Subject = StringOf(document, members.Subject),
            Timestamp = TimeOf(document, members.Timestamp),
            UnsubscribeUrl = StringOf(document, members.UnsubscribeUrl),
            MessageAttributes = attributes,
        };
    }

    private EventBridgeMetadata ReadEventBridgeMetadata(ReadOnlySpan<byte> document, in Members members)
    {
        var resources = new List<string>();
        if (members.Resources.IsPresent && members.Resources.TokenType == JsonTokenType.StartArray)
        {
            var reader = new Utf8JsonReader(Value(document, members.Resources), _readerOptions);
            reader.Read();
            while (reader.Read() && reader.TokenType == JsonTokenType.String)
            {
                resources.Add(reader.GetString()!);
            }
        }

        return new EventBridgeMetadata
        {
            EventId = StringOf(document, members.Id) ?? string.Empty,
            DetailType = StringOf(document, members.DetailType) ?? string.Empty,
            Source = StringOf(document, members.Source) ?? string.Empty,
            Account = StringOf(document, members.Account),
            Region = StringOf(document, members.Region),
            Time = TimeOf(document, members.Time),
            Resources = resources,
        };
    }

    private Dictionary<string, MessageAttributeValue> ReadSnsAttributes(ReadOnlySpan<byte> json)
    {
        var attributes = new Dictionary<string, MessageAttributeValue>(StringComparer.Ordinal);
        var reader = new Utf8JsonReader(json, _readerOptions);
        if (!reader.Read() || reader.TokenType != JsonTokenType.StartObject)
        {
            return attributes;
        }

        while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
        {
            string name = reader.GetString()!;
            reader.Read();
            if (reader.TokenType != JsonTokenType.StartObject)
            {
                reader.Skip();
                continue;
            }

            string type = "String";
            string? value = null;
            while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
            {
                bool isType = reader.ValueTextEquals("Type"u8);
                bool isValue = reader.ValueTextEquals("Value"u8);
                reader.Read();
                if (reader.TokenType == JsonTokenType.String && (isType || isValue))
                {
                    if (isType)
                    {
                        type = reader.GetString()!;
                    }
                    else
                    {
                        value = reader.GetString();
                    }
                }
                else
                {
                    reader.Skip();
                }
            }

            attributes[name] = type.StartsWith("Binary", StringComparison.Ordinal)
                ? new MessageAttributeValue { DataType = type, BinaryValue = Convert.FromBase64String(value ?? string.Empty) }
                : new MessageAttributeValue { DataType = type, StringValue = value };
        }

        return attributes;
    }

    private string? StringOf(ReadOnlySpan<byte> document, Member member)
    {
        if (!member.IsPresent || member.TokenType != JsonTokenType.String)
        {
            return null;
        }

        var reader = new Utf8JsonReader(Value(document, member), _readerOptions);
        reader.Read();
        return reader.GetString();
    }

    private static DateTimeOffset? TimeOf(ReadOnlySpan<byte> document, Member member)
    {
        if (!member.IsPresent || member.TokenType != JsonTokenType.String || member.Length < 2)
        {
            return null;
        }

        return Rfc3339.TryParse(Value(document, member)[1..^1], out DateTimeOffset value) ? value : null;
    }

    private static SqsMetadata CreateSqsMetadata(SqsMessage message)
    {
        message.SystemAttributes.TryGetValue(SqsSystemAttributes.MessageGroupId, out string? group);
        message.SystemAttributes.TryGetValue(SqsSystemAttributes.MessageDeduplicationId, out string? deduplication);
        return new SqsMetadata
        {
            MessageId = message.MessageId,
            ReceiptHandle = message.ReceiptHandle,
            ApproximateReceiveCount = message.ReceiveCount,
            MessageGroupId = group,
            MessageDeduplicationId = deduplication,
            MessageAttributes = message.MessageAttributes,
        };
    }

    private void Return(ArrayPool<byte> pool, byte[] buffer, int used)
    {
        if (_options.CleanRentedBuffers)
        {
            buffer.AsSpan(0, Math.Min(used, buffer.Length)).Clear();
        }

        pool.Return(buffer);
    }

    private enum Shape
    {
        Raw,
        Sns,
        SnsControl,
        EventBridge,
    }

    /// <summary>Where a top-level member's value lies in the document.</summary>
    private readonly record struct Member(JsonTokenType TokenType, long Start, long Length)
    {
        public bool IsPresent => Length > 0;
    }

    /// <summary>The top-level members the classification looks at.</summary>
    private struct Members
    {
        public Member Type, MessageId, TopicArn, Message, Subject, Timestamp, UnsubscribeUrl, MessageAttributes;
        public Member Detail, DetailType, Source, Time, Id, Account, Region, Resources;

        [System.Diagnostics.CodeAnalysis.UnscopedRef]
        public ref Member Slot(ref Utf8JsonReader reader)
        {
            ReadOnlySpan<byte> name = reader.HasValueSequence || reader.ValueIsEscaped ? default : reader.ValueSpan;
            switch (name.Length)
            {
                case 2 when name.SequenceEqual("id"u8): return ref Id;
                case 4 when name.SequenceEqual("Type"u8): return ref Type;
                case 4 when name.SequenceEqual("time"u8): return ref Time;
                case 6 when name.SequenceEqual("detail"u8): return ref Detail;
                case 6 when name.SequenceEqual("source"u8): return ref Source;
                case 6 when name.SequenceEqual("region"u8): return ref Region;
                case 7 when name.SequenceEqual("Message"u8): return ref Message;
                case 7 when name.SequenceEqual("Subject"u8): return ref Subject;
                case 7 when name.SequenceEqual("account"u8): return ref Account;
                case 8 when name.SequenceEqual("TopicArn"u8): return ref TopicArn;
                case 9 when name.SequenceEqual("MessageId"u8): return ref MessageId;
                case 9 when name.SequenceEqual("Timestamp"u8): return ref Timestamp;
                case 9 when name.SequenceEqual("resources"u8): return ref Resources;
                case 11 when name.SequenceEqual("detail-type"u8): return ref DetailType;
                case 14 when name.SequenceEqual("UnsubscribeURL"u8): return ref UnsubscribeUrl;
                case 17 when name.SequenceEqual("MessageAttributes"u8): return ref MessageAttributes;
                default: return ref System.Runtime.CompilerServices.Unsafe.NullRef<Member>();
            }
        }
    }

    private struct UnwrapState
    {
        public InboundMessageKind Kind;
        public string? ContentType;
        public SnsMetadata? Sns;
        public EventBridgeMetadata? EventBridge;

        public UnwrapState(SqsMessage message)
        {
            Kind = InboundMessageKind.Raw;
            Sns = null;
            EventBridge = null;
            ContentType = message.MessageAttributes.TryGetValue(TransportConventions.ContentTypeAttribute, out MessageAttributeValue? value) ? value.StringValue : null;
        }
    }
}
