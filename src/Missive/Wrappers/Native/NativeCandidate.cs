using System;
using System.Collections.Generic;
using System.Text.Json;
using Missive.Lexing;

namespace Missive.Transport;

/// <summary>What a native message carries, as the rules see it.</summary>
internal ref struct NativeCandidate
{
    private readonly IReadOnlyDictionary<string, MessageAttributeValue>? _snsAttributes;
    private readonly JsonReaderOptions _options;
    private readonly TopLevelNames? _names;
    private string? _s3EventName;
    private bool _s3EventNameRead;
    private string[]? _massTransitTypes;
    private MassTransitEnvelope.Preamble _massTransitPreamble;
    private bool _massTransitTypesRead;
    private bool _massTransitRaw;
    private NServiceBusMessage? _nServiceBus;
    private bool _nServiceBusRead;

    /// <summary>A candidate; <paramref name="names"/> are the body's top-level names as the prescan found them, or <c>null</c> when it did not look.</summary>
    public NativeCandidate(ReadOnlySpan<byte> body, IReadOnlyDictionary<string, MessageAttributeValue> attributes, SnsMetadata? sns, EventBridgeMetadata? eventBridge, JsonReaderOptions options, TopLevelNames? names = null)
    {
        _names = names;
        Body = body;
        IReadOnlyDictionary<string, MessageAttributeValue>? snsAttributes = sns?.MessageAttributes;
        Attributes = attributes.Count == 0 && snsAttributes is { Count: > 0 } ? snsAttributes : attributes;
        _snsAttributes = snsAttributes;
        SnsTopicArn = sns?.TopicArn;
        EventBridge = eventBridge;
        _options = options;
    }

    /// <summary>Gets the native message's UTF-8 JSON.</summary>
    public readonly ReadOnlySpan<byte> Body { get; }

    /// <summary>Gets the SQS message attributes, or the SNS notification's when SQS has none.</summary>
    public readonly IReadOnlyDictionary<string, MessageAttributeValue> Attributes { get; }

    /// <summary>Gets the ARN of the SNS topic whose notification the message came in (without raw delivery), or <c>null</c>.</summary>
    public readonly string? SnsTopicArn { get; }

    /// <summary>Gets the EventBridge event the message came in, or <c>null</c>.</summary>
    public readonly EventBridgeMetadata? EventBridge { get; }

    /// <summary>Tells whether the SQS message attribute, or else the SNS notification's, of that name is that string.</summary>
    public readonly bool AttributeEquals(string name, string value)
        => Attributes.TryGetValue(name, out _) ? NativeMessageRules.HasString(Attributes, name, value) : NativeMessageRules.HasString(_snsAttributes, name, value);

    /// <summary>
    /// The first record's <c>eventName</c> when the body is an S3 event notification (a <c>Records</c> array whose first
    /// record's <c>eventSource</c> is <c>aws:s3</c>), else <c>null</c>. Reads only as far as the first record, once for
    /// every rule that asks.
    /// </summary>
    public string? S3EventName()
    {
        if (!_s3EventNameRead)
        {
            _s3EventName = ReadS3EventName();
            _s3EventNameRead = true;
        }

        return _s3EventName;
    }

    /// <summary>
    /// The message URNs when the body is a MassTransit envelope (its <c>messageType</c>) or a message MassTransit sent raw
    /// (its <c>MT-MessageType</c> attribute; see <see cref="IsMassTransitRaw"/>), else <c>null</c>; read once for every
    /// rule that asks (and for the reader).
    /// </summary>
    public string[]? MassTransitMessageTypes()
    {
        if (!_massTransitTypesRead)
        {
            _massTransitPreamble = MassTransitEnvelope.ReadPreamble(Body, _options);
            _massTransitTypes = _massTransitPreamble.MessageTypes;
            if (_massTransitTypes is null && MassTransitEnvelope.RawMessageTypes(Attributes) is { } raw)
            {
                _massTransitTypes = raw;
                _massTransitRaw = true;
            }

            _massTransitTypesRead = true;
        }

        return _massTransitTypes;
    }

    /// <summary>Gets whether <see cref="MassTransitMessageTypes"/> came from the attribute of a message MassTransit sent raw: the body is the message alone.</summary>
    public readonly bool IsMassTransitRaw => _massTransitRaw;

    /// <summary>Gets the envelope read up to its URNs when <see cref="MassTransitMessageTypes"/> came from the body (else its URNs are <c>null</c>).</summary>
    public readonly MassTransitEnvelope.Preamble MassTransitPreamble => _massTransitPreamble;

    /// <summary>The NServiceBus message the body and attributes make, or <c>null</c>; recognised once for every rule that asks (and for the reader).</summary>
    public NServiceBusMessage? NServiceBus()
    {
        if (!_nServiceBusRead)
        {
            _nServiceBus = NServiceBusMessage.Recognise(Body, Attributes, _options);
            _nServiceBusRead = true;
        }

        return _nServiceBus;
    }

    /// <summary>The first record's <c>eventName</c> of an S3 event notification, read from the start of the body.</summary>
    private readonly string? ReadS3EventName()
    {
        if (_names is { } names && (names & TopLevelNames.Records) == 0)
        {
            return null; // the prescan found no Records (S3 writes its names without escapes): no notification
        }

        var reader = new Utf8JsonReader(Body, _options);
        try
        {
            if (!reader.Read() || reader.TokenType != JsonTokenType.StartObject)
            {
                return null;
            }

            while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
            {
                if (!reader.ValueTextEquals("Records"u8))
                {
                    reader.Read();
                    reader.Skip();
                    continue;
                }

                if (!reader.Read() || reader.TokenType != JsonTokenType.StartArray || !reader.Read() || reader.TokenType != JsonTokenType.StartObject)
                {
                    return null;
                }

                bool s3 = false;
                string? eventName = null;
                while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
                {
                    bool isSource = reader.ValueTextEquals("eventSource"u8), isName = reader.ValueTextEquals("eventName"u8);
                    reader.Read();
                    if (reader.TokenType == JsonTokenType.String)
                    {
                        s3 |= isSource && reader.ValueTextEquals("aws:s3"u8);
                        eventName = isName ? reader.GetString() : eventName;
                    }
                    else
                    {
                        reader.Skip();
                    }

                    if (s3 && eventName is not null)
                    {
                        return eventName;
                    }
                }

                return null;
            }
        }
        catch (JsonException)
        {
            // Not well-formed: no rule of S3's matches it, and the reader of the type a later rule chooses says what is wrong.
        }

        return null;
    }
}
