using System;
using System.Buffers;
using System.Buffers.Text;
using System.Globalization;
using System.Net.Http;
using System.Security.Cryptography;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using Amazon.Runtime;

namespace Missive.Aws.Protocol;

/// <summary>
/// Signs requests with AWS Signature Version 4 (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-create-signed-request.html)
/// over the body bytes the caller already holds, for one region and service.
/// </summary>
/// <remarks>
/// <list type="bullet">
/// <item>Signed headers: <c>content-type</c> (when there is a body), <c>host</c>, <c>x-amz-date</c>,
/// <c>x-amz-security-token</c> (temporary credentials), <c>x-amz-target</c> (JSON protocols), in that (sorted) order.</item>
/// <item>The signing key (four HMACs) is derived once per day and secret key, and kept; the canonical request is built in
/// a pooled buffer and hashed there, so a request costs its two header values and nothing else.</item>
/// <item>The clock may be corrected (<see cref="CorrectClock"/>) when a service refuses a request as signed at the
/// wrong time: every later request is signed with the service's time, as the AWS SDKs do.</item>
/// </list>
/// </remarks>
internal sealed class SigV4Signer
{
    private const string Algorithm = "AWS4-HMAC-SHA256";

    private readonly AWSCredentials _credentials;
    private readonly string _region;
    private readonly string _service;
    private readonly TimeProvider _clock;
    private readonly DateTime? _fixedTime;
    private SigningKey? _key;
    private long _offsetTicks;

    /// <param name="credentials">Where credentials come from (refreshed as their provider says).</param>
    /// <param name="region">The region of the credential scope.</param>
    /// <param name="service">The signing name of the service (the service part of the scope).</param>
    /// <param name="clock">The clock requests are signed with.</param>
    /// <param name="fixedTime">A fixed signing time (for the published test vectors), or <c>null</c> for the clock.</param>
    public SigV4Signer(AWSCredentials credentials, string region, string service, TimeProvider clock, DateTime? fixedTime = null)
    {
        _credentials = credentials;
        _region = region;
        _service = service;
        _clock = clock;
        _fixedTime = fixedTime;
    }

    /// <summary>Gets how far the service's clock is ahead of this host's, as last corrected (zero until a correction).</summary>
    public TimeSpan ClockOffset => TimeSpan.FromTicks(Interlocked.Read(ref _offsetTicks));

    /// <summary>Gets the time requests are signed with now.</summary>
    public DateTime Now => _fixedTime ?? _clock.GetUtcNow().UtcDateTime + ClockOffset;

    /// <summary>
    /// Takes the service's time from an answer that refused a request for its signing time. Returns whether the
    /// offset changed by more than a minute (then a request signed again will carry the service's time).
    /// </summary>
    public bool CorrectClock(DateTimeOffset serviceTime)
    {
        TimeSpan offset = serviceTime.UtcDateTime - _clock.GetUtcNow().UtcDateTime;
        if ((offset - ClockOffset).Duration() < TimeSpan.FromMinutes(1))
        {
            return false;
        }

        Interlocked.Exchange(ref _offsetTicks, offset.Ticks);
        return true;
    }

    /// <summary>Adds <c>Host</c>, <c>X-Amz-Date</c>, <c>X-Amz-Security-Token</c> and <c>Authorization</c> to a request whose body is <paramref name="body"/>.</summary>
    public async ValueTask SignAsync(HttpRequestMessage request, ReadOnlyMemory<byte> body, CancellationToken cancellationToken)
    {
        ImmutableCredentials credentials;
        try
        {
            credentials = await _credentials.GetCredentialsAsync().WaitAsync(cancellationToken).ConfigureAwait(false);
        }
        catch (Exception e) when (e is not (OperationCanceledException or OutOfMemoryException))
        {
            // The credentials were there when the host started: a provider that fails now failed to refresh (the instance
            // metadata service, SSO or STS out of reach), which a later attempt may get past.
            throw AwsServiceFailure.CredentialsUnavailable(e);
        }

        Sign(request, body.Span, credentials, Now);
    }

