using System;
using System.IO;
using System.Net;
using System.Net.Http;
using System.Threading;
using System.Threading.Tasks;
using Amazon.Runtime;
using Amazon.S3;
using Amazon.S3.Model;
using Missive.Aws.Protocol;
using Missive.Offload;

namespace Missive.Aws;

/// <summary>Keeps offloaded payloads in Amazon S3 (<c>PutObject</c>, <c>GetObject</c>, <c>DeleteObject</c>) through the AWS SDK's <see cref="IAmazonS3"/>.</summary>
/// <remarks>
/// <list type="bullet">
/// <item>The client is the application's own (given to <see cref="S3PayloadStore(S3PayloadStoreOptions, IAmazonS3)"/>,
/// or registered in DI when the store comes from <c>UseS3PayloadStore</c>), or one the store builds from the region,
/// credentials and endpoint settings of the Missive.Aws options (see <see cref="Endpoint"/>), with their
/// <c>MaxAttempts</c> and <c>AttemptTimeout</c> under AWS's standard retry mode.</item>
/// <item>Uploads are signed over their SHA-256 and sent whole (no chunked encoding, no trailing checksum).</item>
/// <item>Keys are lowercase UUIDs after <see cref="S3PayloadStoreOptions.KeyPrefix"/>, as AWS's extended clients make them.</item>
/// <item>A bucket name that cannot be put in a request's host or path, or a key S3 is not asked for, is refused before any request (as this message's fault: it never changes health).</item>
/// <item>A download longer than the reader's limit is refused from its length, before it is read; one that ends early
/// is an error (<c>IncompleteBody</c>), never a short payload.</item>
/// <item>Failures are <see cref="MessageTransportException"/>s with S3's code (<c>NoSuchKey</c>, <c>AccessDenied</c>, …),
/// whether it will clear by itself, and what to check; never the payload.</item>
/// </list>
/// </remarks>
public sealed partial class S3PayloadStore : IPayloadStore, IDisposable
{
    private readonly IAmazonS3 _s3;
    private readonly bool _ownsClient;
    private readonly string? _prefix;
    private readonly string? _kms; // null: no SSE-KMS; empty: the AWS managed key
    private readonly TimeSpan _readTimeout;
    private readonly AwsCallSite _site;
    private readonly string _client; // which client, and what chose its endpoint, for errors

    /// <summary>Creates a store with a client of its own, with the region, credentials and endpoint settings of <paramref name="transport"/>.</summary>
    /// <param name="options">The bucket and its settings. Must not be null.</param>
    /// <param name="transport">The Missive.Aws options (region, credentials, ServiceUrl, AttemptTimeout, MaxAttempts). Must not be null.</param>
    /// <exception cref="MessageBusConfigurationException">No bucket, a bucket name S3 does not take, or the region or credentials cannot be resolved.</exception>
    public S3PayloadStore(S3PayloadStoreOptions options, AwsTransportOptions transport)
        : this(options, transport, AwsSettings.Resolve(transport, Environment.GetEnvironmentVariable), Environment.GetEnvironmentVariable, handler: null)
    {
    }

    /// <summary>Creates a store on the application's own S3 client (its region, credentials, endpoint and retries; the store does not dispose it).</summary>
    /// <param name="options">The bucket and its settings (<see cref="S3PayloadStoreOptions.ServiceUrl"/> and <see cref="S3PayloadStoreOptions.ForcePathStyle"/> are the client's to say, and must not be set). Must not be null.</param>
    /// <param name="client">The client. Must not be null.</param>
    /// <exception cref="MessageBusConfigurationException">No bucket, a bucket name S3 does not take, or an endpoint setting given with a client.</exception>
    public S3PayloadStore(S3PayloadStoreOptions options, IAmazonS3 client)
    {
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(client);
        if (options.ServiceUrl is not null || options.ForcePathStyle is not null)
        {
            throw new MessageBusConfigurationException("S3PayloadStoreOptions.ServiceUrl and ForcePathStyle were set along with an IAmazonS3 client: set them on the client's AmazonS3Config (ServiceURL, ForcePathStyle) instead.");
        }

        Bucket = CheckBucket(options.Bucket);
        _s3 = client;
        _prefix = options.KeyPrefix;
        _kms = Kms(options);
        _readTimeout = TimeSpan.FromSeconds(100);
        SdkClientSite site = SdkClientSite.Of(client.Config, "s3");
        Endpoint = site.Endpoint;
        _site = new AwsCallSite("S3", "s3", site.Endpoint, site.Region, "the application's IAmazonS3", Bucket);
        _client = "the application's IAmazonS3: " + site.Choice;
    }

