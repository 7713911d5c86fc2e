using System;
using System.Buffers;
using System.Buffers.Text;
using System.Text;
using System.Text.Json;
using System.Text.Unicode;
using Missive.Buffers;
using Missive.Lexing;
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
/// <item>Raw: the body is the envelope.</item>
/// </list>
/// <para>A body the transport gave as UTF-8 bytes (<see cref="SqsMessage.Utf8Body"/>) is read as it is; one given as
/// text is encoded to UTF-8 once, into a rented buffer. An SNS <c>Message</c> is unescaped in
/// one pass into a second rented buffer (no intermediate string); an EventBridge <c>detail</c> object is
/// read where it lies (with <see cref="Json.Utf8JsonEnvelopeSerializer"/>, while the wrapper is read, so the
/// detail is not tokenized twice). Format: the <c>contentType</c> message attribute when present (SNS's, then SQS's),
/// else a payload starting with <c>{</c> is JSON and anything else base64 protobuf, decoded into a rented buffer.
/// Rented buffers are cleared as <see cref="SerializationOptions.CleanRentedBuffers"/> says.</para>
/// <para>With <see cref="NativeMessageRules"/> (<see cref="Read(SqsMessage, NativeMessageRules?)"/>), a body that is not
/// an envelope (no top-level <c>specversion</c>, not base64 protobuf) is read, after its wrappers, as the type of the
/// first rule that matches it; see <see cref="NativeMessageRules"/>.</para>
/// <para>A body that cannot be read throws <see cref="InvalidEnvelopeException"/> whose
/// <see cref="InvalidEnvelopeException.RawBody"/> is the whole SQS body (its UTF-8 bytes), so nothing is lost.</para>
/// </remarks>
public sealed partial class InboundMessageReader
{
    private const int MaxUnwrapDepth = 3;

    private readonly IEnvelopeSerializerProvider _serializers;
    private readonly SerializerSettings _settings;
    private readonly ILeadingEnvelopeReader? _detailReader;
    private readonly bool _scanWrappers;
    private readonly MessageTypeMap? _types;

    /// <summary>Creates the reader.</summary>
    /// <param name="serializers">The envelope serializers. Must not be null.</param>
    /// <param name="options">The serialization options (pool, limits), copied now. Must not be null.</param>
    public InboundMessageReader(IEnvelopeSerializerProvider serializers, SerializationOptions options)
        : this(serializers, options, DetailReaderOf(serializers))
    {
    }

    /// <summary>
    /// The provider's JSON serializer as the reader of an EventBridge <c>detail</c> where it lies, when it can be one
    /// (the fast serializer): the reader built here reads as fast as the one the bus composes.
    /// </summary>
    private static ILeadingEnvelopeReader? DetailReaderOf(IEnvelopeSerializerProvider serializers)
    {
        ArgumentNullException.ThrowIfNull(serializers);
        return serializers.GetSerializer(EnvelopeFormat.Json) as ILeadingEnvelopeReader;
    }

    /// <summary>
    /// Creates the reader. <paramref name="detailReader"/>, given where the bus is composed (the fast JSON serializer,
    /// which is then the provider's JSON serializer too), reads an envelope in an EventBridge <c>detail</c> object
    /// where it lies; without it the detail is skipped and read on its own. <paramref name="scanWrappers"/> off reads
    /// every wrapper with a reader (the tests compare the two).
    /// </summary>
    internal InboundMessageReader(IEnvelopeSerializerProvider serializers, SerializationOptions options, ILeadingEnvelopeReader? detailReader, bool scanWrappers = true)
    {
        ArgumentNullException.ThrowIfNull(serializers);
        _scanWrappers = scanWrappers;
        _serializers = serializers;
        _settings = SerializerSettings.From(options);
        _detailReader = detailReader;
        _types = serializers.MessageTypes;
    }

    /// <summary>Gets the reader of an EventBridge <c>detail</c> where it lies, or <c>null</c> when the detail is read on its own.</summary>
    internal ILeadingEnvelopeReader? DetailReader => _detailReader;

