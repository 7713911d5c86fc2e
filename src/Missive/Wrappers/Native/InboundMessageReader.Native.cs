using System;
using System.Buffers.Text;
using System.Collections.Generic;
using System.Text.Json;
using Missive.Lexing;
using Missive.Serialization;

namespace Missive.Transport;

/// <summary>Native messages: bodies that are not envelopes, read as the type a <see cref="NativeMessageRules"/> rule names.</summary>
public sealed partial class InboundMessageReader
{
    /// <summary>What the envelope's <c>source</c> is for a native message that came straight to a queue.</summary>
    internal const string SqsSource = "aws:sqs";

    /// <summary>What the envelope's <c>type</c> is for a native message no rule matched, read for the fallback handler.</summary>
    internal const string UnmatchedNativeType = "native";

    /// <summary>
    /// The rules, when an EventBridge event's detail may be read by the leading EventBridge rule that matches it: no SNS
    /// notification with attributes is around the event (an attribute rule could match those first; SQS's own attributes
    /// are checked against the attribute rules that come before it).
    /// </summary>
    private static NativeMessageRules? EventBridgeRulesFirst(ref UnwrapState state)
        => state.Sns is { MessageAttributes.Count: > 0 } ? null : state.Native;

    /// <summary>What a document is, as far as its top-level names tell, on a queue with native rules.</summary>
    private enum NativeShape
    {
        /// <summary>An SNS or EventBridge wrapper, or not JSON: the wrapper scan and the envelope readers decide.</summary>
        Undecided,

        /// <summary>A JSON object with a top-level <c>specversion</c>: only an envelope has one.</summary>
        Envelope,

        /// <summary>JSON that is neither an envelope nor a wrapper.</summary>
        Native,
    }

    private static NativeShape ShapeWithRules(ReadOnlySpan<byte> document, out TopLevelNames names)
    {
        names = TopLevelNames.None;
        int first = JsonWhitespace.Skip(document, 0);
        if (first < 0 || document[first] is not ((byte)'{' or (byte)'['))
        {
            return NativeShape.Undecided; // base64 protobuf, or input the envelope reader names the problem of
        }

        if (document[first] == (byte)'{' && StartsWithWrapperMember(document[(first + 1)..]))
        {
            return NativeShape.Undecided; // SNS notifications start with Type, EventBridge events with version: the scan reads them
        }

        names = JsonTopLevel.DecidingNames(document);
        return (names & TopLevelNames.SpecVersion) != 0 ? NativeShape.Envelope
            : (names & TopLevelNames.SnsNotification) == TopLevelNames.SnsNotification || (names & TopLevelNames.EventBridgeEvent) == TopLevelNames.EventBridgeEvent ? NativeShape.Undecided
            : NativeShape.Native;
    }

    /// <summary>
    /// Whether a body is a CloudEvents envelope whatever its attributes say: a <c>contentType</c> attribute naming protobuf,
    /// or a JSON object with a top-level <c>specversion</c> (one vectorized search when the name appears nowhere).
    /// </summary>
    private static bool IsEnvelope(ReadOnlySpan<byte> body, EnvelopeFormat? format)
        => format == EnvelopeFormat.Protobuf || (JsonTopLevel.IsContainer(body) && JsonTopLevel.HasSpecVersion(body));

    private static bool StartsWithWrapperMember(ReadOnlySpan<byte> content)
    {
        int quote = JsonWhitespace.Skip(content, 0);
        return quote >= 0 && (content[quote..].StartsWith("\"Type\""u8) || content[quote..].StartsWith("\"version\""u8));
    }

    /// <summary>
    /// The innermost payload once the wrapper scan found no wrapper, with native rules: an envelope when it is one (a JSON
    /// object with a <c>specversion</c> member, or anything that is not JSON, which may be base64 protobuf), else native.
    /// </summary>
    private MessageEnvelope? ReadEnvelopeOrNative(ReadOnlyMemory<byte> payload, ref UnwrapState state)
    {
        ReadOnlySpan<byte> span = payload.Span;
        if (state.Format == EnvelopeFormat.Protobuf)
        {
            return ReadEnvelope(payload, state.Format);
        }

        if (JsonTopLevel.IsContainer(span))
        {
            TopLevelNames names = JsonTopLevel.DecidingNames(span);
            return (names & TopLevelNames.SpecVersion) != 0 ? ReadEnvelope(payload, state.Format) : ReadNativeOrTestEvent(payload, names, ref state);
        }

        if (!MayBeBase64Protobuf(span))
        {
            return ReadNative(payload, ref state); // text: an SNS Message or a body that is neither JSON nor an envelope
        }

        try
        {
            return ReadEnvelope(payload, state.Format);
        }
        catch (InvalidEnvelopeException)
        {
            return ReadNative(payload, ref state); // text that happens to look like one
        }
    }