    internal S3PayloadStore(S3PayloadStoreOptions options, AwsTransportOptions transport, AwsSettings settings, Func<string, string?> environment, HttpMessageHandler? handler)
    {
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(transport);
        Bucket = CheckBucket(options.Bucket);

        // The S3 endpoint, most specific first: this store's ServiceUrl, AWS_ENDPOINT_URL_S3, the transport's ServiceUrl,
        // the application's ServiceURL, AWS_ENDPOINT_URL, then the region's own (AWS_IGNORE_CONFIGURED_ENDPOINT_URLS=true
        // leaves out the variables).
        bool ignoreEnvironment = string.Equals(environment("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS"), "true", StringComparison.OrdinalIgnoreCase);
        string? s3Variable = ignoreEnvironment ? null : environment("AWS_ENDPOINT_URL_S3");
        (Uri endpoint, string endpointSource) = options.ServiceUrl is { } own
            ? AwsSettings.ResolveEndpoint("s3", own, "S3PayloadStoreOptions.ServiceUrl", null, null, null, settings.Region)
            : !string.IsNullOrEmpty(s3Variable)
                ? AwsSettings.ResolveEndpoint("s3", null, string.Empty, null, (s3Variable, "AWS_ENDPOINT_URL_S3"), null, settings.Region)
                : AwsSettings.ResolveEndpoint("s3", transport.ServiceUrl, "ServiceUrl", settings.Application, null, ignoreEnvironment ? null : (environment("AWS_ENDPOINT_URL"), "AWS_ENDPOINT_URL"), settings.Region);
        bool custom = endpointSource != AwsSettings.RegionEndpointSource;

        var config = new AmazonS3Config
        {
            RegionEndpoint = settings.Region,
            ForcePathStyle = options.ForcePathStyle ?? custom, // the path on a local S3, which serves no bucket host names
            RetryMode = RequestRetryMode.Standard,
            MaxErrorRetry = Math.Max(0, transport.MaxAttempts - 1),
            Timeout = transport.AttemptTimeout,
            RequestChecksumCalculation = RequestChecksumCalculation.WHEN_REQUIRED, // a plain signed body: no aws-chunked trailer
            ResponseChecksumValidation = ResponseChecksumValidation.WHEN_REQUIRED,
        };
        if (custom)
        {
            config.ServiceURL = endpoint.AbsoluteUri;
            config.AuthenticationRegion = settings.Region.SystemName;
        }

        if (handler is not null)
        {
            config.HttpClientFactory = new OverHandler(handler);
        }

        _s3 = new AmazonS3Client(settings.Credentials, config);
        _ownsClient = true;
        _prefix = options.KeyPrefix;
        _kms = Kms(options);
        _readTimeout = transport.AttemptTimeout;
        Endpoint = endpoint;
        _site = new AwsCallSite("S3", "s3", endpoint, settings.Region.SystemName, settings.CredentialSource, Bucket);
        _client = $"the store's own client, its endpoint from {endpointSource}";
    }

    /// <inheritdoc />
    public string Bucket { get; }

    /// <summary>
    /// Gets the S3 endpoint the store calls: its own client's (its <see cref="S3PayloadStoreOptions.ServiceUrl"/>,
    /// <c>AWS_ENDPOINT_URL_S3</c>, the transport's <c>ServiceUrl</c>, the application's <c>ServiceURL</c> (the <c>AWS</c>
    /// section), <c>AWS_ENDPOINT_URL</c>, or the region's, in that order), or an application client's, as the SDK
    /// chooses it from that client's configuration.
    /// </summary>
    public Uri Endpoint { get; }

    /// <inheritdoc />
    /// <remarks>The bucket, the endpoint, and what chose it (for the bus's startup line).</remarks>
    public string Description => $"the S3 bucket '{Bucket}' at {Endpoint.GetLeftPart(UriPartial.Authority)} ({_client})";

