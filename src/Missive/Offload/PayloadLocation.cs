namespace Missive.Offload;

/// <summary>Where a stored payload lies: a bucket and a key in it (an S3 object, or its in-memory stand-in).</summary>
/// <param name="Bucket">The bucket.</param>
/// <param name="Key">The key.</param>
public readonly record struct PayloadLocation(string Bucket, string Key)
{
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

    /// <summary>Gets the location as <c>s3://bucket/key</c>, for errors and logs (never the payload).</summary>
    /// <returns>The location.</returns>
    public override string ToString() => $"s3://{Bucket}/{Key}";
}
