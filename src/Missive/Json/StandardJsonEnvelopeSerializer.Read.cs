using System;
using System.Buffers;
using System.Collections.Generic;
using System.Text;
using System.Text.Json;
using Missive.Serialization;

namespace Missive.Json;

public sealed partial class StandardJsonEnvelopeSerializer
{
    private protected override MessageEnvelope DeserializeCore(in ReadOnlySequence<byte> source)
    {
        using JsonDocument document = Parse(source);
        if (document.RootElement.ValueKind != JsonValueKind.Object)
        {
            ThrowHelper.ThrowNotAJsonObject(0);
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
            ThrowHelper.ThrowNotAJsonArray(0);
        }

        var envelopes = new List<MessageEnvelope>();
        foreach (JsonElement item in document.RootElement.EnumerateArray())
        {
            if (item.ValueKind != JsonValueKind.Object)
            {
                ThrowHelper.ThrowBatchItemNotAJsonObject(envelopes.Count, -1);
            }

            if (envelopes.Count == Settings.MaxBatchSize)
            {
                ThrowHelper.ThrowBatchTooLarge(Settings.MaxBatchSize, -1);
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

    private JsonDocument Parse(in ReadOnlySequence<byte> source)
    {
        try
        {
            return JsonDocument.Parse(source, _documentOptions);
        }
        catch (JsonException e)
        {
            throw JsonEnvelopeErrors.Diagnose(source, Settings.JsonReaderOptions, Settings.LogMessageContent) ?? JsonEnvelopeErrors.FromJsonException(e, Settings.LogMessageContent);
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

        string? type = GetString(root, CloudEventAttributeNames.Type, required: true);
        MessageTypeInfo? info = type is { Length: > 0 } ? MessageTypes.Resolve(type, -1) : null;

        string? specVersion = GetString(root, CloudEventAttributeNames.SpecVersion, required: true);
        if (specVersion is { Length: > 0 } && specVersion != CloudEventRules.SpecVersion10)
        {
            ThrowHelper.ThrowUnsupportedSpecVersion(-1);
        }

        string? id = GetString(root, CloudEventAttributeNames.Id, required: true);
        string? source = GetString(root, CloudEventAttributeNames.Source, required: true);
        if (info is null || string.IsNullOrEmpty(specVersion) || string.IsNullOrEmpty(id) || string.IsNullOrEmpty(source))
        {
            ThrowHelper.ThrowMissingAttributes(id, source, !string.IsNullOrEmpty(specVersion), info is not null, 0);
        }

        DateTimeOffset? time = null;
        if (GetString(root, CloudEventAttributeNames.Time, required: false) is { } timeText)
        {
            if (Rfc3339.Parse(timeText.AsSpan(), out DateTimeOffset parsed) is not Rfc3339.Result.Valid and var result)
            {
                Rfc3339.ThrowFor(result, CloudEventAttributeNames.Time, -1);
            }

            time = parsed;
        }

        MessageEnvelope envelope = info.CreateEnvelope();
        envelope.SetAttributes(
            id,
            source,
            type!,
            time,
            GetString(root, CloudEventAttributeNames.DataContentType, required: false),
            GetString(root, CloudEventAttributeNames.DataSchema, required: false),
            GetString(root, CloudEventAttributeNames.Subject, required: false),
            ReadExtensions(root));

        bool hasData = root.TryGetProperty(CloudEventAttributeNames.Data, out JsonElement data) && data.ValueKind != JsonValueKind.Null;
        bool hasBase64 = root.TryGetProperty(CloudEventAttributeNames.DataBase64, out JsonElement base64) && base64.ValueKind != JsonValueKind.Null;
        if (root.TryGetProperty(CloudEventAttributeNames.Data, out _) && root.TryGetProperty(CloudEventAttributeNames.DataBase64, out _))
        {
            ThrowHelper.ThrowDataAndDataBase64(-1);
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
                    ThrowHelper.ThrowWrongTokenType(CloudEventAttributeNames.DataBase64, "a base64 string", -1);
                }

                if (!base64.TryGetBytesFromBase64(out byte[]? bytes))
                {
                    ThrowHelper.ThrowInvalidBase64(CloudEventAttributeNames.DataBase64, -1);
                }

                info.ReadBinary(envelope, bytes);
            }
        }
        catch (Exception e) when (e is not InvalidEnvelopeException && PayloadErrors.IsDataError(e))
        {
            throw JsonEnvelopeErrors.Diagnose(input, Settings.JsonReaderOptions, Settings.LogMessageContent) ?? PayloadErrors.InvalidData(e, -1, Settings.LogMessageContent);
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

            if (Encoding.UTF8.GetByteCount(name) > Settings.MaxAttributeNameLength)
            {
                ThrowHelper.ThrowAttributeNameTooLong(Settings.MaxAttributeNameLength, -1);
            }

            if (!CloudEventRules.IsValidAttributeName(name))
            {
                ThrowHelper.ThrowInvalidAttributeName(-1);
            }

            JsonElement value = property.Value;
            if (value.ValueKind == JsonValueKind.Null)
            {
                continue;
            }

            extensions ??= new ExtensionAttributeCollection();
            if (extensions.Count == Settings.MaxExtensionAttributes)
            {
                ThrowHelper.ThrowTooManyExtensions(Settings.MaxExtensionAttributes, -1);
            }

            extensions.AddTrusted(name, ReadExtensionValue(name, value));
        }

        return extensions;
    }

    private CloudEventAttributeValue ReadExtensionValue(string name, JsonElement value)
    {
        Settings.ExtensionAttributeTypes.TryGetValue(name, out CloudEventAttributeType declared);
        switch (value.ValueKind)
        {
            case JsonValueKind.True or JsonValueKind.False when declared is CloudEventAttributeType.None or CloudEventAttributeType.Boolean:
                return CloudEventAttributeValue.FromBoolean(value.GetBoolean());
            case JsonValueKind.Number when declared is CloudEventAttributeType.None or CloudEventAttributeType.Integer:
                if (!value.TryGetInt32(out int integer))
                {
                    ThrowHelper.ThrowIntegerOutOfRange(name, -1);
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
                            ThrowHelper.ThrowInvalidBase64(name, -1);
                        }

                        ThrowHelper.CheckAttributeLength(bytes.Length, Settings.MaxAttributeValueLength, name, -1);
                        return CloudEventAttributeValue.FromBinary(bytes);
                    case CloudEventAttributeType.Timestamp:
                        if (Rfc3339.Parse(text.AsSpan(), out DateTimeOffset timestamp) is not Rfc3339.Result.Valid and var result)
                        {
                            Rfc3339.ThrowFor(result, name, -1);
                        }

                        return CloudEventAttributeValue.FromTimestamp(timestamp);
                    case CloudEventAttributeType.Uri when CloudEventRules.IsAbsoluteUri(text):
                        return CloudEventAttributeValue.FromUri(text);
                    case CloudEventAttributeType.Uri:
                        ThrowHelper.ThrowNotAbsoluteUri(name, -1);
                        return default;
                    case CloudEventAttributeType.UriReference when CloudEventRules.IsUriReference(text):
                        return CloudEventAttributeValue.FromUriReference(text);
                    case CloudEventAttributeType.UriReference:
                        ThrowHelper.ThrowNotUriReference(name, -1);
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

    private static bool IsCoreMember(string name) => CloudEventAttributeNames.IsReserved(name);

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
        ThrowHelper.CheckAttributeLength(Encoding.UTF8.GetByteCount(value), Settings.MaxAttributeValueLength, attribute, -1);
        return value;
    }
}
