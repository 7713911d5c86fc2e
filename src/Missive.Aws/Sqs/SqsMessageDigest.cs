using System;
using System.Buffers;
using System.Buffers.Binary;
using System.Collections.Generic;
using System.Security.Cryptography;
using System.Text;

namespace Missive.Aws.Sqs;

/// <summary>
/// The MD5 digests SQS returns so that a client can check what SQS stored
/// (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-message-metadata.html,
/// "Calculating the MD5 message digest for message attributes"): of the body's UTF-8 bytes, and of the
/// message attributes encoded as, for each attribute in ascending ordinal order of name, the name, the data
/// type, one transport byte (1 for String and Number types, 2 for Binary types) and the value, each of the
/// three strings preceded by its length as a 4-byte big-endian integer. Lower-case hex.
/// </summary>
/// <remarks>MD5 here is SQS's integrity check, fixed by the service, not a security measure.</remarks>
[System.Diagnostics.CodeAnalysis.SuppressMessage("Security", "CA5351:Do not use broken cryptographic algorithms", Justification = "SQS defines these digests as MD5; they check integrity, not authenticity.")]
internal static class SqsMessageDigest
{
    public static string OfBody(string body) => OfBody(Encoding.UTF8.GetBytes(body));

    public static string OfBody(ReadOnlySpan<byte> utf8) => Convert.ToHexStringLower(MD5.HashData(utf8));

    /// <summary>Whether <paramref name="hex"/> is the digest of the body's UTF-8 bytes.</summary>
    public static bool BodyMatches(ReadOnlySpan<byte> utf8, string hex)
    {
        Span<byte> digest = stackalloc byte[16];
        MD5.HashData(utf8, digest);
        return Matches(digest, hex);
    }

    /// <summary>Whether <paramref name="hex"/> is the digest of <paramref name="body"/>'s UTF-8 bytes, computed without allocating.</summary>
    public static bool BodyMatches(string body, string hex)
    {
        const int OnStack = 4096;
        int length = Encoding.UTF8.GetMaxByteCount(body.Length) <= OnStack ? OnStack : Encoding.UTF8.GetByteCount(body);
        byte[]? rented = length > OnStack ? ArrayPool<byte>.Shared.Rent(length) : null;
        Span<byte> utf8 = rented ?? stackalloc byte[OnStack];
        int written = Encoding.UTF8.GetBytes(body, utf8);
        Span<byte> digest = stackalloc byte[16];
        MD5.HashData(utf8[..written], digest);
        if (rented is not null)
        {
            rented.AsSpan(0, written).Clear(); // message content: cleared before the array goes back
            ArrayPool<byte>.Shared.Return(rented);
        }

        return Matches(digest, hex);
    }

    /// <summary>Whether <paramref name="hex"/> (the digest SQS returned) spells <paramref name="digest"/>, in either case of hex digit.</summary>
    public static bool Matches(ReadOnlySpan<byte> digest, string hex)
    {
        if (hex.Length != 2 * digest.Length)
        {
            return false;
        }

        for (int i = 0; i < digest.Length; i++)
        {
            if (HexValue(hex[2 * i]) != digest[i] >> 4 || HexValue(hex[(2 * i) + 1]) != (digest[i] & 0xF))
            {
                return false;
            }
        }

        return true;
    }

    private static int HexValue(char c) => c switch
    {
        >= '0' and <= '9' => c - '0',
        >= 'a' and <= 'f' => c - 'a' + 10,
        >= 'A' and <= 'F' => c - 'A' + 10,
        _ => -1,
    };

    /// <summary>The attributes' digest, or <c>null</c> when there are none (SQS then returns none).</summary>
    public static string? OfAttributes(IReadOnlyDictionary<string, MessageAttributeValue>? attributes)
    {
        if (attributes is null || attributes.Count == 0)
        {
            return null;
        }

        var names = new string[attributes.Count];
        int n = 0;
        foreach (KeyValuePair<string, MessageAttributeValue> attribute in attributes)
        {
            names[n++] = attribute.Key;
        }

        Array.Sort(names, StringComparer.Ordinal);
        var buffer = new ArrayBufferWriter<byte>(256);
        foreach (string name in names)
        {
            MessageAttributeValue value = attributes[name];
            WriteLengthPrefixed(buffer, Encoding.UTF8.GetBytes(name));
            WriteLengthPrefixed(buffer, Encoding.UTF8.GetBytes(value.DataType));
            if (value.IsBinary)
            {
                buffer.Write<byte>([2]);
                WriteLengthPrefixed(buffer, value.BinaryValue.Span);
            }
            else
            {
                buffer.Write<byte>([1]);
                WriteLengthPrefixed(buffer, Encoding.UTF8.GetBytes(value.StringValue ?? string.Empty));
            }
        }

        return Convert.ToHexStringLower(MD5.HashData(buffer.WrittenSpan));
    }

    private static void WriteLengthPrefixed(ArrayBufferWriter<byte> buffer, ReadOnlySpan<byte> bytes)
    {
        BinaryPrimitives.WriteInt32BigEndian(buffer.GetSpan(4), bytes.Length);
        buffer.Advance(4);
        buffer.Write(bytes);
    }
}