    internal void Sign(HttpRequestMessage request, ReadOnlySpan<byte> body, ImmutableCredentials credentials, DateTime now)
    {
        Uri uri = request.RequestUri ?? throw new InvalidOperationException("The request has no URI.");
        string host = uri.IsDefaultPort ? uri.IdnHost : uri.IdnHost + ":" + uri.Port.ToString(CultureInfo.InvariantCulture);
        string? contentType, target;
        if (request.Content is AwsRequestContent own)
        {
            contentType = own.ContentTypeText; // made once per service, not per request
            target = own.Target;
        }
        else
        {
            contentType = request.Content?.Headers.ContentType?.ToString();
            target = request.Headers.TryGetValues("X-Amz-Target", out var targets) ? string.Join(",", targets) : null;
        }

        string? token = credentials.UseToken ? credentials.Token : null;

        Span<byte> amzDate = stackalloc byte[16]; // yyyyMMddTHHmmssZ
        WriteAmzDate(now, amzDate);
        Span<byte> payloadHash = stackalloc byte[64];
        Span<byte> digest = stackalloc byte[32];
        SHA256.HashData(body, digest);
        Hex(digest, payloadHash);

        ReadOnlySpan<byte> signedHeaders = SignedHeaders(contentType is not null, token is not null, target is not null);
        // Worst case: three UTF-8 bytes per header character, nine per path or query character once encoded again.
        byte[] rented = ArrayPool<byte>.Shared.Rent(512 + request.Method.Method.Length + (3 * (host.Length + (contentType?.Length ?? 0) + (target?.Length ?? 0) + (token?.Length ?? 0))) + (9 * (uri.AbsolutePath.Length + uri.Query.Length)));
        try
        {
            var canonical = new Appender(rented);
            canonical.Append(request.Method.Method);
            canonical.Append('\n');
            canonical.AppendCanonicalPath(uri.AbsolutePath);
            canonical.Append('\n');
            canonical.AppendCanonicalQuery(uri.Query);
            canonical.Append('\n');
            if (contentType is not null)
            {
                canonical.AppendHeader("content-type:"u8, contentType);
            }

            canonical.AppendHeader("host:"u8, host);
            canonical.Append("x-amz-date:"u8);
            canonical.Append(amzDate);
            canonical.Append('\n');
            if (token is not null)
            {
                canonical.AppendHeader("x-amz-security-token:"u8, token);
            }

            if (target is not null)
            {
                canonical.AppendHeader("x-amz-target:"u8, target);
            }

            canonical.Append('\n');
            canonical.Append(signedHeaders);
            canonical.Append('\n');
            canonical.Append(payloadHash);
            SHA256.HashData(canonical.Written, digest);

            // The string to sign, in the same buffer: algorithm, time, scope, hash of the canonical request.
            var toSign = new Appender(rented);
            toSign.Append(Algorithm);
            toSign.Append('\n');
            toSign.Append(amzDate);
            toSign.Append('\n');
            int scopeStart = toSign.Length;
            toSign.Append(amzDate[..8]);
            toSign.Append('/');
            toSign.Append(_region);
            toSign.Append('/');
            toSign.Append(_service);
            toSign.Append("/aws4_request"u8);
            int scopeEnd = toSign.Length;
            toSign.Append('\n');
            Span<byte> canonicalHash = stackalloc byte[64];
            Hex(digest, canonicalHash);
            toSign.Append(canonicalHash);

            byte[] key = KeyFor(credentials.SecretKey, amzDate[..8]);
            HMACSHA256.HashData(key, toSign.Written, digest);
            Span<byte> signature = stackalloc byte[64];
            Hex(digest, signature);

            string authorization = Authorization(credentials.AccessKey, rented.AsSpan(scopeStart, scopeEnd - scopeStart), signedHeaders, signature);
            request.Headers.Host = host;
            request.Headers.Remove("X-Amz-Date");
            request.Headers.TryAddWithoutValidation("X-Amz-Date", Encoding.ASCII.GetString(amzDate));
            request.Headers.Remove("X-Amz-Security-Token");
            if (token is not null)
            {
                request.Headers.TryAddWithoutValidation("X-Amz-Security-Token", token);
            }

            request.Headers.Remove("Authorization");
            request.Headers.TryAddWithoutValidation("Authorization", authorization);
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(rented, clearArray: true); // it held the session token
        }
    }