    /// <summary>Gets whether message content may appear in logs and exception messages (<see cref="SerializationOptions.LogMessageContent"/>).</summary>
    internal bool LogMessageContent => _settings.LogMessageContent;

    /// <summary>Reads a received message.</summary>
    /// <param name="message">The message. Must not be null.</param>
    /// <returns>The kind of body and, unless it was an SNS control message, the envelope with its metadata.</returns>
    /// <exception cref="InvalidEnvelopeException">The body is not a readable envelope in any of the shapes.</exception>
    public InboundMessage Read(SqsMessage message) => Read(message, native: null);

    /// <summary>Reads a received message whose body may also be a native message (not an envelope).</summary>
    /// <param name="message">The message. Must not be null.</param>
    /// <param name="native">
    /// How a body that is not an envelope is read, or <c>null</c> (or empty): every body must be an envelope. The types
    /// its rules name must be registered in the serializers' <see cref="MessageTypeMap"/>.
    /// </param>
    /// <returns>The kind of body and, unless it was a control message, the envelope with its metadata (<see cref="MessageEnvelope.IsNative"/> for a native message).</returns>
    /// <exception cref="InvalidEnvelopeException">
    /// The body is not a readable envelope in any of the shapes, and no rule matched it (<see cref="InvalidEnvelopeReason.NoNativeRuleMatched"/>)
    /// or its JSON does not fit the type a rule chose (<see cref="InvalidEnvelopeReason.InvalidData"/>).
    /// </exception>
    /// <exception cref="InvalidOperationException">Rules are given but the serializers have no message type map.</exception>
    public InboundMessage Read(SqsMessage message, NativeMessageRules? native)
    {
        ArgumentNullException.ThrowIfNull(message);
        if (native is { IsEmpty: true })
        {
            native = null;
        }
        else if (native is not null && _types is null)
        {
            throw new InvalidOperationException("Native message rules need the bus's envelope serializers (their MessageTypeMap registers the rules' types).");
        }

        // SQS bodies are at most 1 MiB; allow for base64 and escaping around an envelope of MaxEnvelopeSize.
        long limit = (_settings.MaxEnvelopeSize * 2L) + 4096;
        if (message.HasUtf8Body)
        {
            ReadOnlyMemory<byte> utf8 = message.Utf8Body;
            if (utf8.Length > limit)
            {
                throw TooLarge(limit);
            }

            return Read(message, utf8, native);
        }

        string body = message.Body;
        if ((long)body.Length * 3 > limit && Encoding.UTF8.GetByteCount(body) > limit)
        {
            throw TooLarge(limit);
        }

        using RentedBuffer encoded = Encode(body, out int length);
        return Read(message, encoded.Memory[..length], native);
    }

    /// <summary>Reads the body's UTF-8 bytes; on failure the exception keeps a copy of them (the caller may return its buffer).</summary>
    private InboundMessage Read(SqsMessage message, ReadOnlyMemory<byte> utf8, NativeMessageRules? native)
    {
        try
        {
            var state = new UnwrapState { Kind = InboundMessageKind.Raw, Format = ContentTypeAttribute.FormatOf(message.MessageAttributes), Native = native, Message = message };
            MessageEnvelope? envelope = native?.LeadingAttributeRule(message.MessageAttributes) is { } byAttribute && !IsEnvelope(utf8.Span, state.Format)
                ? ReadNativeAs(byAttribute.Registration(_types!), utf8, ref state, type: null)
                : Unwrap(utf8, depth: 0, ref state);
            if (envelope is null)
            {
                return new InboundMessage(state.Kind, null);
            }

            envelope.SqsMetadata = new SqsMetadata(message.MessageId, message.ReceiptHandle, message.MessageAttributes, message.SystemAttributes);
            envelope.SnsMetadata = state.Sns;
            envelope.EventBridgeMetadata = state.EventBridge;
            return new InboundMessage(state.Kind, envelope);
        }
        catch (InvalidEnvelopeException e)
        {
            e.RawBody = utf8.ToArray();
            throw;
        }
        catch (JsonException e)
        {
            throw Malformed("The message body is not well-formed JSON around the envelope.", utf8, e, e.BytePositionInLine ?? -1);
        }
        catch (InvalidOperationException e)
        {
            // Decoding a wrapper string (the envelope itself is read by the serializers, which convert their own).
            throw Malformed("A string around the envelope is not valid UTF-8.", utf8, e, -1);
        }
        catch (FormatException e)
        {
            throw Malformed("A binary SNS message attribute is not valid base64.", utf8, e, -1);
        }
    }

