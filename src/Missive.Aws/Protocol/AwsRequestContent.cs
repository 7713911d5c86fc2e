using System;
using System.IO;
using System.Net;
using System.Net.Http;
using System.Net.Http.Headers;
using System.Threading;
using System.Threading.Tasks;

namespace Missive.Aws.Protocol;

/// <summary>
/// A request body the transport wrote into a buffer it owns: sent as it lies, without a copy, and hashed where it lies
/// by <see cref="SigV4Handler"/>. The owner keeps the buffer alive until the call (all its attempts) is over.
/// </summary>
internal sealed class AwsRequestContent : HttpContent
{
    public AwsRequestContent(ReadOnlyMemory<byte> body, AwsContentType contentType, string? target)
    {
        Body = body;
        Headers.ContentType = contentType.Header;
        ContentTypeText = contentType.Text;
        Target = target;
    }

    public ReadOnlyMemory<byte> Body { get; }

    /// <summary>Gets the content type as it is signed: the text of the header, computed once per service, not per request.</summary>
    public string ContentTypeText { get; }

    /// <summary>Gets the request's <c>X-Amz-Target</c> (JSON protocols), or <c>null</c>: the signer reads it here rather than parsing the header back.</summary>
    public string? Target { get; }

    protected override Task SerializeToStreamAsync(Stream stream, TransportContext? context)
        => stream.WriteAsync(Body).AsTask();

    protected override Task SerializeToStreamAsync(Stream stream, TransportContext? context, CancellationToken cancellationToken)
        => stream.WriteAsync(Body, cancellationToken).AsTask();

    protected override void SerializeToStream(Stream stream, TransportContext? context, CancellationToken cancellationToken)
        => stream.Write(Body.Span);

    protected override bool TryComputeLength(out long length)
    {
        length = Body.Length;
        return true;
    }

    protected override Task<Stream> CreateContentReadStreamAsync() => Task.FromResult<Stream>(new MemoryStream(Body.ToArray(), writable: false));
}
