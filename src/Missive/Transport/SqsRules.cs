using System;
using System.Collections.Generic;
using System.Text;

namespace Missive.Transport;

/// <summary>The SQS and SNS wire rules: body characters, attribute names and counts, sizes (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/quotas-messages.html and the SendMessage API reference).</summary>
internal static class SqsRules
{
    /// <summary>The largest SQS message: 1 MiB, body and attributes together.</summary>
    public const int MaxMessageSize = 1024 * 1024;

    /// <summary>The default largest SNS message: 256 KiB (a topic may raise it to 1 MiB).</summary>
    public const int DefaultSnsMaxMessageSize = 256 * 1024;

    /// <summary>The most message attributes a message may carry.</summary>
    public const int MaxMessageAttributes = 10;

    /// <summary>Returns the index of the first character SQS does not allow in a body, or -1.</summary>
    /// <param name="body">The body. Must not be null.</param>
    /// <returns>The index, or -1.</returns>
    public static int IndexOfInvalidBodyCharacter(string body)
    {
        ArgumentNullException.ThrowIfNull(body);
        for (int i = 0; i < body.Length; i++)
        {
            char c = body[i];
            if (c >= 0x20 && c <= 0xD7FF)
            {
                continue;
            }

            if (c is '\t' or '\n' or '\r' || (c >= 0xE000 && c <= 0xFFFD))
            {
                continue;
            }

            if (char.IsHighSurrogate(c) && i + 1 < body.Length && char.IsLowSurrogate(body[i + 1]))
            {
                i++; // #x10000-#x10FFFF
                continue;
            }

            return i;
        }

        return -1;
    }

    /// <summary>Tells why an attribute name is invalid, or returns <c>null</c> when it is valid.</summary>
    /// <param name="name">The name. Must not be null.</param>
    /// <returns>The reason, or <c>null</c>.</returns>
    public static string? ValidateAttributeName(string name)
    {
        ArgumentNullException.ThrowIfNull(name);
        if (name.Length is 0 or > 256)
        {
            return "must be 1 to 256 characters long";
        }

        if (name.StartsWith("AWS.", StringComparison.OrdinalIgnoreCase) || name.StartsWith("Amazon.", StringComparison.OrdinalIgnoreCase))
        {
            return "must not start with 'AWS.' or 'Amazon.'";
        }

        if (name[0] == '.' || name[^1] == '.' || name.Contains("..", StringComparison.Ordinal))
        {
            return "must not start or end with a period or hold two periods in a row";
        }

        foreach (char c in name)
        {
            if (!char.IsAsciiLetterOrDigit(c) && c is not ('_' or '-' or '.'))
            {
                return "may hold only letters, digits, '_', '-' and '.'";
            }
        }

        return null;
    }

    /// <summary>The longest FIFO message group or deduplication id SQS and SNS take.</summary>
    public const int MaxFifoIdLength = 128;

    /// <summary>
    /// Why SQS and SNS would refuse a FIFO message group or deduplication id (SQS API reference, SendMessage: up to 128
    /// characters, alphanumeric and punctuation), as the end of a sentence; <c>null</c> when they take it or it is null.
    /// </summary>
    public static string? FifoIdProblem(string? id)
    {
        if (id is null)
        {
            return null;
        }

        if (id.Length == 0)
        {
            return "is empty";
        }

        if (id.Length > MaxFifoIdLength)
        {
            return $"is {id.Length} characters long, over the {MaxFifoIdLength} SQS takes";
        }

        foreach (char c in id)
        {
            if (c is < '!' or > '~')
            {
                return "holds a character SQS does not take (only letters, digits and punctuation, no spaces)";
            }
        }

        return null;
    }

    /// <summary>The size SQS counts for a message: the body plus every attribute's name, type and value, in UTF-8 bytes.</summary>
    /// <param name="body">The body. Must not be null.</param>
    /// <param name="attributes">The attributes. Must not be null.</param>
    /// <returns>The size in bytes.</returns>
    public static long MessageSize(string body, IReadOnlyDictionary<string, MessageAttributeValue> attributes)
    {
        ArgumentNullException.ThrowIfNull(body);
        return MessageSize(Encoding.UTF8.GetByteCount(body), attributes);
    }

    /// <summary>The size SQS counts for a message whose body is <paramref name="bodyBytes"/> UTF-8 bytes long.</summary>
    /// <param name="bodyBytes">The body's length in UTF-8 bytes.</param>
    /// <param name="attributes">The attributes. Must not be null.</param>
    /// <returns>The size in bytes.</returns>
    public static long MessageSize(long bodyBytes, IReadOnlyDictionary<string, MessageAttributeValue> attributes)
    {
        ArgumentNullException.ThrowIfNull(attributes);
        long size = bodyBytes;
        foreach (KeyValuePair<string, MessageAttributeValue> attribute in attributes)
        {
            size += Encoding.UTF8.GetByteCount(attribute.Key) + Encoding.UTF8.GetByteCount(attribute.Value.DataType)
                + (attribute.Value.IsBinary ? attribute.Value.BinaryValue.Length : Encoding.UTF8.GetByteCount(attribute.Value.StringValue ?? string.Empty));
        }

        return size;
    }

    /// <summary>Checks a message against the SQS rules and throws <see cref="MessageTransportException"/> saying what is wrong.</summary>
    /// <param name="body">The body.</param>
    /// <param name="attributes">The attributes.</param>
    /// <param name="maxSize">The queue's largest message.</param>
    /// <param name="what">The kind of target, for the message ("queue", "topic").</param>
    /// <param name="maxAttributes">The most message attributes allowed (SQS: 10; SNS publishes take more).</param>
    public static void Validate(string body, IReadOnlyDictionary<string, MessageAttributeValue> attributes, long maxSize, string what, int maxAttributes = MaxMessageAttributes)
    {
        int invalid = IndexOfInvalidBodyCharacter(body);
        if (invalid >= 0)
        {
            throw new MessageTransportException($"The message body holds a character SQS does not allow (U+{(int)body[invalid]:X4}) at index {invalid}; binary content must travel as base64.");
        }

        if (attributes.Count > maxAttributes)
        {
            throw new MessageTransportException($"The message has {attributes.Count} attributes; at most {maxAttributes} are allowed.");
        }

        foreach (KeyValuePair<string, MessageAttributeValue> attribute in attributes)
        {
            if (ValidateAttributeName(attribute.Key) is { } reason)
            {
                throw new MessageTransportException($"The message attribute name '{attribute.Key}' {reason}.");
            }
        }

        long size = MessageSize(body, attributes);
        if (size > maxSize)
        {
            throw new MessageTransportException($"The message is {size} bytes (body and attributes), over the {what}'s maximum of {maxSize} bytes.");
        }
    }
}