    private static InvalidEnvelopeException TooLarge(long limit)
        => ThrowHelper.Create(InvalidEnvelopeReason.LimitExceeded, $"The message body is over {limit} bytes (twice SerializationOptions.MaxEnvelopeSize, plus room for a wrapper)");

    /// <summary>
    /// Reads the envelope in <paramref name="document"/>, unwrapping one wrapper per level. Each level's scan
    /// owns the buffer it unescapes into, so a buffer is released only after everything inside it was read.
    /// </summary>
    /// <returns>The envelope, or <c>null</c> for an SNS control message.</returns>
    private MessageEnvelope? Unwrap(ReadOnlyMemory<byte> document, int depth, ref UnwrapState state)
    {
        if (state.Native is not null && state.Format != EnvelopeFormat.Protobuf && depth < MaxUnwrapDepth)
        {
            // With native rules, one vectorized look at the top-level names decides most bodies without the wrapper scan.
            switch (ShapeWithRules(document.Span, out TopLevelNames names))
            {
                case NativeShape.Envelope:
                    return ReadEnvelope(document, state.Format);
                case NativeShape.Native:
                    return ReadNativeOrTestEvent(document, names, ref state);
            }
        }

        using var scan = new WrapperScan(document, _settings, state.Format == EnvelopeFormat.Protobuf ? null : _detailReader, EventBridgeRulesFirst(ref state), _types, state.Message.MessageAttributes);
        WrapperShape shape = depth == MaxUnwrapDepth ? WrapperShape.Raw : scan.Classify(_scanWrappers);
        switch (shape)
        {
            case WrapperShape.SnsNotification:
                state.Kind = InboundMessageKind.SnsNotification;
                state.Sns = SnsNotificationReader.ReadMetadata(document.Span, scan.Members, _settings.WrapperReaderOptions, _settings.Strings);
                state.Format = ContentTypeAttribute.FormatOf(state.Sns.MessageAttributes) ?? state.Format;
                if (!scan.TryGetMessage(out Memory<byte> message))
                {
                    throw ThrowHelper.Create(InvalidEnvelopeReason.Malformed, "The SNS Message is not a JSON string", scan.Members.Message.Start);
                }

                return Unwrap(message, depth + 1, ref state);
            case WrapperShape.SnsControl:
                state.Kind = InboundMessageKind.SnsControlMessage;
                return null;
            case WrapperShape.EventBridgeEvent:
                state.Kind = InboundMessageKind.EventBridgeEvent;
                state.EventBridge = EventBridgeEventReader.ReadMetadata(document.Span, scan.Members, _settings.WrapperReaderOptions, _settings.Strings);
                DetailInPlace detail = scan.Detail;
                if (detail.DataFailure is { } failure)
                {
                    throw failure;
                }

                if (detail.NativeType is { } native)
                {
                    return AsNative(detail.Envelope!, native.Identifier, ref state);
                }

                if (detail.Envelope is { } envelope)
                {
                    return envelope;
                }

                if (EventBridgeRulesFirst(ref state)?.LeadingEventBridgeRule(state.EventBridge!, state.Message.MessageAttributes) is { } rule && scan.Members.Detail.TokenType == JsonTokenType.StartObject)
                {
                    return ReadNativeAs(rule.Registration(_types!), document.Slice((int)scan.Members.Detail.Start, (int)scan.Members.Detail.Length), ref state, type: null);
                }

                return UnwrapDetail(document, scan.Members.Detail, depth, ref state);
            default:
                return state.Native is null ? ReadEnvelope(document, state.Format) : ReadEnvelopeOrNative(document, ref state);
        }
    }

