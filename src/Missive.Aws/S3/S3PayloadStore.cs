using System;
using System.Globalization;
using System.IO;
using System.Net;
using System.Net.Http;
using System.Security.Cryptography;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using Amazon.Runtime;
using Missive.Offload;

namespace Missive.Aws;

/// <summary>Keeps offloaded payloads in Amazon S3 (<c>PutObject</c>, <c>GetObject</c>, <c>DeleteObject</c>) over its own signed <see cref="HttpClient"/>.</summary>
/// <remarks>
/// <list type="bullet">
/// <item>Every request is signed with Signature Version 4 for <c>s3</c>, the payload's SHA-256 in <c>x-amz-content-sha256</c>.</item>
/// <item>Keys are lowercase UUIDs after <see cref="S3PayloadStoreOptions.KeyPrefix"/>, as AWS's extended clients make them.</item>
/// <item>A download longer than the reader's limit is refused from its <c>Content-Length</c>, before it is read; one
/// that ends early is an error (<c>IncompleteBody</c>), never a short payload.</item>
/// <item>Each attempt has the transport's <c>AttemptTimeout</c>; throttling, 5xx answers and lost connections are tried
/// again up to <c>MaxAttempts</c>. Errors carry S3's code (<c>NoSuchKey</c>, <c>AccessDenied</c>, …), never the payload.</item>
/// </list>
/// </remarks>
public sealed class S3PayloadStore : IPayloadStore, IDisposable
{
    private static readonly string EmptyHash = Convert.ToHexStringLower(SHA256.HashData([]));

    private readonly HttpClient _http;
    private readonly AWSCredentials _credentials;
    private readonly string _region;
    private readonly Uri _endpoint;
    private readonly bool _pathStyle;
    private readonly string? _prefix;
    private readonly bool _kms;
    private readonly string? _kmsKeyId;
    private readonly TimeProvider _clock;
    private readonly TimeSpan _attemptTimeout;
    private readonly int _maxAttempts;

    /// <summary>Creates a store with its own HTTP client, with the region, credentials and endpoint settings of <paramref name="transport"/>.</summary>
    /// <param name="options">The bucket and its settings. Must not be null.</param>
    /// <param name="transport">The Missive.Aws options (region, credentials, ServiceUrl, AttemptTimeout, MaxAttempts). Must not be null.</param>
    /// <exception cref="MessageBusConfigurationException">No bucket, or the region or credentials cannot be resolved.</exception>
    public S3PayloadStore(S3PayloadStoreOptions options, AwsTransportOptions transport)
        : this(options, transport, AwsSettings.Resolve(transport, Environment.GetEnvironmentVariable), Environment.GetEnvironmentVariable, new SocketsHttpHandler { AllowAutoRedirect = false, PooledConnectionLifetime = TimeSpan.FromMinutes(5) }, TimeProvider.System)
    {
    }

    internal S3PayloadStore(S3PayloadStoreOptions options, AwsTransportOptions transport, AwsSettings settings, Func<string, string?> environment, HttpMessageHandler handler, TimeProvider clock)
    {
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(transport);
        if (string.IsNullOrEmpty(options.Bucket))
        {
            throw new MessageBusConfigurationException("The S3 payload store has no bucket: set S3PayloadStoreOptions.Bucket.");
        }

        Bucket = options.Bucket;
        _credentials = settings.Credentials;
        _region = settings.Region.SystemName;
        bool ignoreEnvironment = string.Equals(environment("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS"), "true", StringComparison.OrdinalIgnoreCase);
        Uri? configured = options.ServiceUrl ?? transport.ServiceUrl;
        string? fromEnvironment = ignoreEnvironment ? null : environment("AWS_ENDPOINT_URL_S3") ?? environment("AWS_ENDPOINT_URL");
        _endpoint = AwsSettings.ResolveEndpoint("s3", configured, fromEnvironment, settings.Region);
        _pathStyle = options.ForcePathStyle ?? (configured is not null || !string.IsNullOrEmpty(fromEnvironment));
        _prefix = options.KeyPrefix;
        _kms = options.UseKms || options.KmsKeyId is not null;
        _kmsKeyId = options.KmsKeyId;
        _clock = clock;
        _attemptTimeout = transport.AttemptTimeout;
        _maxAttempts = Math.Max(1, transport.MaxAttempts);
        _http = new HttpClient(handler) { Timeout = Timeout.InfiniteTimeSpan };
    }

