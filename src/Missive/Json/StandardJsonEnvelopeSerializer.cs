using System;
using System.Buffers;
using System.Collections.Generic;
using System.Text;
using System.Text.Json;
using System.Text.Json.Nodes;
using Microsoft.Extensions.Logging;
using Missive.Serialization;

namespace Missive.Json;

/// <summary>
/// The conventional CloudEvents JSON serializer and the default: it builds a <see cref="JsonObject"/>,
/// turns it into a string and encodes it, and reads through <see cref="JsonDocument"/>, the way
/// DOM-based envelope serializers do. Simple and obviously correct, it is the reference the
/// high-performance <see cref="Utf8JsonEnvelopeSerializer"/> is tested against (same bytes, same
/// envelopes) and the baseline of every benchmark.
/// </summary>
/// <remarks>The encode and decode rules are those listed on <see cref="Utf8JsonEnvelopeSerializer"/>.</remarks>
public sealed class StandardJsonEnvelopeSerializer : EnvelopeSerializer
{
    private readonly JsonWriterOptions _writerOptions;
    private readonly JsonDocumentOptions _documentOptions;
    private readonly JsonReaderOptions _readerOptions;

    /// <summary>Creates the serializer.</summary>
    /// <param name="messageTypes">The registered message types. Must not be null.</param>
    /// <param name="logger">A logger, or <c>null</c>.</param>
    public StandardJsonEnvelopeSerializer(MessageTypeMap messageTypes, ILogger<StandardJsonEnvelopeSerializer>? logger = null)
        : base(messageTypes, logger)
    {
        _writerOptions = JsonEnvelopeSettings.GetWriterOptions(Options);
        _documentOptions = new JsonDocumentOptions { MaxDepth = Options.MaxJsonDepth, CommentHandling = JsonCommentHandling.Disallow };
        _readerOptions = JsonEnvelopeSettings.GetReaderOptions(Options);
        LogCreated();
    }

    /// <inheritdoc />
    public override string ContentType => ContentTypes.CloudEventsJson;

    /// <inheritdoc />
    public override string BatchContentType => ContentTypes.CloudEventsBatchJson;

    /// <inheritdoc />
    public override int Serialize<T>(IBufferWriter<byte> destination, MessageEnvelope<T> envelope)
    {
        ArgumentNullException.ThrowIfNull(destination);
        ArgumentNullException.ThrowIfNull(envelope);
        EnvelopeValidator.Validate(envelope, position: -1);
        JsonObject node = ToNode(envelope, MessageTypes.Get<T>());
        return WriteText(destination, ToJsonString(node));
    }

    /// <inheritdoc />
    public override int SerializeBatch(IBufferWriter<byte> destination, IReadOnlyList<MessageEnvelope> envelopes)
    {
        ArgumentNullException.ThrowIfNull(destination);
        ArgumentNullException.ThrowIfNull(envelopes);
        var array = new JsonArray();
        foreach (MessageEnvelope envelope in envelopes)
        {
            if (envelope is null)
            {
                throw new ArgumentException("A batch cannot hold null envelopes.", nameof(envelopes));
            }

            EnvelopeValidator.Validate(envelope, position: -1);
            var visitor = new NodeBuilder();
            MessageTypes.Get(envelope.MessageType).Accept(ref visitor, envelope);
            array.Add((JsonNode?)visitor.Result);
        }

        return WriteText(destination, ToJsonString(array));
    }

    private protected override MessageEnvelope DeserializeCore(in ReadOnlySequence<byte> source)
    {
        using JsonDocument document = Parse(source);
        if (document.RootElement.ValueKind != JsonValueKind.Object)
        {
            ThrowHelper.ThrowInvalidEnvelope(InvalidEnvelopeReason.Malformed, "A CloudEvents JSON envelope must be a JSON object.", 0);
        }

        try
        {
            return ReadEnvelope(document.RootElement, source);
        }
        catch (InvalidOperationException e)
        {
            throw InvalidText(e);
        }
    }

