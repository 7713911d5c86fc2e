using System;
using Missive.Offload;

namespace Missive.Aws;

/// <content>What is checked before any request: the store's bucket, and the bucket and key a pointer names.</content>
public sealed partial class S3PayloadStore
{
    /// <summary>
    /// Whether <paramref name="bucket"/> is safe to put in a request's host name or path: 1 to 255 ASCII letters, digits,
    /// dots, hyphens and underscores, neither starting nor ending with a dot, no two dots together (general purpose
    /// buckets, legacy names, access point aliases <c>…-s3alias</c>, directory buckets <c>…--x-s3</c>, Multi-Region
    /// Access Point aliases <c>….mrap</c>); or the ARN of an access point, a Multi-Region Access Point or an Outposts
    /// bucket, which the SDK routes itself. S3's own naming rules are S3's to apply: a name it refuses gets its answer.
    /// </summary>
    internal static bool IsValidBucketName(string? bucket)
    {
        if (string.IsNullOrEmpty(bucket))
        {
            return false;
        }

        if (bucket.StartsWith("arn:", StringComparison.Ordinal))
        {
            return IsAccessPointArn(bucket);
        }

        if (bucket.Length > 255 || bucket[0] == '.' || bucket[^1] == '.' || bucket.Contains("..", StringComparison.Ordinal))
        {
            return false;
        }

        foreach (char c in bucket)
        {
            if (!char.IsAsciiLetterOrDigit(c) && c is not ('.' or '-' or '_'))
            {
                return false; // anything else could leave the host name or the path segment (/, ?, #, :, @, %, spaces, controls)
            }
        }

        return true;
    }

    /// <summary>
    /// An S3 ARN the SDK takes in place of a bucket name (<c>arn:aws:s3:us-west-2:123456789012:accesspoint/reports</c>,
    /// <c>arn:aws:s3::123456789012:accesspoint/mfzwi23gnjvgw.mrap</c>, <c>arn:aws:s3-outposts:…</c>): of letters, digits,
    /// and <c>- . _ : /</c>, with no empty or dot-only path segment. A bucket's own ARN (<c>arn:aws:s3:::name</c>) is not
    /// one: the bucket's name is.
    /// </summary>
    private static bool IsAccessPointArn(string arn)
    {
        string[] parts = arn.Split(':', 6);
        if (arn.Length > 1024 || parts.Length != 6 || parts[2] is not ("s3" or "s3-outposts" or "s3-object-lambda") || parts[4].Length == 0)
        {
            return false;
        }

        foreach (char c in arn)
        {
            if (!char.IsAsciiLetterOrDigit(c) && c is not ('-' or '.' or '_' or ':' or '/'))
            {
                return false;
            }
        }

        foreach (string segment in parts[5].Split('/'))
        {
            if (segment is "" or "." or "..")
            {
                return false;
            }
        }

        return true;
    }

    private static string CheckBucket(string bucket)
    {
        if (string.IsNullOrEmpty(bucket))
        {
            throw new MessageBusConfigurationException("The S3 payload store has no bucket: set S3PayloadStoreOptions.Bucket.");
        }

        return IsValidBucketName(bucket) ? bucket
            : throw new MessageBusConfigurationException($"'{bucket}' is not an S3 bucket name: letters, digits, dots, hyphens and underscores (S3's bucket naming rules), or an access point's ARN. Set S3PayloadStoreOptions.Bucket to the bucket's name (or an access point's alias or ARN), not the bucket's ARN or URL.");
    }

    /// <summary>A pointer's bucket and key, checked before any request: a message cannot make the store call another host or path.</summary>
    private static void CheckLocation(PayloadLocation location, string operation)
    {
        if (!IsValidBucketName(location.Bucket))
        {
            throw new MessageTransportException($"S3 {operation}: the bucket named in the message ('{Printable(location.Bucket)}') is not a name that can be put in a request (a character outside letters, digits, '.', '-' and '_', or an ARN that is not an access point's); nothing was requested.") { ErrorCode = "InvalidBucketName", FailureKind = TransportFailureKind.Refused };
        }

        CheckKey(location, operation);
    }

    private static void CheckKey(PayloadLocation location, string operation)
    {
        if (!location.HasSafeKey)
        {
            throw new MessageTransportException($"S3 {operation}: the key of {location} is not one S3 is asked for (a '.' or '..' segment, a control character, or over 1,024 bytes); nothing was requested.") { ErrorCode = "InvalidKey", FailureKind = TransportFailureKind.Refused };
        }
    }

    private static string Printable(string text)
    {
        string shown = text.Length > 80 ? text[..80] + "…" : text;
        return string.Create(shown.Length, shown, static (span, s) =>
        {
            for (int i = 0; i < s.Length; i++)
            {
                span[i] = char.IsControl(s[i]) ? '?' : s[i];
            }
        });
    }
}