    /// <summary>
    /// Whether text may be a CloudEvents protobuf envelope in base64 without a <c>contentType</c> attribute: valid base64
    /// whose first byte is the tag of field 1 (<c>id</c>, 0x0A, which every writer puts first: fields go in number
    /// order), so its first character is <c>C</c>. Plain text is told apart without trying to read it.
    /// </summary>
    private static bool MayBeBase64Protobuf(ReadOnlySpan<byte> text)
    {
        int first = JsonWhitespace.Skip(text, 0);
        return first >= 0 && text[first] == (byte)'C' && Base64.IsValid(text);
    }

    /// <summary>S3's test event (skipped: nothing to handle), or a native message; <paramref name="names"/> are its top-level names as the prescan found them.</summary>
    private MessageEnvelope? ReadNativeOrTestEvent(ReadOnlyMemory<byte> payload, TopLevelNames names, ref UnwrapState state)
    {
        if (IsS3TestEvent(payload.Span, _settings.JsonReaderOptions))
        {
            state.Kind = InboundMessageKind.S3TestEvent;
            return null;
        }

        return ReadNative(payload, ref state, names);
    }

    /// <summary>A native message as the first rule that matches reads it; <paramref name="names"/>, when known, spare the rules a look for members the body lacks.</summary>
    private MessageEnvelope ReadNative(ReadOnlyMemory<byte> payload, ref UnwrapState state, TopLevelNames? names = null)
    {
        IReadOnlyDictionary<string, MessageAttributeValue> attributes = state.Message.MessageAttributes;
        var candidate = new NativeCandidate(payload.Span, attributes, state.Sns, state.EventBridge, _settings.JsonReaderOptions, names);
        IReadOnlyList<NativeMessageRule> rules = state.Native!.Rules;
        for (int i = 0; i < rules.Count; i++)
        {
            NativeMessageRule rule = rules[i];
            bool matched;
            try
            {
                matched = rule.Test(ref candidate);
            }
            catch (Exception e) when (PayloadErrors.IsDataError(e))
            {
                throw ThrowHelper.Create(InvalidEnvelopeReason.NoNativeRuleMatched, $"The native message rule '{rule.Description}' threw {e.GetType().Name}", inner: ContentSafety.Inner(e, _settings.LogMessageContent));
            }

            if (matched)
            {
                MessageTypeInfo info = rule.Registration(_types!);
                return rule.MassTransitUrn is not null ? ReadMassTransitAs(info, payload, candidate.MassTransitMessageTypes()!, candidate.IsMassTransitRaw, candidate.MassTransitPreamble, candidate.Attributes, ref state)
                    : rule.NServiceBusTypeName is not null ? ReadNServiceBusAs(info, payload, candidate.NServiceBus()!, candidate.Attributes, ref state)
                    : ReadNativeAs(info, payload, ref state, type: null);
            }
        }

        string[]? massTransitTypes = candidate.MassTransitMessageTypes();
        string[]? nServiceBusTypes = massTransitTypes is null ? candidate.NServiceBus()?.EnclosedTypeNames : null;
        if (_types!.Unregistered is { } unregistered)
        {
            return ReadNativeAs(unregistered, payload, ref state, state.EventBridge?.DetailType ?? candidate.S3EventName() ?? massTransitTypes?[0] ?? nServiceBusTypes?[0] ?? UnmatchedNativeType);
        }

        // URNs and type names name types, not content: they may be logged whatever LogMessageContent says.
        string tried = $"(tried: {string.Join("; ", state.Native.Descriptions)})";
        throw ThrowHelper.Create(
            InvalidEnvelopeReason.NoNativeRuleMatched,
            massTransitTypes is not null
                ? $"The body is a MassTransit envelope of messageType {string.Join(", ", massTransitTypes)} and no rule matched it {tried}. "
                  + "Add WhenMassTransit<T>() to the queue's NativeMessages for the type of one of those URNs (with the URN when the type's namespace or name differs), or register a fallback handler (AddFallbackHandler)"
            : nServiceBusTypes is not null
                ? $"The body is an NServiceBus message of {string.Join(", ", nServiceBusTypes)} and no rule matched it {tried}. "
                  + "Add WhenNServiceBus<T>() to the queue's NativeMessages for the type of one of those names (with the name when the type's namespace or name differs), or register a fallback handler (AddFallbackHandler)"
            : $"The body is not a CloudEvents envelope and no native message rule matched it {tried}. "
              + "Add a rule to the queue's NativeMessages (WhenMessageAttribute, WhenEventBridgeEvent, WhenS3Notification, When, Otherwise) or register a fallback handler (AddFallbackHandler)");
    }