    /// <inheritdoc />
    public async Task<PayloadLocation> PutAsync(ReadOnlyMemory<byte> payload, CancellationToken cancellationToken = default)
    {
        var location = new PayloadLocation(Bucket, _prefix + Guid.NewGuid().ToString("D"));
        CheckKey(location, "PutObject");
        using var body = new ReadOnlyMemoryStream(payload);
        var request = new PutObjectRequest
        {
            BucketName = location.Bucket,
            Key = location.Key,
            InputStream = body,
            AutoCloseStream = false,
            ContentType = "application/octet-stream",
            UseChunkEncoding = false,
        };
        if (_kms is not null)
        {
            request.ServerSideEncryptionMethod = ServerSideEncryptionMethod.AWSKMS;
            if (_kms.Length > 0)
            {
                request.ServerSideEncryptionKeyManagementServiceKeyId = _kms;
            }
        }

        try
        {
            await _s3.PutObjectAsync(request, cancellationToken).ConfigureAwait(false);
        }
        catch (Exception e) when (Failure(e, "PutObject", location, cancellationToken) is { } failure)
        {
            throw failure;
        }

        return location;
    }

    /// <inheritdoc />
    public async Task<ReadOnlyMemory<byte>> GetAsync(PayloadLocation location, long maxLength, CancellationToken cancellationToken = default)
    {
        CheckLocation(location, "GetObject");
        GetObjectResponse response;
        try
        {
            response = await _s3.GetObjectAsync(new GetObjectRequest { BucketName = location.Bucket, Key = location.Key }, cancellationToken).ConfigureAwait(false);
        }
        catch (Exception e) when (Failure(e, "GetObject", location, cancellationToken) is { } failure)
        {
            throw failure;
        }

        using (response)
        {
            long length = response.ContentLength;
            if (length > maxLength)
            {
                throw new MessageTransportException($"S3 GetObject of {location}: the payload is {length} bytes, over the {maxLength} a reader takes (PayloadOffloadOptions.MaxPayloadSize); it was not read.") { ErrorCode = "PayloadTooLarge", FailureKind = TransportFailureKind.Refused };
            }

            using var deadline = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
            deadline.CancelAfter(_readTimeout);
            try
            {
                return await ReadAsync(response.ResponseStream, location, length, maxLength, deadline.Token).ConfigureAwait(false);
            }
            catch (Exception e) when (e is IOException or HttpRequestException or AmazonClientException)
            {
                throw new MessageTransportException($"S3 GetObject of {location}: the download broke off ({e.Message}).", e) { ErrorCode = "IncompleteBody", FailureKind = TransportFailureKind.Transient };
            }
            catch (OperationCanceledException e) when (!cancellationToken.IsCancellationRequested)
            {
                throw new MessageTransportException($"S3 GetObject of {location}: the download did not end within {_readTimeout}.", e) { ErrorCode = "RequestTimeout", FailureKind = TransportFailureKind.Transient };
            }
        }
    }

    /// <inheritdoc />
    public async Task DeleteAsync(PayloadLocation location, CancellationToken cancellationToken = default)
    {
        CheckLocation(location, "DeleteObject");
        try
        {
            await _s3.DeleteObjectAsync(new DeleteObjectRequest { BucketName = location.Bucket, Key = location.Key }, cancellationToken).ConfigureAwait(false);
        }
        catch (Exception e) when (Failure(e, "DeleteObject", location, cancellationToken) is { } failure)
        {
            throw failure;
        }
    }

    /// <summary>Releases the client the store built itself (an application's client stays the application's).</summary>
    public void Dispose()
    {
        if (_ownsClient)
        {
            _s3.Dispose();
        }
    }

    private static string? Kms(S3PayloadStoreOptions options) => options.KmsKeyId ?? (options.UseKms ? string.Empty : null);