    private static ReadOnlySpan<byte> SignedHeaders(bool content, bool token, bool target) => (content, token, target) switch
    {
        (true, true, true) => "content-type;host;x-amz-date;x-amz-security-token;x-amz-target"u8,
        (true, true, false) => "content-type;host;x-amz-date;x-amz-security-token"u8,
        (true, false, true) => "content-type;host;x-amz-date;x-amz-target"u8,
        (true, false, false) => "content-type;host;x-amz-date"u8,
        (false, true, true) => "host;x-amz-date;x-amz-security-token;x-amz-target"u8,
        (false, true, false) => "host;x-amz-date;x-amz-security-token"u8,
        (false, false, true) => "host;x-amz-date;x-amz-target"u8,
        (false, false, false) => "host;x-amz-date"u8,
    };

    private static string Authorization(string accessKey, ReadOnlySpan<byte> scope, ReadOnlySpan<byte> signedHeaders, ReadOnlySpan<byte> signature)
    {
        const string credential = " Credential=", signed = ", SignedHeaders=", signatureName = ", Signature=";
        int length = Algorithm.Length + credential.Length + accessKey.Length + 1 + scope.Length + signed.Length + signedHeaders.Length + signatureName.Length + signature.Length;
        Span<char> text = length <= 512 ? stackalloc char[length] : new char[length];
        int at = 0;
        Append(text, ref at, Algorithm);
        Append(text, ref at, credential);
        Append(text, ref at, accessKey);
        text[at++] = '/';
        at += Encoding.ASCII.GetChars(scope, text[at..]);
        Append(text, ref at, signed);
        at += Encoding.ASCII.GetChars(signedHeaders, text[at..]);
        Append(text, ref at, signatureName);
        at += Encoding.ASCII.GetChars(signature, text[at..]);
        return new string(text[..at]); // the header's one string
    }

    private static void Append(Span<char> text, ref int at, string value)
    {
        value.CopyTo(text[at..]);
        at += value.Length;
    }

    /// <summary>The signing key of a day: HMAC chains over the date, region, service and <c>aws4_request</c>, kept until the day or the secret changes.</summary>
    private byte[] KeyFor(string secretKey, ReadOnlySpan<byte> date)
    {
        SigningKey? cached = Volatile.Read(ref _key);
        if (cached is not null && ReferenceEquals(cached.Secret, secretKey) && date.SequenceEqual(cached.Date))
        {
            return cached.Key;
        }

        byte[] key = Encoding.UTF8.GetBytes("AWS4" + secretKey);
        key = HMACSHA256.HashData(key, date);
        key = HMACSHA256.HashData(key, Encoding.UTF8.GetBytes(_region));
        key = HMACSHA256.HashData(key, Encoding.UTF8.GetBytes(_service));
        key = HMACSHA256.HashData(key, "aws4_request"u8);
        Volatile.Write(ref _key, new SigningKey(secretKey, date.ToArray(), key));
        return key;
    }

    private static void WriteAmzDate(DateTime now, Span<byte> destination)
    {
        Utf8Formatter.TryFormat(now.Year, destination[..4], out _, new StandardFormat('D', 4));
        Utf8Formatter.TryFormat(now.Month, destination[4..6], out _, new StandardFormat('D', 2));
        Utf8Formatter.TryFormat(now.Day, destination[6..8], out _, new StandardFormat('D', 2));
        destination[8] = (byte)'T';
        Utf8Formatter.TryFormat(now.Hour, destination[9..11], out _, new StandardFormat('D', 2));
        Utf8Formatter.TryFormat(now.Minute, destination[11..13], out _, new StandardFormat('D', 2));
        Utf8Formatter.TryFormat(now.Second, destination[13..15], out _, new StandardFormat('D', 2));
        destination[15] = (byte)'Z';
    }

    private static void Hex(ReadOnlySpan<byte> bytes, Span<byte> destination)
    {
        ReadOnlySpan<byte> digits = "0123456789abcdef"u8;
        for (int i = 0; i < bytes.Length; i++)
        {
            destination[2 * i] = digits[bytes[i] >> 4];
            destination[(2 * i) + 1] = digits[bytes[i] & 0xF];
        }
    }

