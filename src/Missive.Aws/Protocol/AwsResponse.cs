using System;

namespace Missive.Aws.Protocol;

/// <summary>
/// A successful answer: its body in a pooled array (cleared when it goes back: an answer holds message bodies) and
/// the request id the service gave it. Dispose it once the body is read.
/// </summary>
internal sealed class AwsResponse : IDisposable
{
    private byte[]? _buffer;
    private readonly int _length;

    public AwsResponse(byte[] buffer, int length, string? requestId)
    {
        _buffer = buffer;
        _length = length;
        RequestId = requestId;
    }

    /// <summary>Gets the body (empty once disposed).</summary>
    public ReadOnlyMemory<byte> Body => _buffer is { } buffer ? buffer.AsMemory(0, _length) : ReadOnlyMemory<byte>.Empty;

    public string? RequestId { get; }

    public void Dispose()
    {
        if (_buffer is { } buffer)
        {
            _buffer = null;
            AwsAnswer.Return(buffer, _length);
        }
    }
}