    private protected override IReadOnlyList<MessageEnvelope> DeserializeBatchCore(in ReadOnlySequence<byte> source)
    {
        using JsonDocument document = Parse(source);
        if (document.RootElement.ValueKind != JsonValueKind.Array)
        {
            ThrowHelper.ThrowInvalidEnvelope(InvalidEnvelopeReason.Malformed, "A CloudEvents JSON batch must be a JSON array.", 0);
        }

        var envelopes = new List<MessageEnvelope>();
        foreach (JsonElement item in document.RootElement.EnumerateArray())
        {
            if (item.ValueKind != JsonValueKind.Object)
            {
                ThrowHelper.ThrowInvalidEnvelope(InvalidEnvelopeReason.Malformed, $"Batch item {envelopes.Count} is not a JSON object.");
            }

            if (envelopes.Count == Options.MaxBatchSize)
            {
                ThrowHelper.ThrowInvalidEnvelope(InvalidEnvelopeReason.LimitExceeded, $"The batch holds more than {Options.MaxBatchSize} envelopes (SerializationOptions.MaxBatchSize).");
            }

            try
            {
                envelopes.Add(ReadEnvelope(item, source));
            }
            catch (InvalidOperationException e)
            {
                throw InvalidText(e);
            }
        }

        return envelopes;
    }

    /// <summary>
    /// The DOM as a string, the way DOM-based serializers hand envelopes to a transport. Written
    /// through a writer with the configured encoder and no serializer options, so every data node
    /// is written by its own metadata.
    /// </summary>
    private string ToJsonString(JsonNode node)
    {
        var buffer = new ArrayBufferWriter<byte>();
        using (var writer = new Utf8JsonWriter(buffer, _writerOptions))
        {
            node.WriteTo(writer);
        }

        return Encoding.UTF8.GetString(buffer.WrittenSpan);
    }

    private static int WriteText(IBufferWriter<byte> destination, string json)
        => checked((int)Encoding.UTF8.GetBytes(json.AsSpan(), destination));

    private static JsonObject ToNode<T>(MessageEnvelope<T> envelope, MessageTypeInfo<T> info)
    {
        var node = new JsonObject
        {
            ["id"] = envelope.Id,
            ["source"] = envelope.Source,
            ["specversion"] = CloudEventRules.SpecVersion10,
            ["type"] = envelope.Type,
        };
        if (envelope.Time is { } time)
        {
            node["time"] = JsonValue.Create(time);
        }

        if (envelope.DataContentType is { } contentType)
        {
            node["datacontenttype"] = contentType;
        }

        if (envelope.Message is not null)
        {
            JsonNode? data = info.Codec.ToNode(envelope.Message, out bool isBase64);
            node[isBase64 ? "data_base64" : "data"] = data;
        }

        if (envelope.DataSchema is { } schema)
        {
            node["dataschema"] = schema;
        }

        if (envelope.Subject is { } subject)
        {
            node["subject"] = subject;
        }

        if (envelope.ExtensionsOrNull is { } extensions)
        {
            foreach (KeyValuePair<string, CloudEventAttributeValue> extension in extensions)
            {
                CloudEventAttributeValue value = extension.Value;
                node[extension.Key] = value.Type switch
                {
                    CloudEventAttributeType.Boolean => JsonValue.Create(value.AsBoolean()),
                    CloudEventAttributeType.Integer => JsonValue.Create(value.AsInteger()),
                    CloudEventAttributeType.Binary => JsonValue.Create(value.AsBinary().ToArray(), MissiveJsonContext.Default.ByteArray),
                    CloudEventAttributeType.Timestamp => JsonValue.Create(value.AsTimestamp()),
                    _ => JsonValue.Create(value.AsString()),
                };
            }
        }

        return node;
    }

    private JsonDocument Parse(in ReadOnlySequence<byte> source)
    {
        try
        {
            return JsonDocument.Parse(source, _documentOptions);
        }
        catch (JsonException e)
        {
            throw JsonEnvelopeErrors.Diagnose(source, _readerOptions, Options.LogMessageContent) ?? JsonEnvelopeErrors.FromJsonException(e, Options.LogMessageContent);
        }
    }

