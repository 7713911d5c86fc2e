using System;
using System.Net.Http;
using System.Threading;
using System.Threading.Tasks;

namespace Missive.Aws.Protocol;

/// <summary>
/// The bottom of a service's handler chain above the socket handler: signs each request with <see cref="SigV4Signer"/>
/// just before it goes out, so that handlers added above it (through <c>IHttpClientFactory</c>) see the request
/// unsigned and cannot invalidate the signature. A body of the transport's own (<see cref="AwsRequestContent"/>) is
/// hashed where it lies; any other body is read once to be hashed.
/// </summary>
internal sealed class SigV4Handler : DelegatingHandler
{
    private readonly SigV4Signer _signer;

    public SigV4Handler(SigV4Signer signer, HttpMessageHandler inner)
        : base(inner)
    {
        _signer = signer;
    }

    protected override async Task<HttpResponseMessage> SendAsync(HttpRequestMessage request, CancellationToken cancellationToken)
    {
        ReadOnlyMemory<byte> body = request.Content switch
        {
            null => ReadOnlyMemory<byte>.Empty,
            AwsRequestContent own => own.Body,
            HttpContent other => await other.ReadAsByteArrayAsync(cancellationToken).ConfigureAwait(false),
        };
        await _signer.SignAsync(request, body, cancellationToken).ConfigureAwait(false);
        return await base.SendAsync(request, cancellationToken).ConfigureAwait(false);
    }
}
