using System;
using System.Text.Json;
using Missive.Lexing;
using Missive.Serialization;

namespace Missive.Json;

/// <summary>
/// Reading an envelope of the shape producers write without a <see cref="Utf8JsonReader"/> token per attribute: the
/// members are gone through by hand, and only the data is read by a reader, as a value of its own.
/// </summary>
/// <remarks>
/// The common shape: plain member names; attribute values that are strings without escapes (<c>specversion</c>
/// <c>1.0</c>, a registered <c>type</c>, a valid <c>time</c>, string extensions not declared of another type); and
/// <c>data</c> after <c>type</c>. At anything else (an escape, a <c>null</c>, a number, <c>data_base64</c>, data before
/// the type, an unregistered type, a limit reached, an invalid value) nothing is kept, and the reader goes through the
/// whole envelope from its start: every error, and every envelope of another shape, is the reader's. Except a failure
/// of the data: it is reported here as the reader would (a syntax or depth error in the envelope first), so that the
/// application's serializer or converter is not called a second time for the same data.
/// </remarks>
public sealed partial class Utf8JsonEnvelopeSerializer
{
    /// <summary>Whether envelopes of the common shape are read by hand (tests turn it off to compare with the reader).</summary>
    internal bool ReadsCommonShapeByHand { get; init; } = true;

    /// <summary>The reader options for data read on its own: one level less deep, as the envelope's object is not around it.</summary>
    private readonly JsonReaderOptions _dataReaderOptions;

    /// <summary>
    /// Reads the envelope in <paramref name="json"/> when it has the common shape, or returns <c>null</c>.
    /// With <paramref name="leading"/>, the envelope may be followed by anything, and <paramref name="length"/>
    /// receives where its object ends; otherwise only whitespace may follow it.
    /// </summary>
    private MessageEnvelope? TryReadCommon(ReadOnlySpan<byte> json, bool leading, out int length)
    {
        length = 0;
        if (!ReadsCommonShapeByHand)
        {
            return null;
        }

        try
        {
            return ReadCommon(json, leading, out length);
        }
        catch (Exception e) when (e is not InvalidEnvelopeException { DataReadFailed: true } && !ContentSafety.IsFatal(e))
        {
            // A decoding or the validation failed: the reader reads it all again and reports it.
            return null;
        }
    }

