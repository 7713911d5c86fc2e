using System;
using System.Buffers;
using System.IO;
using System.Net.Http;
using System.Threading;
using System.Threading.Tasks;

namespace Missive.Aws.Protocol;

/// <summary>
/// Reads an answer's body into a pooled array, never more than the service can send for the call: a larger body
/// (declared by its <c>Content-Length</c>, or found while reading) is refused before it is all read, so that no
/// endpoint can make the process allocate what it likes.
/// </summary>
/// <remarks>
/// The limits, from what the services document:
/// <list type="bullet">
/// <item>A <c>ReceiveMessage</c> answer: per message asked for, a body and attributes of at most 1 MiB (SQS's message
/// size limit), counted six times over because any JSON writer may spell one character as a six-byte <c>\uXXXX</c>
/// escape, plus 64 KiB for the ids, receipt handle, digests and system attributes; plus 64 KiB for the rest.</item>
/// <item>Any other successful answer: 1 MiB (the largest, a batch answer of ten entries, is a few KiB).</item>
/// <item>An error answer: 64 KiB (AWS error answers are a few hundred bytes).</item>
/// </list>
/// </remarks>
internal static class AwsAnswer
{
    /// <summary>The largest successful answer taken, other than a receive's.</summary>
    public const int DefaultLimit = 1024 * 1024;

    /// <summary>The largest error answer read.</summary>
    public const int ErrorLimit = 64 * 1024;

    /// <summary>SQS's largest message (body and attributes), in bytes.</summary>
    private const int MaxMessageSize = 1024 * 1024;

    /// <summary>What one message of a receive may take beyond its escaped body and attributes.</summary>
    private const int PerMessageOverhead = 64 * 1024;

    /// <summary>The largest <c>ReceiveMessage</c> answer for <paramref name="maxMessages"/> messages.</summary>
    public static int ReceiveLimit(int maxMessages) => (Math.Clamp(maxMessages, 1, 10) * ((6 * MaxMessageSize) + PerMessageOverhead)) + PerMessageOverhead;

    /// <summary>
    /// Reads the body of <paramref name="response"/>, at most <paramref name="limit"/> bytes, into a pooled array
    /// (give it back with <see cref="Return"/>). Returns <c>null</c> when the body is larger: it is not read further.
    /// </summary>
    public static async ValueTask<(byte[] Buffer, int Length)?> ReadAsync(HttpResponseMessage response, int limit, CancellationToken cancellationToken)
    {
        long? declared = response.Content.Headers.ContentLength;
        if (declared > limit)
        {
            return null;
        }

        Stream stream = await response.Content.ReadAsStreamAsync(cancellationToken).ConfigureAwait(false);
        await using (stream.ConfigureAwait(false))
        {
            // One byte past the limit tells a body that is too long; a declared length is trusted for the first size only.
            byte[] buffer = ArrayPool<byte>.Shared.Rent((int)Math.Min(limit + 1L, Math.Max(declared ?? 4096, 1) + 1));
            int length = 0;
            try
            {
                while (true)
                {
                    if (length == buffer.Length)
                    {
                        if (length > limit)
                        {
                            Return(buffer, length);
                            return null;
                        }

                        byte[] larger = ArrayPool<byte>.Shared.Rent((int)Math.Min(limit + 1L, buffer.Length * 2L));
                        buffer.AsSpan(0, length).CopyTo(larger);
                        Return(buffer, length);
                        buffer = larger;
                    }

                    int read = await stream.ReadAsync(buffer.AsMemory(length), cancellationToken).ConfigureAwait(false);
                    if (read == 0)
                    {
                        break;
                    }

                    length += read;
                }

                if (length > limit)
                {
                    Return(buffer, length);
                    return null;
                }

                return (buffer, length);
            }
            catch
            {
                Return(buffer, length);
                throw;
            }
        }
    }

    /// <summary>Clears what was read (message bodies) and gives the array back.</summary>
    public static void Return(byte[] buffer, int length)
    {
        buffer.AsSpan(0, length).Clear();
        ArrayPool<byte>.Shared.Return(buffer);
    }
}
