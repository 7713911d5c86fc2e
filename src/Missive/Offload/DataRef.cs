using System;
using System.Buffers;
using System.Diagnostics.CodeAnalysis;
using System.Text;
using System.Text.Encodings.Web;
using System.Text.Json;
using System.Text.Unicode;

namespace Missive.Offload;

/// <summary>
/// The CloudEvents <c>dataref</c> extension (https://github.com/cloudevents/spec/blob/v1.0.2/cloudevents/extensions/dataref.md)
/// for a JSON envelope whose data is stored aside: the envelope stays in the message, without its data, with
/// <c>dataref</c> naming the stored object as <c>s3://bucket/key</c>.
/// </summary>
/// <remarks>
/// <list type="bullet">
/// <item>What is stored is the data itself, as a CloudEvents consumer expects: the JSON of a <c>data</c> whose
/// <c>datacontenttype</c> is JSON, the text of a string <c>data</c> otherwise, the bytes of a <c>data_base64</c>.</item>
/// <item>Reading puts it back by the same rule, from the envelope's <c>datacontenttype</c>, and keeps <c>dataref</c>.</item>
/// <item>Only <c>s3://</c> references are Missive's to resolve; any other (an https URL) is left as it is, never fetched.</item>
/// </list>
/// </remarks>
internal static class DataRef
{
    public const string Name = "dataref";

    private const string Scheme = "s3://";

    /// <summary>Parses a JSON envelope once for <see cref="DataRefSplit"/>; <c>false</c> when it is no envelope with data (or already a reference).</summary>
    public static bool TrySplit(ReadOnlyMemory<byte> envelope, [NotNullWhen(true)] out DataRefSplit? split)
    {
        split = null;
        if (!StartsWithObject(envelope.Span))
        {
            return false;
        }

        JsonDocument? document = null;
        try
        {
            document = JsonDocument.Parse(envelope);
            JsonElement root = document.RootElement;
            byte[]? data = null;
            if (root.TryGetProperty(Name, out _))
            {
                // already a reference
            }
            else if (root.TryGetProperty("data_base64", out JsonElement binary) && binary.ValueKind == JsonValueKind.String)
            {
                data = binary.GetBytesFromBase64();
            }
            else if (root.TryGetProperty("data", out JsonElement value))
            {
                data = IsJson(ContentType(root)) || value.ValueKind != JsonValueKind.String ? Encoding.UTF8.GetBytes(value.GetRawText()) : Encoding.UTF8.GetBytes(value.GetString()!);
            }

            if (data is not null)
            {
                split = new DataRefSplit(document, data);
                document = null; // the split owns it now
                return true;
            }
        }
        catch (Exception e) when (e is JsonException or FormatException)
        {
        }
        finally
        {
            document?.Dispose();
        }

        return false;
    }

    /// <summary>The envelope of <paramref name="document"/> without its data, with <c>dataref</c> naming <paramref name="location"/>.</summary>
    internal static byte[] WithoutData(JsonDocument document, PayloadLocation location)
    {
        var output = new ArrayBufferWriter<byte>(1024);
        using (var writer = new Utf8JsonWriter(output))
        {
            writer.WriteStartObject();
            foreach (JsonProperty member in document.RootElement.EnumerateObject())
            {
                if (!member.NameEquals("data") && !member.NameEquals("data_base64"))
                {
                    member.WriteTo(writer);
                }
            }

            writer.WriteString(Name, Scheme + location.Bucket + "/" + location.Key);
            writer.WriteEndObject();
        }

        return output.WrittenSpan.ToArray();
    }

    /// <summary>The location of an envelope's <c>s3://</c> reference when it carries no data; <c>false</c> otherwise.</summary>
    public static bool TryRead(ReadOnlyMemory<byte> envelope, out PayloadLocation location)
    {
        location = default;
        if (!StartsWithObject(envelope.Span) || envelope.Span.IndexOf("\"dataref\""u8) < 0)
        {
            return false;
        }

        try
        {
            using JsonDocument document = JsonDocument.Parse(envelope);
            JsonElement root = document.RootElement;
            if (!root.TryGetProperty(Name, out JsonElement reference) || reference.ValueKind != JsonValueKind.String
                || root.TryGetProperty("data", out _) || root.TryGetProperty("data_base64", out _))
            {
                return false;
            }

            string text = reference.GetString()!;
            int slash = text.IndexOf('/', Scheme.Length);
            if (!text.StartsWith(Scheme, StringComparison.Ordinal) || slash <= Scheme.Length || slash == text.Length - 1)
            {
                return false;
            }

            location = new PayloadLocation(text[Scheme.Length..slash], text[(slash + 1)..]);
            return true;
        }
        catch (JsonException)
        {
            return false;
        }
    }

    /// <summary>
    /// How a message rebuilt around a fetched payload is written: escaping only what JSON requires, as SNS and the
    /// envelope writers do. The default encoder's <c>\uXXXX</c> for quotes and every non-ASCII character would grow it
    /// up to six times, past the reader's limit.
    /// </summary>
    internal static JsonWriterOptions MinimalEscaping { get; } = new() { Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping };

    /// <summary>The envelope with its fetched data put back as <c>data</c> or <c>data_base64</c>, by its <c>datacontenttype</c>.</summary>
    public static byte[] WithData(ReadOnlyMemory<byte> envelope, ReadOnlyMemory<byte> data)
    {
        using JsonDocument document = JsonDocument.Parse(envelope);
        string? contentType = ContentType(document.RootElement);
        var output = new ArrayBufferWriter<byte>(envelope.Length + (data.Length * 4 / 3) + 16);
        using (var writer = new Utf8JsonWriter(output, MinimalEscaping))
        {
            writer.WriteStartObject();
            foreach (JsonProperty member in document.RootElement.EnumerateObject())
            {
                member.WriteTo(writer);
            }

            if (IsJson(contentType))
            {
                writer.WritePropertyName("data");
                writer.WriteRawValue(data.Span, skipInputValidation: false);
            }
            else if (contentType is not null && contentType.StartsWith("text/", StringComparison.OrdinalIgnoreCase))
            {
                writer.WriteString("data", Utf8.IsValid(data.Span) ? data.Span : throw new ArgumentException("The stored data of a text envelope is not UTF-8."));
            }
            else
            {
                writer.WriteBase64String("data_base64", data.Span);
            }

            writer.WriteEndObject();
        }

        return output.WrittenSpan.ToArray();
    }

    private static string? ContentType(JsonElement root)
        => root.TryGetProperty("datacontenttype", out JsonElement type) && type.ValueKind == JsonValueKind.String ? type.GetString() : null;

    /// <summary>Whether a content type is JSON (absent counts as JSON, as CloudEvents' JSON format says of <c>data</c>).</summary>
    private static bool IsJson(string? contentType)
    {
        if (contentType is null)
        {
            return true;
        }

        string media = contentType.Split(';')[0].Trim();
        return media.Equals("application/json", StringComparison.OrdinalIgnoreCase) || media.EndsWith("+json", StringComparison.OrdinalIgnoreCase) || media.Equals("text/json", StringComparison.OrdinalIgnoreCase);
    }

    private static bool StartsWithObject(ReadOnlySpan<byte> body)
        => body.IndexOfAnyExcept(" \t\r\n"u8) is >= 0 and var first && body[first] == (byte)'{';
}
