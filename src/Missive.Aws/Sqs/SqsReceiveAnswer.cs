using System;
using System.Buffers;
using System.Collections.Generic;
using System.Text.Json;
using Missive.Aws.Lexing;
using Missive.Aws.Protocol;
using Missive.Transport;

namespace Missive.Aws.Sqs;

/// <summary>
/// Reads a <c>ReceiveMessage</c> answer (<c>{"Messages": [{"MessageId", "ReceiptHandle", "MD5OfBody", "Body",
/// "Attributes", "MD5OfMessageAttributes", "MessageAttributes"}]}</c>) with a <see cref="Utf8JsonReader"/>, one message at a time.
/// </summary>
/// <remarks>
/// A problem with one message (a digest that does not match, a body or attribute that is not UTF-8, a binary attribute
/// that is not base64, an id or receipt handle over its documented length, a member missing) leaves that message out and
/// says why, and the others of the answer are read: they were received, and failing the whole call would leave them
/// invisible for nothing and count a receive against each. Only an answer that is not JSON of this shape fails whole.
/// </remarks>
[System.Diagnostics.CodeAnalysis.SuppressMessage("Security", "CA5351:Do not use broken cryptographic algorithms", Justification = "SQS defines its body digest as MD5; it checks integrity, not authenticity.")]
internal static class SqsReceiveAnswer
{
    /// <summary>The longest message id (SQS developer guide, queue and message identifiers).</summary>
    public const int MaxMessageIdLength = 100;

    /// <summary>The longest receipt handle (same page).</summary>
    public const int MaxReceiptHandleLength = 1024;

    /// <summary>Bytes cleared past a body's closing quote in the unescaper's scratch buffer, beyond what it can have written there.</summary>
    private const int WrittenMargin = 64;

    /// <summary>Reads the messages of an answer; a message with a problem goes into <paramref name="skipped"/> (its id, if any, and the problem) instead.</summary>
    /// <exception cref="MessageTransportException">The answer is not a JSON object with a <c>Messages</c> array of objects.</exception>
    /// <param name="response">The answer.</param>
    /// <param name="verifyDigests">Whether the MD5 digests SQS returned are checked.</param>
    /// <param name="skipped">Receives the messages left out, with why.</param>
    /// <param name="pool">Where the scratch buffer for unescaping a body comes from (cleared before it goes back); <see cref="ArrayPool{T}.Shared"/> by default.</param>
    public static List<SqsMessage> Read(AwsResponse response, bool verifyDigests, List<(string? MessageId, string Problem)> skipped, ArrayPool<byte>? pool = null)
    {
        pool ??= ArrayPool<byte>.Shared;
        var messages = new List<SqsMessage>();
        ReadOnlySpan<byte> answer = response.Body.Span;
        var reader = new Utf8JsonReader(answer);
        int readerStart = 0; // where in the answer the reader's span starts: a body read past it starts another reader
        try
        {
            if (!reader.Read())
            {
                return messages; // an empty answer: no messages
            }

            Expect(ref reader, JsonTokenType.StartObject, response);
            while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
            {
                bool list = reader.ValueTextEquals("Messages"u8);
                reader.Read();
                if (!list || reader.TokenType == JsonTokenType.Null)
                {
                    reader.Skip();
                    continue;
                }

                Expect(ref reader, JsonTokenType.StartArray, response);
                while (reader.Read() && reader.TokenType != JsonTokenType.EndArray)
                {
                    Expect(ref reader, JsonTokenType.StartObject, response);
                    ReadMessage(ref reader, answer, ref readerStart, verifyDigests, messages, skipped, pool);
                }
            }
        }
        catch (JsonException e)
        {
            throw AwsJson.Malformed("SQS ReceiveMessage", "a body that is not JSON", response.RequestId, e);
        }
        catch (InvalidOperationException e)
        {
            // A member name System.Text.Json cannot decode (an escaped lone surrogate) where a message's members are
            // told apart: found by the answer fuzz target; SQS never writes one, so the answer is not SQS's.
            throw AwsJson.Malformed("SQS ReceiveMessage", "a member name that is not UTF-8", response.RequestId, e);
        }

        return messages;
    }

