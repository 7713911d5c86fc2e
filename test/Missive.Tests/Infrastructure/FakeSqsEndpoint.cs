using System;
using System.Collections.Generic;
using System.Net;
using System.Net.Http;
using System.Net.Http.Headers;
using System.Security.Cryptography;
using System.Text;
using System.Text.Json;
using System.Threading;
using System.Threading.Tasks;

namespace Missive.Tests.Infrastructure;

/// <summary>
/// An SQS endpoint in process (AWS JSON 1.0, as SQS answers it), with no socket: every <c>ReceiveMessage</c> of a
/// backlog answers a full batch from a ring of answers prepared up front (distinct message ids and receipt handles,
/// the bodies' real MD5 digests), deletes and visibility changes are echoed as all successful, and every call is
/// counted. The same endpoint serves Missive's transport and the AWS SDK for .NET, so both pay for the same answers.
/// Shared by the tests and the benchmarks (linked there).
/// </summary>
[System.Diagnostics.CodeAnalysis.SuppressMessage("Security", "CA5351", Justification = "SQS defines its body digest as MD5.")]
public sealed class FakeSqsEndpoint : HttpMessageHandler
{
    public const string QueueUrl = "https://sqs.eu-west-1.amazonaws.com/123456789012/bench";

    private static readonly MediaTypeHeaderValue JsonType = new("application/x-amz-json-1.0");
    private static readonly byte[] Empty = "{}"u8.ToArray();
    private static readonly byte[] QueueUrlAnswer = Encoding.UTF8.GetBytes("{\"QueueUrl\":\"" + QueueUrl + "\"}");

    private readonly byte[][] _receiveAnswers;
    private readonly byte[][] _messages;
    private readonly byte[][] _batchAnswers = new byte[11][];
    private readonly int _perReceive;
    private long _backlog;
    private int _next;
    private long _receives, _emptyReceives, _received, _deleteCalls, _deleted, _visibilityCalls, _other;

    /// <param name="bodies">The message bodies, taken in turn.</param>
    /// <param name="backlog">How many full receives the queue holds; <see cref="long.MaxValue"/> for a backlog that never ends.</param>
    /// <param name="perReceive">How many messages a receive returns while the backlog lasts.</param>
    /// <param name="ring">How many distinct receive answers to prepare (their receipt handles repeat after that many receives).</param>
    public FakeSqsEndpoint(IReadOnlyList<string> bodies, long backlog = long.MaxValue, int perReceive = 10, int ring = 128)
    {
        _backlog = backlog;
        _perReceive = perReceive;
        _receiveAnswers = new byte[ring][];
        _messages = new byte[ring * perReceive][];
        int message = 0;
        for (int r = 0; r < ring; r++)
        {
            using var stream = new System.IO.MemoryStream();
            // Escaped as a JSON service writes it (a quote as \", text beyond ASCII as it is), not as .NET's default
            // encoder does (\u0022 for every quote in a body of JSON).
            using (var writer = new Utf8JsonWriter(stream, new JsonWriterOptions { Encoder = System.Text.Encodings.Web.JavaScriptEncoder.UnsafeRelaxedJsonEscaping }))
            {
                writer.WriteStartObject();
                writer.WriteStartArray("Messages");
                for (int i = 0; i < perReceive; i++, message++)
                {
                    writer.Flush();
                    long start = stream.Position;
                    string body = bodies[message % bodies.Count];
                    writer.WriteStartObject();
                    writer.WriteString("MessageId", $"{message:x8}-5f8b-4d7e-b6c2-0e3f1a7d9b24");
                    writer.WriteString("ReceiptHandle", $"AQEB{message:x8}" + new string('r', 172)); // SQS's are about 180 characters
                    writer.WriteString("MD5OfBody", Convert.ToHexStringLower(MD5.HashData(Encoding.UTF8.GetBytes(body))));
                    writer.WriteString("Body", body);
                    writer.WriteStartObject("Attributes");
                    writer.WriteString("ApproximateReceiveCount", "1");
                    writer.WriteString("SentTimestamp", "1762180029441");
                    writer.WriteString("ApproximateFirstReceiveTimestamp", "1762180029452");
                    writer.WriteEndObject();
                    writer.WriteEndObject();
                    writer.Flush();
                    _messages[message] = stream.ToArray()[(int)(start + (i > 0 ? 1 : 0))..]; // without the comma before it
                }

                writer.WriteEndArray();
                writer.WriteEndObject();
            }

            _receiveAnswers[r] = stream.ToArray();
        }

        for (int n = 0; n <= 10; n++)
        {
            var answer = new StringBuilder("{\"Successful\":[");
            for (int i = 0; i < n; i++)
            {
                answer.Append(i > 0 ? "," : string.Empty).Append("{\"Id\":\"").Append(i).Append("\"}");
            }

            _batchAnswers[n] = Encoding.UTF8.GetBytes(answer.Append("],\"Failed\":[]}").ToString());
        }
    }