    /// <inheritdoc />
    public string Bucket { get; }

    /// <inheritdoc />
    public async Task<PayloadLocation> PutAsync(ReadOnlyMemory<byte> payload, CancellationToken cancellationToken = default)
    {
        var location = new PayloadLocation(Bucket, _prefix + Guid.NewGuid().ToString("D"));
        string hash = Convert.ToHexStringLower(SHA256.HashData(payload.Span));
        using HttpResponseMessage response = await SendAsync(HttpMethod.Put, location, payload, hash, "PutObject", cancellationToken).ConfigureAwait(false);
        return location;
    }

    /// <inheritdoc />
    public async Task<ReadOnlyMemory<byte>> GetAsync(PayloadLocation location, long maxLength, CancellationToken cancellationToken = default)
    {
        using HttpResponseMessage response = await SendAsync(HttpMethod.Get, location, ReadOnlyMemory<byte>.Empty, EmptyHash, "GetObject", cancellationToken).ConfigureAwait(false);
        long? length = response.Content.Headers.ContentLength;
        if (length > maxLength)
        {
            throw new MessageTransportException($"S3 GetObject of {location}: the payload is {length} bytes, over the {maxLength} a reader takes (PayloadOffloadOptions.MaxPayloadSize); it was not read.") { ErrorCode = "PayloadTooLarge", IsPersistent = true };
        }

        using var deadline = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        deadline.CancelAfter(_attemptTimeout);
        try
        {
            return await ReadBodyAsync(response, location, length, maxLength, deadline.Token).ConfigureAwait(false);
        }
        catch (IOException e)
        {
            throw new MessageTransportException($"S3 GetObject of {location}: the download broke off ({e.Message}).", e) { ErrorCode = "IncompleteBody", IsTransient = true };
        }
        catch (OperationCanceledException e) when (!cancellationToken.IsCancellationRequested)
        {
            throw new MessageTransportException($"S3 GetObject of {location}: the download did not end within {_attemptTimeout}.", e) { ErrorCode = "RequestTimeout", IsTransient = true };
        }
    }