    private static async Task<ReadOnlyMemory<byte>> ReadAsync(Stream body, PayloadLocation location, long length, long maxLength, CancellationToken cancellationToken)
    {
        if (length >= 0)
        {
            byte[] payload = new byte[length]; // the one copy of the payload
            int read = 0;
            while (read < payload.Length)
            {
                int n = await body.ReadAsync(payload.AsMemory(read), cancellationToken).ConfigureAwait(false);
                if (n == 0)
                {
                    throw new MessageTransportException($"S3 GetObject of {location}: the download ended after {read} of {length} bytes.") { ErrorCode = "IncompleteBody", FailureKind = TransportFailureKind.Transient };
                }

                read += n;
            }

            return payload;
        }

        using var unknown = new MemoryStream();
        byte[] chunk = new byte[81920];
        int got;
        while ((got = await body.ReadAsync(chunk, cancellationToken).ConfigureAwait(false)) > 0)
        {
            if (unknown.Length + got > maxLength)
            {
                throw new MessageTransportException($"S3 GetObject of {location}: the payload is over the {maxLength} bytes a reader takes (PayloadOffloadOptions.MaxPayloadSize).") { ErrorCode = "PayloadTooLarge", FailureKind = TransportFailureKind.Refused };
            }

            unknown.Write(chunk, 0, got);
        }

        return unknown.ToArray();
    }

    /// <summary>
    /// The SDK's failure of a call as a <see cref="MessageTransportException"/>: S3's code and request id, whether it is
    /// transient or persistent, and what to check; <c>null</c> for the caller's own cancellation (it passes as it is).
    /// </summary>
    private MessageTransportException? Failure(Exception e, string operation, PayloadLocation location, CancellationToken cancellationToken)
    {
        if (e is OperationCanceledException && cancellationToken.IsCancellationRequested)
        {
            return null;
        }

        SdkFailure failure = SdkFailure.Of(e, static status => status switch { 404 => "NoSuchKey", 403 => "AccessDenied", _ => null });
        string? hint = failure.Kind != SdkFailureKind.Service ? null : failure.Code switch
        {
            "NoSuchBucket" => $"Check the bucket's name and region (S3PayloadStoreOptions.Bucket, signing region {_site.Region}).",
            "NoSuchKey" => "The payload is gone: deleted by another consumer (DeleteAfterHandling with fan-out), or expired by the bucket's lifecycle rule before its message was handled.",
            _ => AwsErrorHints.For(failure.Code, _site with { Resource = $"the objects of the bucket '{location.Bucket}'" }, operation),
        };

        // A bucket that is not there is the configuration's (persistent); a key that is not there is one message's.
        return failure.ToTransportException(e, $"S3 {operation} of {location}", _site, _client, hint, static code => code is "NoSuchBucket");
    }

    /// <summary>The store's own client over a given handler (tests put a recording endpoint there).</summary>
    private sealed class OverHandler(HttpMessageHandler handler) : HttpClientFactory
    {
        public override HttpClient CreateHttpClient(IClientConfig clientConfig) => new(handler, disposeHandler: false);

        public override bool UseSDKHttpClientCaching(IClientConfig clientConfig) => false;

        public override bool DisposeHttpClientsAfterUse(IClientConfig clientConfig) => true;
    }

    /// <summary>A read-only stream over memory, for an upload without a copy.</summary>
    private sealed class ReadOnlyMemoryStream(ReadOnlyMemory<byte> memory) : Stream
    {
        private int _position;

        public override bool CanRead => true;

        public override bool CanSeek => true;

        public override bool CanWrite => false;

        public override long Length => memory.Length;

        public override long Position
        {
            get => _position;
            set => _position = (int)Math.Clamp(value, 0, memory.Length);
        }

        public override int Read(byte[] buffer, int offset, int count) => Read(buffer.AsSpan(offset, count));

        public override int Read(Span<byte> buffer)
        {
            int n = Math.Min(buffer.Length, memory.Length - _position);
            memory.Span.Slice(_position, n).CopyTo(buffer);
            _position += n;
            return n;
        }

        public override ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken = default) => new(Read(buffer.Span));

        public override Task<int> ReadAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken) => Task.FromResult(Read(buffer, offset, count));

        public override long Seek(long offset, SeekOrigin origin) => Position = origin switch
        {
            SeekOrigin.Begin => offset,
            SeekOrigin.Current => _position + offset,
            _ => memory.Length + offset,
        };

        public override void Flush()
        {
        }

        public override void SetLength(long value) => throw new NotSupportedException();

        public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();
    }
}
