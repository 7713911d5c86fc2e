using System;
using System.Collections.Generic;
using System.Text;
using System.Text.Json;
using System.Threading;
using System.Threading.Tasks;
using Missive.Json;
using Missive.Offload;
using Missive.Protobuf;
using Missive.Serialization;
using Missive.Transport;

namespace Missive.Tool;

/// <summary>
/// What a received message is, told by Missive's own reader: an envelope (JSON or protobuf, raw or in an SNS or
/// EventBridge wrapper) read whatever its type, or, when the reader refuses it, the reason it gave and the shape the
/// body has (another bus's format, an AWS service's event, plain JSON, a claim-check pointer).
/// </summary>
internal sealed class MessageDecoder
{
    /// <summary>The shape of a body that has CloudEvents' <c>specversion</c> but does not read: the reader's reason says why.</summary>
    public const string BrokenEnvelope = "a CloudEvents envelope that does not read";

    private readonly InboundMessageReader _reader;
    private readonly PayloadResolver? _resolver;

    /// <param name="payloads">Fetches claim-checked payloads, or <c>null</c> to leave pointers as they are.</param>
    public MessageDecoder(PayloadResolver? payloads)
    {
        // Bodies as large as a claim check stores (its readers' limit), not only as large as SQS carries.
        var map = new MessageTypeMap(new SerializationOptions { MaxEnvelopeSize = (int)Math.Min(new PayloadOffloadOptions().MaxPayloadSize, int.MaxValue) });
        map.ReadUnregisteredTypes(); // every envelope reads, whatever its type
        _reader = new InboundMessageReader(new EnvelopeSerializerProvider(new Utf8JsonEnvelopeSerializer(map), new ProtobufEnvelopeSerializer(map)), map.Options);
        _resolver = payloads;
    }

    public async Task<DecodedMessage> DecodeAsync(SqsMessage received, CancellationToken cancellationToken)
    {
        SqsMessage message = received;
        string? pointer = PointerOf(received);
        if (pointer is not null && _resolver is not null)
        {
            try
            {
                message = await _resolver.ResolveAsync(received, cancellationToken).ConfigureAwait(false);
            }
            catch (InvalidEnvelopeException e)
            {
                return new DecodedMessage(received) { Shape = "claim-check pointer", Payload = pointer, Reason = e.Reason, ReasonText = e.Message };
            }
        }
        else if (pointer is not null)
        {
            return new DecodedMessage(received)
            {
                Shape = "claim-check pointer",
                Payload = pointer,
                Reason = InvalidEnvelopeReason.PayloadUnavailable,
                ReasonText = "The body points to a payload in S3, not fetched: pass --payload-bucket with its bucket to read it.",
            };
        }

        try
        {
            InboundMessage inbound = _reader.Read(message);
            if (inbound.Envelope is not { } envelope)
            {
                return new DecodedMessage(received) { Shape = inbound.Kind == InboundMessageKind.S3TestEvent ? "S3's test event" : "an SNS subscription control message", Payload = pointer };
            }

            return new DecodedMessage(received)
            {
                Shape = $"CloudEvents envelope ({(IsProtobuf(message, inbound.Kind) ? "protobuf" : "JSON")}){WrapperOf(envelope)}",
                Envelope = envelope,
                Payload = pointer,
                Data = envelope.GetMessage() is UnregisteredMessage data ? DataText(data) : null,
            };
        }
        catch (InvalidEnvelopeException e)
        {
            (string shape, string? rule, string? data) = NativeShape(message);
            return new DecodedMessage(received) { Shape = shape, Rule = rule, Payload = pointer, Reason = e.Reason, ReasonText = e.Message, Data = data };
        }
    }

    /// <summary>The claim check's location when the body is a pointer (AWS's extended clients') or a <c>dataref</c> envelope, else <c>null</c>.</summary>
    private static string? PointerOf(SqsMessage message)
    {
        if (PayloadPointer.SizeAttributeOf(message.MessageAttributes) is not null && PayloadPointer.TryRead(message.Utf8Body.Span, out PayloadLocation location))
        {
            return location.ToString();
        }

        return DataRef.TryRead(message.Utf8Body, out PayloadLocation reference) ? reference.ToString() : null;
    }

