using System;

namespace Missive.Aws;

/// <summary>Where and how <see cref="S3PayloadStore"/> keeps offloaded payloads.</summary>
public sealed class S3PayloadStoreOptions
{
    /// <summary>Gets or sets the bucket payloads are stored in (and read from). Required.</summary>
    public string Bucket { get; set; } = string.Empty;

    /// <summary>Gets or sets a prefix put before every key (for example <c>payloads/</c>), or <c>null</c>.</summary>
    public string? KeyPrefix { get; set; }

    /// <summary>
    /// Gets or sets the S3 endpoint of the store's own client, or <c>null</c>: then <c>AWS_ENDPOINT_URL_S3</c>, the
    /// transport's <c>ServiceUrl</c>, <c>AWS_ENDPOINT_URL</c>, and the region's endpoint, in that order. Not with
    /// <see cref="Client"/> (set the client's own <c>ServiceURL</c>).
    /// </summary>
    public Uri? ServiceUrl { get; set; }

    /// <summary>
    /// Gets or sets the S3 client to use (the application's own, configured as it configures it), or <c>null</c>: then
    /// the <see cref="Amazon.S3.IAmazonS3"/> registered in DI (as <c>AddAWSService&lt;IAmazonS3&gt;()</c> registers it),
    /// else a client the store builds from the Missive.Aws options. The store never disposes a client it was given.
    /// </summary>
    public Amazon.S3.IAmazonS3? Client { get; set; }

    /// <summary>
    /// Gets or sets whether the store's own client puts the bucket in the path (<c>http://host/bucket/key</c>) rather than in the host name
    /// (<c>https://bucket.s3.region.amazonaws.com/key</c>), or <c>null</c>: the path on a configured endpoint (a local
    /// one), the host name on AWS.
    /// </summary>
    public bool? ForcePathStyle { get; set; }

    /// <summary>
    /// Gets or sets whether payloads are encrypted with SSE-KMS (<c>aws:kms</c>): with <see cref="KmsKeyId"/>, or with
    /// the AWS managed key <c>aws/s3</c> when that is <c>null</c>. Default <c>false</c>: the bucket's default encryption.
    /// </summary>
    public bool UseKms { get; set; }

    /// <summary>Gets or sets the KMS key (id, alias or ARN) of SSE-KMS, or <c>null</c> for the AWS managed key. Setting it turns <see cref="UseKms"/> on.</summary>
    public string? KmsKeyId { get; set; }
}