    private static async Task<ReadOnlyMemory<byte>> ReadBodyAsync(HttpResponseMessage response, PayloadLocation location, long? length, long maxLength, CancellationToken cancellationToken)
    {
        Stream body = await response.Content.ReadAsStreamAsync(cancellationToken).ConfigureAwait(false);
        await using (body.ConfigureAwait(false))
        {
            if (length is { } known)
            {
                byte[] payload = new byte[known]; // the one copy of the payload
                int read = 0;
                while (read < payload.Length)
                {
                    int n = await body.ReadAsync(payload.AsMemory(read), cancellationToken).ConfigureAwait(false);
                    if (n == 0)
                    {
                        throw new MessageTransportException($"S3 GetObject of {location}: the download ended after {read} of {known} bytes.") { ErrorCode = "IncompleteBody", IsTransient = true };
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
                    throw new MessageTransportException($"S3 GetObject of {location}: the payload is over the {maxLength} bytes a reader takes (PayloadOffloadOptions.MaxPayloadSize).") { ErrorCode = "PayloadTooLarge", IsPersistent = true };
                }

                unknown.Write(chunk, 0, got);
            }

            return unknown.ToArray();
        }
    }

    /// <inheritdoc />
    public async Task DeleteAsync(PayloadLocation location, CancellationToken cancellationToken = default)
    {
        using HttpResponseMessage response = await SendAsync(HttpMethod.Delete, location, ReadOnlyMemory<byte>.Empty, EmptyHash, "DeleteObject", cancellationToken).ConfigureAwait(false);
    }

    /// <summary>Releases the HTTP client.</summary>
    public void Dispose() => _http.Dispose();

    /// <summary>Gets the URL of a location: the bucket in the path or in the host name, each key segment escaped once.</summary>
    internal Uri UrlOf(PayloadLocation location)
    {
        if (!location.HasSafeKey)
        {
            throw new MessageTransportException($"The key of {location} is not one S3 is asked for (a '.' or '..' segment, a control character, or over 1,024 bytes).") { ErrorCode = "InvalidKey", IsPersistent = true };
        }

        string key = string.Join('/', Array.ConvertAll(location.Key.Split('/'), Uri.EscapeDataString));
        string basePath = _endpoint.AbsolutePath.TrimEnd('/');
        if (_pathStyle)
        {
            return new Uri($"{_endpoint.Scheme}://{_endpoint.Authority}{basePath}/{Uri.EscapeDataString(location.Bucket)}/{key}");
        }

        return new Uri($"{_endpoint.Scheme}://{location.Bucket}.{_endpoint.Authority}{basePath}/{key}");
    }

    private async Task<HttpResponseMessage> SendAsync(HttpMethod method, PayloadLocation location, ReadOnlyMemory<byte> body, string payloadHash, string operation, CancellationToken cancellationToken)
    {
        Uri url = UrlOf(location);
        for (int attempt = 1; ; attempt++)
        {
            using var request = new HttpRequestMessage(method, url);
            if (method == HttpMethod.Put)
            {
                request.Content = new ReadOnlyMemoryContent(body);
                request.Content.Headers.ContentType = new System.Net.Http.Headers.MediaTypeHeaderValue("application/octet-stream");
                if (_kms)
                {
                    request.Headers.TryAddWithoutValidation("x-amz-server-side-encryption", "aws:kms");
                    if (_kmsKeyId is not null)
                    {
                        request.Headers.TryAddWithoutValidation("x-amz-server-side-encryption-aws-kms-key-id", _kmsKeyId);
                    }
                }
            }

            ImmutableCredentials credentials = await _credentials.GetCredentialsAsync().ConfigureAwait(false);
            Sign(request, url, payloadHash, credentials, _clock.GetUtcNow().UtcDateTime);
            using var deadline = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
            deadline.CancelAfter(_attemptTimeout);
            HttpResponseMessage response;
            try
            {
                response = await _http.SendAsync(request, HttpCompletionOption.ResponseHeadersRead, deadline.Token).ConfigureAwait(false);
            }
            catch (Exception e) when (e is HttpRequestException || (e is OperationCanceledException && !cancellationToken.IsCancellationRequested))
            {
                if (attempt < _maxAttempts)
                {
                    continue;
                }

                throw new MessageTransportException($"S3 {operation} of {location} failed after {attempt} attempts: {(e is OperationCanceledException ? $"no answer within {_attemptTimeout}" : e.Message)}. Endpoint {_endpoint}, signing region {_region}.", e) { ErrorCode = e is OperationCanceledException ? "RequestTimeout" : "ConnectionFailed", IsTransient = true };
            }

            if (response.IsSuccessStatusCode)
            {
                return response;
            }

            using (response)
            {
                (string code, string message, string? requestId) = await ErrorOf(response, cancellationToken).ConfigureAwait(false);
                bool transient = (int)response.StatusCode >= 500 || code is "SlowDown" or "RequestTimeout" or "InternalError";
                if (transient && attempt < _maxAttempts)
                {
                    continue;
                }

                bool persistent = code is "NoSuchKey" or "NoSuchBucket" or "AccessDenied" or "InvalidAccessKeyId" or "SignatureDoesNotMatch" or "KMS.DisabledException" or "KMS.NotFoundException";
                throw new MessageTransportException($"S3 {operation} of {location} failed: {code} (HTTP {(int)response.StatusCode}): {message} Endpoint {_endpoint}, signing region {_region}.{Hint(code, operation)}")
                {
                    ErrorCode = code,
                    RequestId = requestId,
                    StatusCode = (int)response.StatusCode,
                    IsTransient = transient,
                    IsPersistent = persistent,
                };
            }
        }
    }

    private static string Hint(string code, string operation) => code switch
    {
        "NoSuchBucket" => " Check the bucket's name and region (S3PayloadStoreOptions.Bucket).",
        "NoSuchKey" => " The payload is gone: deleted by another consumer (DeleteAfterHandling with fan-out), or expired by the bucket's lifecycle rule before its message was handled.",
        "AccessDenied" => $" Grant the identity s3:{operation} on the bucket's objects (and kms:GenerateDataKey / kms:Decrypt on its key with SSE-KMS).",
        _ => string.Empty,
    };

    /// <summary>S3's error document (<c>&lt;Error&gt;&lt;Code&gt;…</c>), or the status when it has none (a HEAD-like answer, a proxy's).</summary>
    private static async Task<(string Code, string Message, string? RequestId)> ErrorOf(HttpResponseMessage response, CancellationToken cancellationToken)
    {
        string? requestId = response.Headers.TryGetValues("x-amz-request-id", out var ids) ? string.Join(",", ids) : null;
        try
        {
            byte[] text = await response.Content.ReadAsByteArrayAsync(cancellationToken).ConfigureAwait(false);
            if (text.Length is > 0 and < 64 * 1024)
            {
                var document = System.Xml.Linq.XDocument.Parse(Encoding.UTF8.GetString(text));
                string? code = document.Root?.Element("Code")?.Value;
                string? message = document.Root?.Element("Message")?.Value;
                if (code is not null)
                {
                    return (code, message ?? string.Empty, requestId ?? document.Root?.Element("RequestId")?.Value);
                }
            }
        }
        catch (System.Xml.XmlException)
        {
        }

        string status = response.StatusCode switch
        {
            HttpStatusCode.NotFound => "NoSuchKey",
            HttpStatusCode.Forbidden => "AccessDenied",
            _ => "HTTP" + ((int)response.StatusCode).ToString(CultureInfo.InvariantCulture),
        };
        return (status, "S3 answered without an error document.", requestId);
    }

    /// <summary>Signature Version 4 for S3: the path as sent (escaped once), the payload's hash signed and sent, every x-amz header signed.</summary>
    internal void Sign(HttpRequestMessage request, Uri url, string payloadHash, ImmutableCredentials credentials, DateTime now)
    {
        string amzDate = now.ToString("yyyyMMdd'T'HHmmss'Z'", CultureInfo.InvariantCulture);
        string date = amzDate[..8];
        string host = url.IsDefaultPort ? url.IdnHost : url.IdnHost + ":" + url.Port.ToString(CultureInfo.InvariantCulture);
        request.Headers.Host = host;
        request.Headers.Remove("x-amz-date");
        request.Headers.TryAddWithoutValidation("x-amz-date", amzDate);
        request.Headers.Remove("x-amz-content-sha256");
        request.Headers.TryAddWithoutValidation("x-amz-content-sha256", payloadHash);
        if (credentials.UseToken)
        {
            request.Headers.Remove("x-amz-security-token");
            request.Headers.TryAddWithoutValidation("x-amz-security-token", credentials.Token);
        }

        var headers = new System.Collections.Generic.SortedDictionary<string, string>(StringComparer.Ordinal) { ["host"] = host };
        foreach (var header in request.Headers)
        {
            string name = header.Key.ToLowerInvariant();
            if (name.StartsWith("x-amz-", StringComparison.Ordinal))
            {
                headers[name] = string.Join(",", header.Value).Trim();
            }
        }

        var canonical = new StringBuilder();
        canonical.Append(request.Method.Method).Append('\n');
        canonical.Append(url.AbsolutePath).Append('\n'); // S3 signs the path as sent: escaped once
        canonical.Append('\n'); // no query
        foreach ((string name, string value) in headers)
        {
            canonical.Append(name).Append(':').Append(value).Append('\n');
        }

        string signedHeaders = string.Join(";", headers.Keys);
        canonical.Append('\n').Append(signedHeaders).Append('\n').Append(payloadHash);
        string scope = $"{date}/{_region}/s3/aws4_request";
        string toSign = $"AWS4-HMAC-SHA256\n{amzDate}\n{scope}\n{Convert.ToHexStringLower(SHA256.HashData(Encoding.UTF8.GetBytes(canonical.ToString())))}";
        byte[] key = HMACSHA256.HashData(Encoding.UTF8.GetBytes("AWS4" + credentials.SecretKey), Encoding.UTF8.GetBytes(date));
        key = HMACSHA256.HashData(key, Encoding.UTF8.GetBytes(_region));
        key = HMACSHA256.HashData(key, "s3"u8);
        key = HMACSHA256.HashData(key, "aws4_request"u8);
        string signature = Convert.ToHexStringLower(HMACSHA256.HashData(key, Encoding.UTF8.GetBytes(toSign)));
        request.Headers.Remove("Authorization");
        request.Headers.TryAddWithoutValidation("Authorization", $"AWS4-HMAC-SHA256 Credential={credentials.AccessKey}/{scope}, SignedHeaders={signedHeaders}, Signature={signature}");
    }
}