    /// <summary>Reads one message object, from its start to its end.</summary>
    private static void ReadMessage(ref Utf8JsonReader reader, ReadOnlySpan<byte> answer, ref int readerStart, bool verifyDigests, List<SqsMessage> messages, List<(string?, string)> skipped, ArrayPool<byte> pool)
    {
        string? messageId = null, receiptHandle = null, bodyDigest = null, attributesDigest = null, problem = null;
        byte[]? body = null;
        IReadOnlyDictionary<string, string>? system = null;
        Dictionary<string, MessageAttributeValue>? attributes = null;
        Md5 computed = default;
        while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
        {
            if (reader.ValueTextEquals("Body"u8))
            {
                if (TryReadBodyPastReader(ref reader, answer, ref readerStart, out body, pool))
                {
                    Note(ref problem, Digest(body, ref computed) ? null : "its body is not UTF-8 text");
                    continue;
                }

                reader.Read();
                Note(ref problem, TryReadBody(ref reader, out body, pool) && Digest(body, ref computed) ? null : "its body is not UTF-8 text");
            }
            else if (reader.ValueTextEquals("MessageId"u8))
            {
                reader.Read();
                Note(ref problem, TryReadString(ref reader, out messageId) ? null : "its MessageId is not a UTF-8 string");
            }
            else if (reader.ValueTextEquals("ReceiptHandle"u8))
            {
                reader.Read();
                Note(ref problem, TryReadString(ref reader, out receiptHandle) ? null : "its ReceiptHandle is not a UTF-8 string");
            }
            else if (reader.ValueTextEquals("MD5OfBody"u8))
            {
                reader.Read();
                Note(ref problem, TryReadString(ref reader, out bodyDigest) ? null : "its MD5OfBody is not a string");
            }
            else if (reader.ValueTextEquals("MD5OfMessageAttributes"u8))
            {
                reader.Read();
                Note(ref problem, TryReadString(ref reader, out attributesDigest) ? null : "its MD5OfMessageAttributes is not a string");
            }
            else if (reader.ValueTextEquals("Attributes"u8))
            {
                reader.Read();
                Note(ref problem, ReadSystemAttributes(ref reader, out system));
            }
            else if (reader.ValueTextEquals("MessageAttributes"u8))
            {
                reader.Read();
                Note(ref problem, ReadMessageAttributes(ref reader, out attributes));
            }
            else
            {
                reader.Read();
                reader.Skip();
            }
        }

        problem ??= messageId is null ? "it has no MessageId"
            : messageId.Length > MaxMessageIdLength ? $"its MessageId is over {MaxMessageIdLength} characters"
            : receiptHandle is null ? "it has no ReceiptHandle"
            : receiptHandle.Length > MaxReceiptHandleLength ? $"its ReceiptHandle is over {MaxReceiptHandleLength} characters"
            : body is null ? "it has no Body"
            : null;
        if (problem is null && verifyDigests)
        {
            problem = CheckDigests(computed, bodyDigest, attributes, attributesDigest);
        }

        if (problem is not null)
        {
            skipped.Add((messageId is { Length: <= MaxMessageIdLength } ? messageId : null, problem));
            return;
        }

        messages.Add(new SqsMessage
        {
            Utf8Body = body!,
            MessageId = messageId!,
            ReceiptHandle = receiptHandle!,
            SystemAttributes = system!, // null: none
            MessageAttributes = attributes!,
        });
    }

    /// <summary>Keeps the first problem found; every member is read whatever came before, so that the reader stays in step.</summary>
    private static void Note(ref string? problem, string? found) => problem ??= found;

    /// <summary>
    /// The body the reader's property name introduces, read without the reader: a body is an escaped JSON document (a
    /// quote to escape every ten bytes or so), which <see cref="Utf8JsonReader"/> validates byte by byte before
    /// <see cref="Utf8JsonReader.CopyString(Span{byte})"/> unescapes it again. The string is found and unescaped in one
    /// pass over blocks instead, into an array of its own (the message outlives the answer's buffer), and
    /// <paramref name="reader"/> goes on after it: a reader over the rest of the answer, in the state a reader has after
    /// a string value there. False, with the reader untouched, when the value is not a string or does not unescape to
    /// text; the reader then reads it and says what is wrong.
    /// </summary>
    /// <exception cref="JsonException">The string is not JSON (a control character, an unknown escape, no closing quote).</exception>
    private static bool TryReadBodyPastReader(ref Utf8JsonReader reader, ReadOnlySpan<byte> answer, ref int readerStart, out byte[]? body, ArrayPool<byte> pool)
    {
        body = null;
        int quote = JsonWhitespace.Skip(answer, readerStart + (int)reader.BytesConsumed); // from just past the name's colon
        if (quote < 0 || answer[quote] != (byte)'"')
        {
            return false;
        }

        // Unescaping only shrinks, but the unescaper wants room for the rest of the answer, as it finds the end as it goes.
        int room = answer.Length - (quote + 1);
        byte[] scratch = pool.Rent(room);
        int closingQuote = -1;
        try
        {
            int length = JsonStringUnescaper.Unescape(answer, quote + 1, scratch.AsSpan(0, room), out closingQuote);
            body = scratch.AsSpan(0, length).ToArray();
        }
        catch (InvalidOperationException)
        {
            return false; // an escaped lone surrogate, or bytes that are not UTF-8
        }
        finally
        {
            // It held message content: what the unescaper wrote lies before the string's end (it stores whole blocks,
            // past what it keeps, but only blocks read before the closing quote); all of it when the string did not end.
            scratch.AsSpan(0, closingQuote < 0 ? room : Math.Min(room, closingQuote - quote + WrittenMargin)).Clear();
            pool.Return(scratch);
        }

        // The state of a reader that has just read a string value where this one stands: one read of an empty string
        // from the state after the property name.
        var past = new Utf8JsonReader("\"\""u8, isFinalBlock: false, reader.CurrentState);
        past.Read();
        readerStart = closingQuote + 1;
        reader = new Utf8JsonReader(answer[readerStart..], isFinalBlock: true, past.CurrentState);
        return true;
    }