    private static bool IsProtobuf(SqsMessage message, InboundMessageKind kind)
        => kind == InboundMessageKind.Raw && message.Utf8Body.Span.IndexOfAnyExcept(" \t\r\n"u8) is >= 0 and var first && message.Utf8Body.Span[first] != (byte)'{';

    private static string WrapperOf(MessageEnvelope envelope)
        => envelope.SnsMetadata is { } sns ? $" in an SNS notification from {sns.TopicArn}"
        : envelope.EventBridgeMetadata is { } events ? $" in an EventBridge event ({events.Source}, {events.DetailType})"
        : string.Empty;

    private static string DataText(UnregisteredMessage data)
        => data.IsJson ? Indented(data.Data.Span) : "base64:" + Convert.ToBase64String(data.Data.Span);

    /// <summary>What a body the reader refused looks like, the rule a poller reads it with (if any), and its content to show (indented JSON, or as received).</summary>
    private static (string Shape, string? Rule, string? Data) NativeShape(SqsMessage message)
    {
        JsonDocument document;
        try
        {
            document = JsonDocument.Parse(message.Utf8Body);
        }
        catch (JsonException)
        {
            return ("not JSON", null, message.Body);
        }

        using (document)
        {
            JsonElement root = document.RootElement;
            string wrapper = string.Empty;
            JsonElement inner = root;
            JsonDocument? unwrapped = null;
            try
            {
                if (root.ValueKind == JsonValueKind.Object && root.TryGetProperty("Type", out JsonElement type) && type.ValueKind == JsonValueKind.String && type.ValueEquals("Notification")
                    && root.TryGetProperty("Message", out JsonElement text) && text.ValueKind == JsonValueKind.String)
                {
                    wrapper = root.TryGetProperty("TopicArn", out JsonElement topic) ? $" in an SNS notification from {topic.GetString()}" : " in an SNS notification";
                    try
                    {
                        unwrapped = JsonDocument.Parse(text.GetString()!);
                        inner = unwrapped.RootElement;
                    }
                    catch (JsonException)
                    {
                        return ("text" + wrapper, null, text.GetString());
                    }
                }
                else if (root.ValueKind == JsonValueKind.Object && root.TryGetProperty("detail-type", out JsonElement detailType) && root.TryGetProperty("detail", out JsonElement detail))
                {
                    string source = root.TryGetProperty("source", out JsonElement s) ? s.ToString() : "?";
                    return ($"an EventBridge event ({source}, {detailType})", "WhenEventBridgeEvent<T>(source, detailType)", Indented(Encoding.UTF8.GetBytes(detail.GetRawText())));
                }

                byte[] body = Encoding.UTF8.GetBytes(inner.GetRawText());
                (string shape, string? rule) = ShapeOf(inner, body, message.MessageAttributes);
                return (shape + wrapper, rule, Indented(body));
            }
            finally
            {
                unwrapped?.Dispose();
            }
        }
    }