    private MessageEnvelope? ReadCommon(ReadOnlySpan<byte> json, bool leading, out int length)
    {
        length = 0;
        int objectStart = JsonWhitespace.Skip(json, 0);
        if (objectStart < 0 || json[objectStart] != (byte)'{')
        {
            return null;
        }

        EnvelopeFields fields = default;
        int at = objectStart + 1;
        while (true)
        {
            int value = JsonPlainMember.Value(json, at, out int nameStart, out int nameEnd);
            if (value < 0)
            {
                return null;
            }

            ReadOnlySpan<byte> name = json[nameStart..nameEnd];
            CloudEventAttribute attribute = CloudEventAttributeNames.Classify(name);
            if (attribute == CloudEventAttribute.Extension)
            {
                if (name.Length > Settings.MaxAttributeNameLength || !CloudEventRules.IsValidAttributeName(name))
                {
                    return null;
                }
            }
            else if ((fields.Seen & attribute) != 0)
            {
                return null;
            }
            else
            {
                fields.Seen |= attribute;
            }

            int end;
            if (attribute == CloudEventAttribute.Data)
            {
                if (fields.Envelope is null || json[value] == (byte)'n')
                {
                    return null; // data before the type, or null data
                }

                var reader = new Utf8JsonReader(json[value..], isFinalBlock: true, new JsonReaderState(_dataReaderOptions));
                reader.Read();
                try
                {
                    fields.Info!.ReadJsonData(fields.Envelope, ref reader);
                }
                catch (InvalidEnvelopeException e)
                {
                    e.DataReadFailed = true;
                    throw;
                }
                catch (Exception e) when (PayloadErrors.IsDataError(e))
                {
                    throw PayloadErrors.JsonDataFailure(e, JsonEnvelopeErrors.Diagnose(json, Settings.JsonReaderOptions, Settings.LogMessageContent, firstValueOnly: leading), value, Settings.LogMessageContent);
                }

                end = value + (int)reader.BytesConsumed;
            }
            else
            {
                int closingQuote = json[value] != (byte)'"' ? -1 : JsonPlainString.End(json, value);
                if (closingQuote < 0 || closingQuote - value - 1 > Settings.MaxAttributeValueLength)
                {
                    return null;
                }

                ReadOnlySpan<byte> text = json[(value + 1)..closingQuote];
                switch (attribute)
                {
                    case CloudEventAttribute.Id:
                        fields.Id = StrictUtf8.GetString(text);
                        break;
                    case CloudEventAttribute.Source:
                        fields.Source = Settings.Strings.Find(text);
                        if (fields.Source is null)
                        {
                            fields.Source = StrictUtf8.GetString(text);
                            fields.NewStrings = true;
                        }

                        break;
                    case CloudEventAttribute.SpecVersion when text.SequenceEqual(CloudEventRules.SpecVersion10Utf8):
                        break;
                    case CloudEventAttribute.Type when TryFindRegisteredType(text, out MessageTypeInfo? found):
                        fields.Info = found;
                        fields.TypeIdentifier = found.Identifier;
                        fields.Envelope = found.CreateEnvelope();
                        break;
                    case CloudEventAttribute.Time when Rfc3339.Parse(text, out DateTimeOffset parsed) == Rfc3339.Result.Valid:
                        fields.Time = parsed;
                        break;
                    case CloudEventAttribute.DataContentType:
                        fields.ContentType = text.SequenceEqual(ContentTypes.ApplicationJsonUtf8) ? ContentTypes.ApplicationJson : StrictUtf8.GetString(text);
                        break;
                    case CloudEventAttribute.DataSchema:
                        fields.Schema = StrictUtf8.GetString(text);
                        break;
                    case CloudEventAttribute.Subject:
                        fields.Subject = StrictUtf8.GetString(text);
                        break;
                    case CloudEventAttribute.Extension:
                        if (!TryAddCommonExtension(ref fields.Extensions, name, text, ref fields.NewStrings))
                        {
                            return null;
                        }

                        break;
                    default:
                        return null; // data_base64, or a value the reader is to report
                }

                end = closingQuote + 1;
            }

            int next = JsonPlainMember.Separator(json, end);
            if (next < 0)
            {
                return null;
            }

            if (json[next] == (byte)',')
            {
                at = next + 1;
                continue;
            }

            if (!leading && JsonWhitespace.Skip(json, next + 1) >= 0)
            {
                return null;
            }

            length = next + 1;
            break;
        }

        return fields.HasRequired ? Complete(ref fields, objectStart) : null;
    }

    /// <summary>Adds a string extension, unless its name repeats, it is declared of another type, or there is no room.</summary>
    private bool TryAddCommonExtension(ref ExtensionAttributeCollection? extensions, ReadOnlySpan<byte> name, ReadOnlySpan<byte> text, ref bool newStrings)
    {
        string extensionName = ExtensionNameOf(name, ref newStrings);
        extensions ??= new ExtensionAttributeCollection();
        if (extensions.Count == Settings.MaxExtensionAttributes || extensions.IndexOf(extensionName) >= 0
            || (Settings.ExtensionAttributeTypes.Count > 0 && Settings.ExtensionAttributeTypes.TryGetValue(extensionName, out CloudEventAttributeType declared) && declared != CloudEventAttributeType.String))
        {
            return false;
        }

        extensions.AddTrusted(extensionName, CloudEventAttributeValue.FromString(StrictUtf8.GetString(text)));
        return true;
    }
}