    /// <summary>
    /// The body as UTF-8 bytes of its own (an array of its exact length: the message outlives the answer's pooled
    /// buffer), unescaped from the reader's string token into it. No string is made: the envelope is read from the
    /// bytes, and the text is decoded only if someone asks for it.
    /// </summary>
    private static bool TryReadBody(ref Utf8JsonReader reader, out byte[]? body, ArrayPool<byte> pool)
    {
        body = null;
        if (reader.TokenType != JsonTokenType.String)
        {
            reader.Skip();
            return false;
        }

        if (!reader.ValueIsEscaped)
        {
            body = reader.ValueSpan.ToArray();
            return true;
        }

        // Unescaped text is never longer than escaped text: unescape into a rented buffer of that size (cleared
        // before it goes back: it held message content), then copy out exactly the body.
        ReadOnlySpan<byte> escaped = reader.ValueSpan;
        byte[] scratch = pool.Rent(escaped.Length);
        try
        {
            body = scratch.AsSpan(0, reader.CopyString(scratch)).ToArray();
            return true;
        }
        catch (InvalidOperationException)
        {
            return false; // an escaped lone surrogate, or bytes that are not UTF-8
        }
        finally
        {
            scratch.AsSpan(0, escaped.Length).Clear(); // whatever the copy wrote, even when it failed midway
            pool.Return(scratch);
        }
    }

    /// <summary>Whether the body is UTF-8 text; if so, its MD5 is taken over those bytes.</summary>
    private static bool Digest(byte[]? body, ref Md5 digest)
    {
        if (body is null || !System.Text.Unicode.Utf8.IsValid(body))
        {
            return false;
        }

        System.Security.Cryptography.MD5.HashData(body, digest);
        return true;
    }

    /// <summary>Reads a string (or null) token; false for any other token (skipped) or text that is not UTF-8.</summary>
    private static bool TryReadString(ref Utf8JsonReader reader, out string? value)
    {
        value = null;
        if (reader.TokenType == JsonTokenType.Null)
        {
            return true;
        }

        if (reader.TokenType != JsonTokenType.String)
        {
            reader.Skip();
            return false;
        }

        try
        {
            value = reader.GetString();
            return true;
        }
        catch (InvalidOperationException)
        {
            return false;
        }
    }

    /// <summary>The system attributes SQS returns (those the transport asks for, and SenderId), each with its name as UTF-8.</summary>
    private static readonly (string Name, byte[] Utf8)[] KnownSystemAttributes =
    [
        (SqsSystemAttributes.ApproximateReceiveCount, "ApproximateReceiveCount"u8.ToArray()),
        (SqsSystemAttributes.SentTimestamp, "SentTimestamp"u8.ToArray()),
        (SqsSystemAttributes.ApproximateFirstReceiveTimestamp, "ApproximateFirstReceiveTimestamp"u8.ToArray()),
        (SqsSystemAttributes.SenderId, "SenderId"u8.ToArray()),
        (SqsSystemAttributes.MessageGroupId, "MessageGroupId"u8.ToArray()),
        (SqsSystemAttributes.MessageDeduplicationId, "MessageDeduplicationId"u8.ToArray()),
        (SqsSystemAttributes.SequenceNumber, "SequenceNumber"u8.ToArray()),
        (SqsSystemAttributes.DeadLetterQueueSourceArn, "DeadLetterQueueSourceArn"u8.ToArray()),
    ];

    /// <summary>The name the reader is on as the one string kept for it, when it is a known system attribute: no string per message.</summary>
    private static string? KnownSystemAttribute(ref Utf8JsonReader reader)
    {
        foreach ((string name, byte[] utf8) in KnownSystemAttributes)
        {
            if (reader.ValueTextEquals(utf8))
            {
                return name;
            }
        }

        return null;
    }

    /// <summary>Reads the property name the reader is on; false when it is not UTF-8.</summary>
    private static bool TryReadName(ref Utf8JsonReader reader, out string name)
    {
        try
        {
            name = reader.GetString()!;
            return true;
        }
        catch (InvalidOperationException)
        {
            name = string.Empty;
            return false;
        }
    }

