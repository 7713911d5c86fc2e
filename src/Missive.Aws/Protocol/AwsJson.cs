using System;
using System.Buffers;
using System.Collections.Generic;
using System.IO;
using System.Text.Json;
using Missive.Buffers;

namespace Missive.Aws.Protocol;

/// <summary>Writes AWS JSON request bodies and reads the members of their answers, with no reflection (trimming and AOT safe).</summary>
internal static class AwsJson
{
    /// <summary>
    /// Escapes only what JSON requires (quotes, backslashes, control characters), as the AWS SDKs do: the default
    /// encoder would spell every quote in a JSON message body as <c>\u0022</c>, six bytes for one.
    /// </summary>
    private static readonly JsonWriterOptions WriterOptions = new() { Encoder = System.Text.Encodings.Web.JavaScriptEncoder.UnsafeRelaxedJsonEscaping, SkipValidation = false };

    /// <summary>A writer per thread, pointed at each request's buffer in turn (System.Text.Json's own idiom for reuse).</summary>
    [ThreadStatic]
    private static Utf8JsonWriter? t_writer;

    /// <summary>Writes a request body into a pooled buffer (cleared when disposed: it holds message bodies); dispose it when the call is over.</summary>
    public static PooledBufferWriter Write<TState>(TState state, Action<Utf8JsonWriter, TState> write)
    {
        var buffer = new PooledBufferWriter(ArrayPool<byte>.Shared, 1024, clearOnReturn: true);
        Utf8JsonWriter? writer = t_writer;
        t_writer = null; // a write inside the callback (none today) would take a writer of its own
        if (writer is null)
        {
            writer = new Utf8JsonWriter(buffer, WriterOptions);
        }
        else
        {
            writer.Reset(buffer);
        }

        try
        {
            writer.WriteStartObject();
            write(writer, state);
            writer.WriteEndObject();
            writer.Flush();
        }
        catch
        {
            buffer.Dispose();
            throw;
        }
        finally
        {
            writer.Reset(Stream.Null);
            t_writer = writer;
        }

        return buffer;
    }

    /// <summary>Writes a message attribute map in the SQS JSON shape: <c>{"name": {"DataType": …, "StringValue" | "BinaryValue": …}}</c>.</summary>
    public static void WriteAttributes(Utf8JsonWriter writer, string propertyName, IReadOnlyDictionary<string, MessageAttributeValue>? attributes)
    {
        if (attributes is null || attributes.Count == 0)
        {
            return;
        }

        writer.WriteStartObject(propertyName);
        foreach (KeyValuePair<string, MessageAttributeValue> attribute in attributes)
        {
            writer.WriteStartObject(attribute.Key);
            writer.WriteString("DataType", attribute.Value.DataType);
            if (attribute.Value.IsBinary)
            {
                writer.WriteBase64String("BinaryValue", attribute.Value.BinaryValue.Span);
            }
            else
            {
                writer.WriteString("StringValue", attribute.Value.StringValue);
            }

            writer.WriteEndObject();
        }

        writer.WriteEndObject();
    }

    /// <summary>
    /// Parses a successful answer into a document of its own (a copy: the answer's buffer goes back to the pool); an
    /// empty body is an empty object. A body that is not JSON is a transport error.
    /// </summary>
    public static JsonDocument Parse(AwsResponse response, string operation)
    {
        try
        {
            var reader = new Utf8JsonReader(response.Body.IsEmpty ? "{}"u8 : response.Body.Span);
            JsonDocument document = JsonDocument.ParseValue(ref reader);
            if (reader.Read())
            {
                document.Dispose();
                throw new JsonException("More follows the answer's value.");
            }

            return document;
        }
        catch (JsonException e)
        {
            throw Malformed(operation, "a body that is not JSON", response.RequestId, e);
        }
    }

    /// <summary>A string member, or <c>null</c>; a string that is not UTF-8 is a transport error.</summary>
    public static string? String(JsonElement element, string name)
    {
        if (element.ValueKind != JsonValueKind.Object || !element.TryGetProperty(name, out JsonElement value) || value.ValueKind != JsonValueKind.String)
        {
            return null;
        }

        try
        {
            return value.GetString();
        }
        catch (InvalidOperationException e)
        {
            throw Malformed("The service", $"a {name} that is not UTF-8", null, e);
        }
    }

    /// <summary>An id member (a message or event id), or <c>null</c>: at most <see cref="MaxIdLength"/> characters, else a transport error.</summary>
    public static string? Id(JsonElement element, string name, string operation)
    {
        if (element.ValueKind != JsonValueKind.Object || !element.TryGetProperty(name, out JsonElement value) || value.ValueKind != JsonValueKind.String)
        {
            return null;
        }

        string? id = String(element, name);
        return id is { Length: > MaxIdLength } ? throw Malformed(operation, $"a {name} over {MaxIdLength} characters", null) : id;
    }

    /// <summary>The longest message or event id a service returns (SNS documents 100 characters; SQS's are 36-character UUIDs).</summary>
    public const int MaxIdLength = 100;

    public static JsonElement Property(JsonElement element, string name)
        => element.ValueKind == JsonValueKind.Object && element.TryGetProperty(name, out JsonElement value) ? value : default;

    public static MessageTransportException Malformed(string operation, string what, string? requestId, Exception? inner = null)
        => new($"{operation} answered with {what}.", inner) { ErrorCode = "MalformedResponse", RequestId = requestId };
}
