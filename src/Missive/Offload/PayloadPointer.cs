using System;
using System.Buffers;
using System.Collections.Generic;
using System.Text.Json;

namespace Missive.Offload;

/// <summary>
/// The body that stands for a stored payload, as AWS's extended clients write and read it: a JSON array of the pointer's
/// class name and an object with <c>s3BucketName</c> and <c>s3Key</c>, marked by a <c>Number</c> attribute holding the
/// original body's size in UTF-8 bytes.
/// </summary>
/// <remarks>
/// <list type="bullet">
/// <item>Java's client from 1.1.0 writes <c>software.amazon.payloadoffloading.PayloadS3Pointer</c>, compact; 1.0.x and
/// Python's legacy mode <c>com.amazon.sqs.javamessaging.MessageS3Pointer</c>. Python writes spaces after <c>,</c> and
/// <c>:</c> and escapes non-ASCII: the body is parsed, never compared.</item>
/// <item>The size attribute is <c>ExtendedPayloadSize</c> (Python, SNS, Java with the legacy name off) or
/// <c>SQSLargePayloadSize</c> (Java's default in every release up to 2.1.2): a reader accepts either.</item>
/// </list>
/// </remarks>
internal static class PayloadPointer
{
    /// <summary>The class name Java's extended client writes from 1.1.0.</summary>
    public const string ClassName = "software.amazon.payloadoffloading.PayloadS3Pointer";

    /// <summary>The class name of Java's 1.0.x and Python's legacy mode.</summary>
    public const string LegacyClassName = "com.amazon.sqs.javamessaging.MessageS3Pointer";

    /// <summary>The size attribute of Python, the SNS client, and Java with its legacy name off.</summary>
    public const string SizeAttribute = "ExtendedPayloadSize";

    /// <summary>The size attribute Java writes by default (every release up to 2.1.2).</summary>
    public const string LegacySizeAttribute = "SQSLargePayloadSize";

    /// <summary>The longest pointer body read (a bucket name is at most 63 characters and a key at most 1,024 bytes, escaped).</summary>
    private const int MaxPointerLength = 8 * 1024;

    /// <summary>Writes the pointer body, compact, as Java's client does.</summary>
    public static string Write(PayloadLocation location, string className)
    {
        var buffer = new ArrayBufferWriter<byte>(128 + location.Key.Length);
        using (var writer = new Utf8JsonWriter(buffer))
        {
            writer.WriteStartArray();
            writer.WriteStringValue(className);
            writer.WriteStartObject();
            writer.WriteString("s3BucketName", location.Bucket);
            writer.WriteString("s3Key", location.Key);
            writer.WriteEndObject();
            writer.WriteEndArray();
        }

        return System.Text.Encoding.UTF8.GetString(buffer.WrittenSpan);
    }

    /// <summary>Gets the size attribute a message carries, under either name, or <c>null</c>.</summary>
    public static string? SizeAttributeOf(IReadOnlyDictionary<string, MessageAttributeValue> attributes)
        => attributes.ContainsKey(SizeAttribute) ? SizeAttribute : attributes.ContainsKey(LegacySizeAttribute) ? LegacySizeAttribute : null;

    /// <summary>Reads a pointer body: either class name, then an object with both names as strings; anything else is no pointer.</summary>
    public static bool TryRead(ReadOnlySpan<byte> body, out PayloadLocation location)
    {
        location = default;
        if (body.Length > MaxPointerLength || body.IndexOfAnyExcept(" \t\r\n"u8) is not (>= 0 and var first) || body[first] != (byte)'[')
        {
            return false;
        }

        try
        {
            var reader = new Utf8JsonReader(body);
            if (!reader.Read() || reader.TokenType != JsonTokenType.StartArray || !reader.Read() || reader.TokenType != JsonTokenType.String
                || !(reader.ValueTextEquals(ClassName) || reader.ValueTextEquals(LegacyClassName))
                || !reader.Read() || reader.TokenType != JsonTokenType.StartObject)
            {
                return false;
            }

            string? bucket = null, key = null;
            while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
            {
                bool isBucket = reader.ValueTextEquals("s3BucketName"u8), isKey = reader.ValueTextEquals("s3Key"u8);
                if (!reader.Read())
                {
                    return false;
                }

                if ((isBucket || isKey) && reader.TokenType == JsonTokenType.String)
                {
                    _ = isBucket ? bucket = reader.GetString() : key = reader.GetString();
                }
                else
                {
                    reader.Skip(); // a member of a later client version
                }
            }

            if (reader.TokenType != JsonTokenType.EndObject || !reader.Read() || reader.TokenType != JsonTokenType.EndArray || reader.Read()
                || string.IsNullOrEmpty(bucket) || string.IsNullOrEmpty(key))
            {
                return false;
            }

            location = new PayloadLocation(bucket, key);
            return true;
        }
        catch (JsonException)
        {
            return false;
        }
    }
}