    /// <summary>Reads <c>Attributes</c>, an object of strings; returns the problem, or <c>null</c>.</summary>
    private static string? ReadSystemAttributes(ref Utf8JsonReader reader, out IReadOnlyDictionary<string, string>? system)
    {
        system = null;
        if (reader.TokenType != JsonTokenType.StartObject)
        {
            reader.Skip();
            return reader.TokenType == JsonTokenType.Null ? null : "its Attributes are not an object";
        }

        string? problem = null;
        var map = new SystemAttributeMap();
        system = map;
        while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
        {
            string? known = KnownSystemAttribute(ref reader);
            string name = known ?? string.Empty;
            bool named = known is not null || TryReadName(ref reader, out name);
            reader.Read();
            if (reader.TokenType != JsonTokenType.String)
            {
                reader.Skip(); // not a string: not an attribute the bus reads
            }
            else if (!TryReadString(ref reader, out string? value) || !named)
            {
                problem ??= "one of its system attributes is not UTF-8 text";
            }
            else
            {
                map.Set(name, value!);
            }
        }

        return problem;
    }

    /// <summary>Reads <c>MessageAttributes</c>: name to <c>{"DataType", "StringValue" | "BinaryValue"}</c>; returns the problem, or <c>null</c>.</summary>
    private static string? ReadMessageAttributes(ref Utf8JsonReader reader, out Dictionary<string, MessageAttributeValue>? attributes)
    {
        attributes = null;
        if (reader.TokenType != JsonTokenType.StartObject)
        {
            reader.Skip();
            return reader.TokenType == JsonTokenType.Null ? null : "its MessageAttributes are not an object";
        }

        string? problem = null;
        attributes = new Dictionary<string, MessageAttributeValue>(StringComparer.Ordinal);
        while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
        {
            bool named = TryReadName(ref reader, out string name);
            reader.Read();
            if (reader.TokenType != JsonTokenType.StartObject)
            {
                reader.Skip();
                problem ??= "one of its message attributes is not an object";
                continue;
            }

            string? dataType = null, stringValue = null;
            byte[]? binaryValue = null;
            bool valid = named;
            while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
            {
                if (reader.ValueTextEquals("DataType"u8))
                {
                    reader.Read();
                    valid &= TryReadString(ref reader, out dataType);
                }
                else if (reader.ValueTextEquals("StringValue"u8))
                {
                    reader.Read();
                    valid &= TryReadString(ref reader, out stringValue);
                }
                else if (reader.ValueTextEquals("BinaryValue"u8))
                {
                    reader.Read();
                    if (reader.TokenType == JsonTokenType.String)
                    {
                        valid &= reader.TryGetBytesFromBase64(out binaryValue);
                    }
                    else
                    {
                        reader.Skip();
                        valid &= reader.TokenType == JsonTokenType.Null;
                    }
                }
                else
                {
                    reader.Read();
                    reader.Skip(); // StringListValues, BinaryListValues: reserved, never set
                }
            }

            if (!valid)
            {
                problem ??= "one of its message attributes does not parse (not UTF-8, or a BinaryValue that is not base64)";
                continue;
            }

            dataType ??= "String";
            attributes[name] = dataType.StartsWith("Binary", StringComparison.Ordinal)
                ? new MessageAttributeValue { DataType = dataType, BinaryValue = binaryValue ?? ReadOnlyMemory<byte>.Empty }
                : new MessageAttributeValue { DataType = dataType, StringValue = stringValue };
        }

        return problem;
    }

    /// <summary>Compares the digests SQS returned with those of what was read; returns the problem, or <c>null</c>.</summary>
    private static string? CheckDigests(in Md5 body, string? bodyDigest, Dictionary<string, MessageAttributeValue>? attributes, string? attributesDigest)
    {
        if (bodyDigest is null || !SqsMessageDigest.Matches(body, bodyDigest))
        {
            return "the MD5 digest of its body does not match the MD5OfBody SQS returned";
        }

        string? computed = SqsMessageDigest.OfAttributes(attributes);
        return (computed is null && attributesDigest is null) || string.Equals(computed, attributesDigest, StringComparison.OrdinalIgnoreCase)
            ? null
            : "the MD5 digest of its message attributes does not match the MD5OfMessageAttributes SQS returned";
    }

    private static void Expect(ref Utf8JsonReader reader, JsonTokenType type, AwsResponse response)
    {
        if (reader.TokenType != type)
        {
            throw AwsJson.Malformed("SQS ReceiveMessage", $"JSON that is not a ReceiveMessage answer ({reader.TokenType} where {type} belongs)", response.RequestId);
        }
    }

    /// <summary>An MD5 digest, held in place.</summary>
    [System.Runtime.CompilerServices.InlineArray(16)]
    internal struct Md5
    {
        private byte _first;
    }
}