    private MessageEnvelope ReadEnvelope(JsonElement root, in ReadOnlySequence<byte> input)
    {
        var seen = new HashSet<string>(StringComparer.Ordinal);
        foreach (JsonProperty property in root.EnumerateObject())
        {
            if (!seen.Add(property.Name))
            {
                ThrowHelper.ThrowDuplicateAttribute(IsCoreMember(property.Name) || CloudEventRules.IsValidAttributeName(property.Name) ? property.Name : "extension", -1);
            }
        }

        string? type = GetString(root, "type", required: true);
        MessageTypeInfo? info = null;
        if (type is { Length: > 0 } && !MessageTypes.TryGet(type, out info))
        {
            ThrowHelper.ThrowUnknownMessageType(type, Options.LogMessageContent, -1);
        }

        string? specVersion = GetString(root, "specversion", required: true);
        if (specVersion is { Length: > 0 } && specVersion != CloudEventRules.SpecVersion10)
        {
            ThrowHelper.ThrowInvalidEnvelope(InvalidEnvelopeReason.UnsupportedFormat, "The 'specversion' attribute must be \"1.0\": only CloudEvents 1.0 is supported.", -1, "specversion");
        }

        string? id = GetString(root, "id", required: true);
        string? source = GetString(root, "source", required: true);
        if (info is null || string.IsNullOrEmpty(specVersion) || string.IsNullOrEmpty(id) || string.IsNullOrEmpty(source))
        {
            ThrowHelper.ThrowMissingAttributes(id, source, !string.IsNullOrEmpty(specVersion), info is not null, 0);
        }

        DateTimeOffset? time = null;
        if (GetString(root, "time", required: false) is { } timeText)
        {
            if (!Rfc3339.TryParse(timeText.AsSpan(), out DateTimeOffset parsed))
            {
                ThrowHelper.ThrowInvalidAttribute("time", "is not an RFC 3339 timestamp", -1);
            }

            time = parsed;
        }

        MessageEnvelope envelope = info.CreateEnvelope();
        envelope.SetAttributes(
            id,
            source,
            info.Identifier,
            time,
            GetString(root, "datacontenttype", required: false),
            GetString(root, "dataschema", required: false),
            GetString(root, "subject", required: false),
            ReadExtensions(root));

        bool hasData = root.TryGetProperty("data", out JsonElement data) && data.ValueKind != JsonValueKind.Null;
        bool hasBase64 = root.TryGetProperty("data_base64", out JsonElement base64) && base64.ValueKind != JsonValueKind.Null;
        if (root.TryGetProperty("data", out _) && root.TryGetProperty("data_base64", out _))
        {
            ThrowHelper.ThrowInvalidAttribute("data", "and 'data_base64' cannot both be present", -1);
        }

        EnvelopeValidator.Validate(envelope, 0);

        try
        {
            if (hasData)
            {
                info.ReadJsonData(envelope, data);
            }
            else if (hasBase64)
            {
                if (base64.ValueKind != JsonValueKind.String)
                {
                    ThrowHelper.ThrowWrongTokenType("data_base64", "a base64 string", -1);
                }

                if (!base64.TryGetBytesFromBase64(out byte[]? bytes))
                {
                    ThrowHelper.ThrowInvalidAttribute("data_base64", "is not valid base64", -1);
                }

                info.ReadBinary(envelope, bytes);
            }
        }
        catch (Exception e) when (e is not InvalidEnvelopeException && JsonEnvelopeErrors.IsDataError(e))
        {
            throw JsonEnvelopeErrors.Diagnose(input, _readerOptions, Options.LogMessageContent) ?? JsonEnvelopeErrors.InvalidData(e, -1, Options.LogMessageContent);
        }

        return envelope;
    }

    private ExtensionAttributeCollection? ReadExtensions(JsonElement root)
    {
        ExtensionAttributeCollection? extensions = null;
        foreach (JsonProperty property in root.EnumerateObject())
        {
            string name = property.Name;
            if (IsCoreMember(name))
            {
                continue;
            }

            if (Encoding.UTF8.GetByteCount(name) > Options.MaxAttributeNameLength)
            {
                ThrowHelper.ThrowInvalidEnvelope(InvalidEnvelopeReason.LimitExceeded, $"A member name is longer than {Options.MaxAttributeNameLength} bytes (SerializationOptions.MaxAttributeNameLength).");
            }

            if (!CloudEventRules.IsValidAttributeName(name))
            {
                ThrowHelper.ThrowInvalidEnvelope(InvalidEnvelopeReason.InvalidAttribute, "An attribute name is not valid: CloudEvents attribute names are lower-case ASCII letters and digits.");
            }

            JsonElement value = property.Value;
            if (value.ValueKind == JsonValueKind.Null)
            {
                continue;
            }

            extensions ??= new ExtensionAttributeCollection();
            if (extensions.Count == Options.MaxExtensionAttributes)
            {
                ThrowHelper.ThrowInvalidEnvelope(InvalidEnvelopeReason.LimitExceeded, $"The envelope has more than {Options.MaxExtensionAttributes} extension attributes (SerializationOptions.MaxExtensionAttributes).");
            }

            extensions.AddTrusted(name, ReadExtensionValue(name, value));
        }

        return extensions;
    }