    private sealed record SigningKey(string Secret, byte[] Date, byte[] Key);

    /// <summary>Appends ASCII and UTF-8 text to a buffer sized by the caller for the worst case.</summary>
    private ref struct Appender(byte[] buffer)
    {
        private readonly Span<byte> _buffer = buffer;

        public int Length { get; private set; }

        public readonly ReadOnlySpan<byte> Written => _buffer[..Length];

        public void Append(char ascii) => _buffer[Length++] = (byte)ascii;

        public void Append(scoped ReadOnlySpan<byte> bytes)
        {
            bytes.CopyTo(_buffer[Length..]);
            Length += bytes.Length;
        }

        public void Append(string text) => Length += Encoding.UTF8.GetBytes(text, _buffer[Length..]);

        /// <summary>A canonical header line: the lower-case name with its colon, the value trimmed with inner runs of spaces made one, a newline.</summary>
        public void AppendHeader(scoped ReadOnlySpan<byte> nameAndColon, string value)
        {
            Append(nameAndColon);
            ReadOnlySpan<char> trimmed = value.AsSpan().Trim();
            bool space = false;
            foreach (Rune r in trimmed.EnumerateRunes()) // by code point: a pair of surrogates is one character of four bytes
            {
                if (r.Value == ' ')
                {
                    if (!space)
                    {
                        Append(' ');
                    }

                    space = true;
                    continue;
                }

                space = false;
                Length += r.EncodeToUtf8(_buffer[Length..]);
            }

            Append('\n');
        }

        /// <summary>The canonical URI: the path with every segment URI-encoded once more (services other than S3 encode twice), <c>/</c> when empty.</summary>
        public void AppendCanonicalPath(string absolutePath)
        {
            if (absolutePath.Length == 0)
            {
                Append('/');
                return;
            }

            AppendUriEncoded(absolutePath, keepSlash: true);
        }

        /// <summary>The canonical query string: parameters sorted by name, names and values URI-encoded (the services here are POSTed with none).</summary>
        public void AppendCanonicalQuery(string query)
        {
            if (query.Length <= 1)
            {
                return;
            }

            string[] pairs = query[1..].Split('&');
            Array.Sort(pairs, StringComparer.Ordinal);
            for (int i = 0; i < pairs.Length; i++)
            {
                if (i > 0)
                {
                    Append('&');
                }

                string pair = pairs[i];
                int equals = pair.IndexOf('=', StringComparison.Ordinal);
                AppendUriEncoded(Uri.UnescapeDataString(equals < 0 ? pair : pair[..equals]), keepSlash: false);
                Append('=');
                if (equals >= 0)
                {
                    AppendUriEncoded(Uri.UnescapeDataString(pair[(equals + 1)..]), keepSlash: false);
                }
            }
        }

        /// <summary>
        /// <paramref name="text"/> URI-encoded as SigV4 says: unreserved characters as they are, every other code point
        /// as the percent-encoded bytes of its UTF-8 (a character outside the Basic Multilingual Plane, a surrogate pair
        /// in .NET, is four bytes, not two replacement characters).
        /// </summary>
        private void AppendUriEncoded(string text, bool keepSlash)
        {
            Span<byte> utf8 = stackalloc byte[4];
            ReadOnlySpan<byte> digits = "0123456789ABCDEF"u8;
            foreach (Rune r in text.EnumerateRunes())
            {
                int c = r.Value;
                if (c is (>= 'A' and <= 'Z') or (>= 'a' and <= 'z') or (>= '0' and <= '9') or '-' or '_' or '.' or '~' || (keepSlash && c == '/'))
                {
                    Append((char)c);
                    continue;
                }

                int count = r.EncodeToUtf8(utf8);
                for (int i = 0; i < count; i++)
                {
                    Append('%');
                    _buffer[Length++] = digits[utf8[i] >> 4];
                    _buffer[Length++] = digits[utf8[i] & 0xF];
                }
            }
        }
    }
}