    /// <summary>The shape of a JSON body, told by the same recognisers the native rules use (<see cref="NativeCandidate"/>), and the rule that reads it.</summary>
    private static (string Shape, string? Rule) ShapeOf(JsonElement root, ReadOnlySpan<byte> body, IReadOnlyDictionary<string, MessageAttributeValue> attributes)
    {
        if (root.ValueKind == JsonValueKind.Object && root.TryGetProperty("specversion", out _))
        {
            return (BrokenEnvelope, null); // the reader's reason says why
        }

        var candidate = new NativeCandidate(body, attributes, sns: null, eventBridge: null, default);
        if (candidate.MassTransitMessageTypes() is [string urn, ..])
        {
            return (candidate.IsMassTransitRaw ? $"a message MassTransit sent raw ({urn})" : $"a MassTransit envelope ({urn})", "WhenMassTransit<T>() (the URN above names T)");
        }

        try
        {
            if (candidate.NServiceBus() is { } nServiceBus)
            {
                return ($"an NServiceBus message ({string.Join(", ", nServiceBus.EnclosedTypeNames)})", "WhenNServiceBus<T>() (the type above names T)");
            }
        }
        catch (InvalidEnvelopeException)
        {
            return ("an NServiceBus message whose headers attribute is not JSON", null);
        }

        if (candidate.S3EventName() is { } eventName)
        {
            return ($"an S3 event notification ({eventName})", "WhenS3Notification<T>()");
        }

        return attributes.TryGetValue(OutboundMessageWriter.MessageTypeAttribute, out MessageAttributeValue? typeAttribute)
            ? ($"plain JSON with the {OutboundMessageWriter.MessageTypeAttribute} attribute '{typeAttribute.StringValue}'", "a rule that names it (When<T>(…), WhenMessageAttribute<T>(…))")
            : ("plain JSON", "a rule that names it (When<T>(…), WhenMessageAttribute<T>(…))");
    }

    private static string Indented(ReadOnlySpan<byte> json)
    {
        try
        {
            var reader = new Utf8JsonReader(json);
            using JsonDocument document = JsonDocument.ParseValue(ref reader);
            var buffer = new System.Buffers.ArrayBufferWriter<byte>(json.Length * 2);
            using (var writer = new Utf8JsonWriter(buffer, new JsonWriterOptions { Indented = true, Encoder = System.Text.Encodings.Web.JavaScriptEncoder.UnsafeRelaxedJsonEscaping }))
            {
                document.WriteTo(writer);
            }

            return Encoding.UTF8.GetString(buffer.WrittenSpan);
        }
        catch (JsonException)
        {
            return Encoding.UTF8.GetString(json);
        }
    }
}

/// <summary>One received message, decoded.</summary>
internal sealed class DecodedMessage(SqsMessage message)
{
    public SqsMessage Message { get; } = message;

    /// <summary>Gets what the body is, in words (for example <c>CloudEvents envelope (JSON) in an SNS notification from arn:…</c>).</summary>
    public required string Shape { get; init; }

    /// <summary>Gets the envelope when the reader read one, else <c>null</c>.</summary>
    public MessageEnvelope? Envelope { get; init; }

    /// <summary>Gets the native rule a poller reads the body with, for a body that is not an envelope and is one a rule can name; else <c>null</c>.</summary>
    public string? Rule { get; init; }

    /// <summary>Gets the claim check's location when the body was a pointer, else <c>null</c>.</summary>
    public string? Payload { get; init; }

    /// <summary>Gets the reader's reason for refusing the body, or <c>null</c> when it read it.</summary>
    public InvalidEnvelopeReason? Reason { get; init; }

    /// <summary>Gets the reader's words for <see cref="Reason"/>.</summary>
    public string? ReasonText { get; init; }

    /// <summary>Gets the data (indented JSON, <c>base64:</c> bytes, or the body as received), or <c>null</c>.</summary>
    public string? Data { get; init; }

    public int ReceiveCount => Message.ReceiveCount;

    public DateTimeOffset? SentAt => Timestamp(Missive.Transport.SqsSystemAttributes.SentTimestamp);

    public DateTimeOffset? FirstReceivedAt => Timestamp(Missive.Transport.SqsSystemAttributes.ApproximateFirstReceiveTimestamp);

    /// <summary>Gets the CloudEvents type, or for a message the reader refused, <c>null</c>.</summary>
    public string? Type => Envelope?.Type;

    private DateTimeOffset? Timestamp(string name)
        => Message.SystemAttributes.TryGetValue(name, out string? text) && long.TryParse(text, System.Globalization.NumberStyles.None, System.Globalization.CultureInfo.InvariantCulture, out long ms)
            ? DateTimeOffset.FromUnixTimeMilliseconds(ms)
            : null;
}
