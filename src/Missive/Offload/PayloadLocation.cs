using System;

namespace Missive.Offload;

/// <summary>Where a stored payload lies: a bucket and a key in it (an S3 object, or its in-memory stand-in).</summary>
/// <param name="Bucket">The bucket.</param>
/// <param name="Key">The key.</param>
public readonly record struct PayloadLocation(string Bucket, string Key)
{
    private const string BucketMark = "-..s3BucketName..-";
    private const string KeyMark = "-..s3Key..-";

    /// <summary>
    /// Gets whether the key can be asked for without leaving its bucket: not empty, at most 1,024 UTF-8 bytes, no control
    /// character, and no <c>.</c> or <c>..</c> path segment (which a URL would resolve to another bucket or key).
    /// </summary>
    public bool HasSafeKey
    {
        get
        {
            if (string.IsNullOrEmpty(Key) || System.Text.Encoding.UTF8.GetByteCount(Key) > 1024)
            {
                return false;
            }

            foreach (char c in Key)
            {
                if (char.IsControl(c))
                {
                    return false;
                }
            }

            foreach (string segment in Key.Split('/'))
            {
                if (segment is "." or "..")
                {
                    return false;
                }
            }

            return true;
        }
    }

    /// <summary>
    /// Gets a receipt handle as SQS issued it. With <see cref="PayloadOffloadOptions.DeleteAfterHandling"/>, the bus's
    /// receive puts a pointer's payload location before the handle (as Java's extended client does), so that deleting
    /// the message deletes the payload; SQS refuses such a handle. Missive strips it wherever a handle reaches SQS;
    /// this is for code that gives a handle from a received <see cref="Transport.SqsMessage"/> to another client.
    /// </summary>
    /// <param name="receiptHandle">A receipt handle, with or without a payload location. Must not be null.</param>
    /// <returns>The handle without the location, or <paramref name="receiptHandle"/> itself when it carries none.</returns>
    public static string SqsReceiptHandle(string receiptHandle)
    {
        ArgumentNullException.ThrowIfNull(receiptHandle);
        return TryTakeFrom(receiptHandle, out string handle, out _) ? handle : receiptHandle;
    }

    /// <summary>A receipt handle with this location before it, in Java's extended client's format.</summary>
    internal string PutBefore(string receiptHandle) => BucketMark + Bucket + BucketMark + KeyMark + Key + KeyMark + receiptHandle;

    /// <summary>Takes the location <see cref="PutBefore"/> put before a receipt handle, giving the handle SQS issued.</summary>
    internal static bool TryTakeFrom(string receiptHandle, out string sqsHandle, out PayloadLocation location)
    {
        sqsHandle = receiptHandle;
        location = default;
        if (!receiptHandle.StartsWith(BucketMark, StringComparison.Ordinal))
        {
            return false;
        }

        int bucketEnd = receiptHandle.IndexOf(BucketMark, BucketMark.Length, StringComparison.Ordinal);
        if (bucketEnd < 0 || !receiptHandle.AsSpan(bucketEnd + BucketMark.Length).StartsWith(KeyMark, StringComparison.Ordinal))
        {
            return false;
        }

        int keyStart = bucketEnd + BucketMark.Length + KeyMark.Length;
        int keyEnd = receiptHandle.IndexOf(KeyMark, keyStart, StringComparison.Ordinal);
        if (keyEnd < 0)
        {
            return false;
        }

        location = new PayloadLocation(receiptHandle[BucketMark.Length..bucketEnd], receiptHandle[keyStart..keyEnd]);
        sqsHandle = receiptHandle[(keyEnd + KeyMark.Length)..];
        return true;
    }

    /// <summary>Gets the location as <c>s3://bucket/key</c>, for errors and logs (never the payload).</summary>
    /// <returns>The location.</returns>
    public override string ToString() => $"s3://{Bucket}/{Key}";
}