    /// <summary>Gets or sets how long an empty receive waits (a long poll on an empty queue).</summary>
    public TimeSpan EmptyWait { get; set; } = TimeSpan.FromMilliseconds(20);

    public long Receives => Interlocked.Read(ref _receives);

    public long EmptyReceives => Interlocked.Read(ref _emptyReceives);

    public long Received => Interlocked.Read(ref _received);

    public long DeleteCalls => Interlocked.Read(ref _deleteCalls);

    public long Deleted => Interlocked.Read(ref _deleted);

    public long VisibilityCalls => Interlocked.Read(ref _visibilityCalls);

    public long OtherCalls => Interlocked.Read(ref _other);

    /// <summary>Requests that cost money on a backlog: receives that returned messages, deletes and visibility changes.</summary>
    public long BillableRequests => Receives - EmptyReceives + DeleteCalls + VisibilityCalls;

    protected override async Task<HttpResponseMessage> SendAsync(HttpRequestMessage request, CancellationToken cancellationToken)
    {
        string target = request.Headers.TryGetValues("X-Amz-Target", out IEnumerable<string>? values) ? string.Join(",", values) : string.Empty;
        switch (target)
        {
            case "AmazonSQS.ReceiveMessage":
                Interlocked.Increment(ref _receives);
                if (_backlog != long.MaxValue && Interlocked.Decrement(ref _backlog) < 0)
                {
                    Interlocked.Increment(ref _backlog);
                    Interlocked.Increment(ref _emptyReceives);
                    await Task.Delay(EmptyWait, cancellationToken).ConfigureAwait(false);
                    return Answer(Empty);
                }

                int asked = await MaxNumberOfMessagesAsync(request, cancellationToken).ConfigureAwait(false);
                int next = (int)((uint)Interlocked.Increment(ref _next) % (uint)_receiveAnswers.Length);
                Interlocked.Add(ref _received, Math.Min(asked, _perReceive));
                return Answer(asked >= _perReceive ? _receiveAnswers[next] : Fewer(next, asked));
            case "AmazonSQS.DeleteMessageBatch":
                Interlocked.Increment(ref _deleteCalls);
                int deleted = await EntriesAsync(request, cancellationToken).ConfigureAwait(false);
                Interlocked.Add(ref _deleted, deleted);
                return Answer(_batchAnswers[deleted]);
            case "AmazonSQS.ChangeMessageVisibilityBatch":
                Interlocked.Increment(ref _visibilityCalls);
                return Answer(_batchAnswers[await EntriesAsync(request, cancellationToken).ConfigureAwait(false)]);
            case "AmazonSQS.GetQueueUrl":
                Interlocked.Increment(ref _other);
                return Answer(QueueUrlAnswer);
            default:
                Interlocked.Increment(ref _other);
                return Answer(Empty);
        }
    }

    /// <summary>The answer of receive <paramref name="index"/> of the ring cut to its first <paramref name="count"/> messages.</summary>
    private byte[] Fewer(int index, int count)
    {
        var answer = new List<byte>(count * 1024);
        answer.AddRange("{\"Messages\":["u8.ToArray());
        for (int i = 0; i < count; i++)
        {
            if (i > 0)
            {
                answer.Add((byte)',');
            }

            answer.AddRange(_messages[(index * _perReceive) + i]);
        }

        answer.AddRange("]}"u8.ToArray());
        return answer.ToArray();
    }

    /// <summary>The <c>MaxNumberOfMessages</c> a receive asks for (1 when absent, as SQS's default).</summary>
    private static async Task<int> MaxNumberOfMessagesAsync(HttpRequestMessage request, CancellationToken cancellationToken)
    {
        byte[] body = await request.Content!.ReadAsByteArrayAsync(cancellationToken).ConfigureAwait(false);
        var reader = new Utf8JsonReader(body);
        while (reader.Read())
        {
            if (reader.TokenType == JsonTokenType.PropertyName && reader.ValueTextEquals("MaxNumberOfMessages"u8) && reader.Read())
            {
                return reader.GetInt32();
            }
        }

        return 1;
    }

    /// <summary>How many entries a batch request holds (its ids are 0 to n-1, as both clients number them here).</summary>
    private static async Task<int> EntriesAsync(HttpRequestMessage request, CancellationToken cancellationToken)
    {
        byte[] body = await request.Content!.ReadAsByteArrayAsync(cancellationToken).ConfigureAwait(false);
        int count = 0;
        for (int at = body.AsSpan().IndexOf("\"ReceiptHandle\""u8); at >= 0; count++)
        {
            int next = body.AsSpan(at + 1).IndexOf("\"ReceiptHandle\""u8);
            at = next < 0 ? -1 : at + 1 + next;
        }

        return Math.Min(count, 10);
    }

    private static HttpResponseMessage Answer(byte[] body)
    {
        var content = new ByteArrayContent(body);
        content.Headers.ContentType = JsonType;
        var response = new HttpResponseMessage(HttpStatusCode.OK) { Content = content };
        response.Headers.TryAddWithoutValidation("x-amzn-RequestId", "00000000-0000-0000-0000-000000000000");
        return response;
    }
}