    /// <summary>Reads an EventBridge <c>detail</c>: an object read where it lies, or a string holding one.</summary>
    private MessageEnvelope? UnwrapDetail(ReadOnlyMemory<byte> document, WrapperMember detail, int depth, ref UnwrapState state)
    {
        if (detail.TokenType == JsonTokenType.String)
        {
            using RentedBuffer unescaped = WrapperJson.Unescape(document.Span, detail, _settings, out int length);
            return Unwrap(unescaped.Memory[..length], depth + 1, ref state);
        }

        ReadOnlyMemory<byte> value = document.Slice((int)detail.Start, (int)detail.Length);
        if (EventBridgeProtobufDetail.TryUnwrap(value.Span, _settings.JsonReaderOptions, out Range body))
        {
            state.Format = EnvelopeFormat.Protobuf;
            return ReadEnvelope(value[body], EnvelopeFormat.Protobuf);
        }

        return Unwrap(value, depth + 1, ref state);
    }

    private MessageEnvelope ReadEnvelope(ReadOnlyMemory<byte> payload, EnvelopeFormat? format)
    {
        EnvelopeFormat actual = format ?? EnvelopeFormatDetector.Detect(payload.Span);
        if (actual == EnvelopeFormat.Protobuf)
        {
            // Protobuf travels as base64 text, decoded into a buffer of its own: decoding in place has no
            // vectorized form and costs several times more.
            using RentedBuffer decoded = _settings.Rent(Base64.GetMaxDecodedFromUtf8Length(payload.Length));
            if (Base64.DecodeFromUtf8(payload.Span, decoded.Span, out _, out int length) != OperationStatus.Done)
            {
                throw ThrowHelper.Create(InvalidEnvelopeReason.Malformed, "The body is neither a JSON envelope nor base64 protobuf");
            }

            return _serializers.Deserialize(new ReadOnlySequence<byte>(decoded.Memory[..length]), actual);
        }

        return _serializers.Deserialize(new ReadOnlySequence<byte>(payload), actual);
    }

    /// <summary>
    /// Encodes the body as UTF-8 into a rented buffer. Bodies are mostly ASCII, so a buffer of the body's length is
    /// tried first, without counting the bytes; text beyond ASCII fills it before the end, and only the rest is then
    /// counted and encoded after what was written (the body is not encoded again from its start). Lone surrogates become
    /// U+FFFD, as <see cref="Encoding.UTF8"/> writes them.
    /// </summary>
    private RentedBuffer Encode(string body, out int length)
    {
        RentedBuffer buffer = _settings.Rent(body.Length);
        if (Utf8.FromUtf16(body, buffer.Span, out int read, out length) == OperationStatus.Done)
        {
            return buffer;
        }

        ReadOnlySpan<char> rest = body.AsSpan(read); // starts at a whole character: a pair is never split
        RentedBuffer larger = _settings.Rent(length + Encoding.UTF8.GetByteCount(rest));
        buffer.Span[..length].CopyTo(larger.Span);
        buffer.Dispose();
        length += Encoding.UTF8.GetBytes(rest, larger.Span[length..]);
        return larger;
    }

    private InvalidEnvelopeException Malformed(string message, ReadOnlyMemory<byte> body, Exception cause, long position)
    {
        InvalidEnvelopeException e = ThrowHelper.Create(InvalidEnvelopeReason.Malformed, message, position, inner: _settings.LogMessageContent ? cause : null);
        e.RawBody = body.ToArray();
        return e;
    }

    /// <summary>What unwrapping has learned so far: the innermost wrapper's kind, each wrapper's metadata, and the format a <c>contentType</c> attribute names.</summary>
    private struct UnwrapState
    {
        public InboundMessageKind Kind;
        public EnvelopeFormat? Format;
        public SnsMetadata? Sns;
        public EventBridgeMetadata? EventBridge;
        public NativeMessageRules? Native;
        public SqsMessage Message;
    }
}