    private CloudEventAttributeValue ReadExtensionValue(string name, JsonElement value)
    {
        Options.ExtensionAttributeTypes.TryGetValue(name, out CloudEventAttributeType declared);
        switch (value.ValueKind)
        {
            case JsonValueKind.True or JsonValueKind.False when declared is CloudEventAttributeType.None or CloudEventAttributeType.Boolean:
                return CloudEventAttributeValue.FromBoolean(value.GetBoolean());
            case JsonValueKind.Number when declared is CloudEventAttributeType.None or CloudEventAttributeType.Integer:
                if (!value.TryGetInt32(out int integer))
                {
                    ThrowHelper.ThrowInvalidAttribute(name, "must be an integer in the signed 32-bit range (the only CloudEvents number type)", -1);
                }

                return CloudEventAttributeValue.FromInteger(integer);
            case JsonValueKind.String:
                string text = declared == CloudEventAttributeType.Binary ? value.GetString()! : Checked(value.GetString()!, name);
                switch (declared)
                {
                    case CloudEventAttributeType.None or CloudEventAttributeType.String:
                        return CloudEventAttributeValue.FromString(text);
                    case CloudEventAttributeType.Binary:
                        if (!value.TryGetBytesFromBase64(out byte[]? bytes))
                        {
                            ThrowHelper.ThrowInvalidAttribute(name, "is not valid base64", -1);
                        }

                        ThrowHelper.CheckAttributeLength(bytes.Length, Options.MaxAttributeValueLength, name, -1);
                        return CloudEventAttributeValue.FromBinary(bytes);
                    case CloudEventAttributeType.Timestamp:
                        if (!Rfc3339.TryParse(text.AsSpan(), out DateTimeOffset timestamp))
                        {
                            ThrowHelper.ThrowInvalidAttribute(name, "is not an RFC 3339 timestamp", -1);
                        }

                        return CloudEventAttributeValue.FromTimestamp(timestamp);
                    case CloudEventAttributeType.Uri when CloudEventRules.IsAbsoluteUri(text):
                        return CloudEventAttributeValue.FromUri(text);
                    case CloudEventAttributeType.Uri:
                        ThrowHelper.ThrowInvalidAttribute(name, "is not an absolute URI", -1);
                        return default;
                    case CloudEventAttributeType.UriReference when CloudEventRules.IsUriReference(text):
                        return CloudEventAttributeValue.FromUriReference(text);
                    case CloudEventAttributeType.UriReference:
                        ThrowHelper.ThrowInvalidAttribute(name, "is not a URI reference", -1);
                        return default;
                    default:
                        ThrowHelper.ThrowWrongTokenType(name, "of its declared type " + declared, -1);
                        return default;
                }

            default:
                ThrowHelper.ThrowWrongTokenType(name, declared == CloudEventAttributeType.None ? "a string, an integer or a boolean" : "of its declared type " + declared, -1);
                return default;
        }
    }

    private static bool IsCoreMember(string name) => CloudEventRules.IsReservedAttributeName(name) || name == "data_base64";

    private string? GetString(JsonElement root, string name, bool required)
    {
        if (!root.TryGetProperty(name, out JsonElement value) || value.ValueKind == JsonValueKind.Null)
        {
            if (required && value.ValueKind == JsonValueKind.Null && root.TryGetProperty(name, out _))
            {
                ThrowHelper.ThrowWrongTokenType(name, "a string", -1);
            }

            return null;
        }

        if (value.ValueKind != JsonValueKind.String)
        {
            ThrowHelper.ThrowWrongTokenType(name, "a string", -1);
        }

        return Checked(value.GetString()!, name);
    }

    /// <summary>Keeps a string attribute value within <see cref="SerializationOptions.MaxAttributeValueLength"/>.</summary>
    private string Checked(string value, string attribute)
    {
        ThrowHelper.CheckAttributeLength(Encoding.UTF8.GetByteCount(value), Options.MaxAttributeValueLength, attribute, -1);
        return value;
    }

    private struct NodeBuilder : IEnvelopeVisitor
    {
        public JsonObject? Result { get; private set; }

        public void Visit<T>(MessageEnvelope<T> envelope, MessageTypeInfo<T> info) => Result = ToNode(envelope, info);
    }
}
