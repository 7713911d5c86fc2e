namespace Missive.Offload;

/// <summary>Where a stored payload lies: a bucket and a key in it (an S3 object, or its in-memory stand-in).</summary>
/// <param name="Bucket">The bucket.</param>
/// <param name="Key">The key.</param>
public readonly record struct PayloadLocation(string Bucket, string Key)
{
    /// <summary>Gets the location as <c>s3://bucket/key</c>, for errors and logs (never the payload).</summary>
    /// <returns>The location.</returns>
    public override string ToString() => $"s3://{Bucket}/{Key}";
}