    /// <summary>
    /// Reads an NServiceBus message with its message as the registration's type: its id, time sent and originating
    /// endpoint where it has them (else what the message carried, as for a native message).
    /// </summary>
    private MessageEnvelope ReadNServiceBusAs(MessageTypeInfo info, ReadOnlyMemory<byte> payload, NServiceBusMessage message, IReadOnlyDictionary<string, MessageAttributeValue> attributes, ref UnwrapState state)
    {
        (MessageEnvelope envelope, NServiceBusMetadata metadata) = message.Read(info, payload.Span, attributes, _settings);
        AsNative(envelope, info.Identifier, ref state, metadata.TimeSent);
        envelope.Id = string.IsNullOrEmpty(metadata.MessageId) ? envelope.Id : metadata.MessageId;
        envelope.Source = string.IsNullOrEmpty(metadata.OriginatingEndpoint) ? envelope.Source : metadata.OriginatingEndpoint;
        envelope.NServiceBusMetadata = metadata;
        ContinueTrace(envelope, metadata.Headers.GetValueOrDefault(CloudEventAttributeNames.TraceParent));
        return envelope;
    }

    /// <summary>The trace context another bus sent (a W3C <c>traceparent</c> value), as the envelope's: the handler's activity continues it.</summary>
    private static void ContinueTrace(MessageEnvelope envelope, string? traceParent)
    {
        if (!string.IsNullOrEmpty(traceParent))
        {
            envelope.Extensions[CloudEventAttributeNames.TraceParent] = CloudEventAttributeValue.FromString(traceParent);
        }
    }

    /// <summary>
    /// Reads a MassTransit envelope (read up to its URNs in <paramref name="preamble"/>) or a message MassTransit sent
    /// raw (<paramref name="raw"/>) with its message as the registration's type: the id, sent time and source address where it
    /// has them (else what the message carried, as for a native message), its trace context from the <c>MT-Activity-Id</c> attribute.
    /// </summary>
    private MessageEnvelope ReadMassTransitAs(MessageTypeInfo info, ReadOnlyMemory<byte> payload, string[] messageTypes, bool raw, in MassTransitEnvelope.Preamble preamble, IReadOnlyDictionary<string, MessageAttributeValue> attributes, ref UnwrapState state)
    {
        MessageEnvelope envelope;
        MassTransitMetadata metadata;
        if (raw)
        {
            metadata = MassTransitEnvelope.RawMetadata(attributes, messageTypes);
            envelope = ReadNativeAs(info.Lenient(ForeignBus.MassTransit), payload, ref state, type: null); // a raw body carries no time of its own
        }
        else
        {
            (envelope, metadata) = MassTransitEnvelope.Read(info, payload.Span, in preamble, _settings.JsonReaderOptions, _settings.LogMessageContent);
            AsNative(envelope, info.Identifier, ref state, metadata.SentTime);
        }

        envelope.Id = metadata.MessageId?.ToString() ?? envelope.Id;
        envelope.Source = string.IsNullOrEmpty(metadata.SourceAddress) ? envelope.Source : metadata.SourceAddress;
        envelope.MassTransitMetadata = metadata;
        if (attributes.TryGetValue(MassTransitEnvelope.ActivityIdAttribute, out MessageAttributeValue? activity) && !activity.IsBinary)
        {
            ContinueTrace(envelope, activity.StringValue);
        }

        return envelope;
    }

    /// <summary>
    /// Reads the whole payload as the registration's type (a JSON object or array as JSON, anything else as text, which a
    /// <c>string</c> registration takes as it is), with the envelope's attributes taken from what the message carried.
    /// </summary>
    private MessageEnvelope ReadNativeAs(MessageTypeInfo info, ReadOnlyMemory<byte> payload, ref UnwrapState state, string? type)
    {
        MessageEnvelope envelope = info.CreateEnvelope();
        if (!JsonTopLevel.IsContainer(payload.Span))
        {
            envelope.DataContentType = ContentTypes.TextPlain;
            try
            {
                info.ReadText(envelope, payload.Span);
            }
            catch (Exception e) when (PayloadErrors.IsDataError(e))
            {
                throw PayloadErrors.InvalidData(e, 0, _settings.LogMessageContent);
            }

            return AsNative(envelope, type ?? info.Identifier, ref state);
        }

        envelope.DataContentType = ContentTypes.ApplicationJson;
        var reader = new Utf8JsonReader(payload.Span, _settings.JsonReaderOptions);
        try
        {
            reader.Read();
            info.ReadJsonData(envelope, ref reader);
            if (reader.Read())
            {
                throw ThrowHelper.Create(InvalidEnvelopeReason.Malformed, "The native message has content after its JSON value", reader.TokenStartIndex);
            }
        }
        catch (Exception e) when (PayloadErrors.IsDataError(e))
        {
            throw PayloadErrors.InvalidData(e, reader.TokenStartIndex, _settings.LogMessageContent);
        }

        return AsNative(envelope, type ?? info.Identifier, ref state);
    }

    /// <summary>
    /// Gives a native message's envelope its attributes, from the wrappers it came in or from SQS; its time is
    /// <paramref name="sent"/> when the message itself said when it was sent (the wrappers' and SQS's are then not read).
    /// </summary>
    private static MessageEnvelope AsNative(MessageEnvelope envelope, string type, ref UnwrapState state, DateTimeOffset? sent = null)
    {
        SqsMessage message = state.Message;
        envelope.Id = state.EventBridge?.EventId ?? state.Sns?.MessageId ?? message.MessageId;
        envelope.Source = state.EventBridge?.Source ?? state.Sns?.TopicArn ?? SqsSource;
        envelope.Type = type;
        envelope.DataContentType ??= ContentTypes.ApplicationJson;
        envelope.Time = sent ?? state.EventBridge?.Time ?? state.Sns?.Timestamp ?? SqsMetadata.TimestampOf(message.SystemAttributes, SqsSystemAttributes.SentTimestamp);
        envelope.IsNative = true;
        return envelope;
    }

    /// <summary>
    /// S3's test event, as S3 documents it: an object whose first member is <c>Service</c> (<c>"Amazon S3"</c>) and whose
    /// <c>Event</c> is <c>"s3:TestEvent"</c>.
    /// </summary>
    private static bool IsS3TestEvent(ReadOnlySpan<byte> json, JsonReaderOptions options)
    {
        int open = JsonWhitespace.Skip(json, 0);
        int name = open < 0 || json[open] != (byte)'{' ? -1 : JsonWhitespace.Skip(json, open + 1);
        if (name < 0 || !json[name..].StartsWith("\"Service\""u8))
        {
            return false;
        }

        bool service = false, test = false;
        var reader = new Utf8JsonReader(json, options);
        try
        {
            reader.Read();
            while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
            {
                bool isService = reader.ValueTextEquals("Service"u8), isEvent = reader.ValueTextEquals("Event"u8);
                reader.Read();
                if (reader.TokenType == JsonTokenType.String)
                {
                    service |= isService && reader.ValueTextEquals("Amazon S3"u8);
                    test |= isEvent && reader.ValueTextEquals("s3:TestEvent"u8);
                }

                reader.Skip();
            }
        }
        catch (JsonException)
        {
            return false; // read as a native message, whose reader reports what is wrong
        }

        return service && test;
    }
}
