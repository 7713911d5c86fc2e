using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Net;
using System.Net.Http;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.Logging;
using Missive.Aws;
using Missive.Tests.Infrastructure;
using Missive.Transport;

namespace Missive.Tests.Aws.Unit;

/// <summary>
/// What SQS can answer that the emulators never do: one bad message among good ones, answers of any size, ids of any
/// length, text that is not UTF-8, and a refusal because this host's clock is off. One bad message costs only itself,
/// nothing is read past what the service can send, and every failure is a typed <see cref="MessageTransportException"/>.
/// </summary>
[System.Diagnostics.CodeAnalysis.SuppressMessage("Security", "CA5351", Justification = "SQS defines its digests as MD5.")]
[Collection(ProcessAllocationCollection.Name)]
public sealed class ReceiveAnswerTests
{
    private const string QueueUrl = "https://sqs.eu-west-1.amazonaws.com/123456789012/orders";
    private const string Secret = "secret-content-of-the-message";

    /// <summary>How the middle one of three messages is spoiled, and what the log must say about it.</summary>
    public static TheoryData<string, string> SpoiledMessages => new()
    {
        { "body-digest", "MD5 digest of its body" },
        { "attributes-digest", "MD5 digest of its message attributes" },
        { "body-not-utf8", "body is not UTF-8" },
        { "body-escaped-lone-surrogate", "body is not UTF-8" },
        { "attribute-not-base64", "message attributes does not parse" },
        { "attribute-not-utf8", "message attributes does not parse" },
        { "message-id-too-long", "MessageId is over 100 characters" },
        { "receipt-handle-too-long", "ReceiptHandle is over 1024 characters" },
        { "no-receipt-handle", "no ReceiptHandle" },
    };

    [Theory]
    [MemberData(nameof(SpoiledMessages))]
    public async Task OneBadMessage_IsLeftInTheQueueAndLogged_AndTheOtherMessagesOfTheReceiveAreReturned(string spoiled, string logged)
    {
        var log = new CapturingLoggerProvider();
        using var factory = new LoggerFactory([log]);
        var handler = new RecordingHandler().Then(_ => RecordingHandler.Answer(HttpStatusCode.OK, new ByteArrayContent(ThreeMessages(spoiled))));
        using AwsTransport transport = Transport(handler, factory.CreateLogger<AwsTransport>());

        IReadOnlyList<SqsMessage> received = await transport.ReceiveAsync("orders", 10, TimeSpan.Zero);

        Assert.Equal(["m-1", "m-3"], received.Select(m => m.MessageId));
        Assert.Equal([Secret + " 1", Secret + " 3"], received.Select(m => m.Body));
        string line = Assert.Single(log.Messages);
        Assert.Contains(logged, line, StringComparison.Ordinal);
        Assert.Contains(spoiled == "message-id-too-long" ? "without a readable id" : "m-2", line, StringComparison.Ordinal);
        Assert.DoesNotContain(Secret, line, StringComparison.Ordinal);
        Assert.Single(handler.Requests); // nothing released or deleted: the queue's redrive policy decides
    }

    [Fact]
    public async Task ABodyWithEscapes_IsUnescapedOnce_AndItsDigestIsTakenOverTheUnescapedBytes()
    {
        const string Body = "{\"text\":\"line one\nline \\\"two\\\" é ✉ \uD83D\uDE00\"}";
        string digest = Convert.ToHexStringLower(System.Security.Cryptography.MD5.HashData(Encoding.UTF8.GetBytes(Body)));
        string answer = "{\"Messages\":[{\"MessageId\":\"m-1\",\"ReceiptHandle\":\"rh-1\",\"MD5OfBody\":\"" + digest.ToUpperInvariant() + "\",\"Body\":"
            + System.Text.Json.JsonSerializer.Serialize(Body, new System.Text.Json.JsonSerializerOptions { Encoder = System.Text.Encodings.Web.JavaScriptEncoder.Default }) + "}]}";
        using AwsTransport transport = Transport(new RecordingHandler().Then(HttpStatusCode.OK, answer));

        Assert.Equal(Body, Assert.Single(await transport.ReceiveAsync("orders", 10, TimeSpan.Zero)).Body);
    }

    [Theory]
    [InlineData(1, true)]
    [InlineData(10, true)]
    [InlineData(10, false)]
    public async Task AReceiveAnswerLargerThanSqsCanSend_IsRefusedUnread(int maxMessages, bool declaredLength)
    {
        // 300 MB, streamed, never held: more than ten 1 MiB messages can be however they are escaped.
        var handler = new RecordingHandler().Then(_ => RecordingHandler.Answer(HttpStatusCode.OK, new EndlessContent(300_000_000, declaredLength)));
        using AwsTransport transport = Transport(handler);
        long before = GC.GetTotalAllocatedBytes(precise: true);

        var e = await Assert.ThrowsAsync<MessageTransportException>(() => transport.ReceiveAsync("orders", maxMessages, TimeSpan.Zero));

        long allocated = GC.GetTotalAllocatedBytes(precise: true) - before;
        Assert.Equal("AnswerTooLarge", e.ErrorCode);
        Assert.Contains("SQS ReceiveMessage", e.Message, StringComparison.Ordinal);
        Assert.False(e.IsTransient);
        Assert.Single(handler.Requests);
        long limit = (maxMessages * ((6L << 20) + (64 << 10))) + (64 << 10);
        Assert.InRange(allocated, 0, declaredLength ? 1 << 20 : 3 * limit); // read up to the limit at most, in doubling pooled arrays
    }

    [Fact]
    public async Task AnErrorAnswerOfAnySize_IsATypedFailure_ReadNoFurtherThanAnErrorCanBe()
    {
        var handler = new RecordingHandler { Default = _ => RecordingHandler.Answer(HttpStatusCode.InternalServerError, new EndlessContent(300_000_000, declaredLength: false)) };
        using AwsTransport transport = Transport(handler, configure: o => o.MaxAttempts = 2);
        long before = GC.GetTotalAllocatedBytes(precise: true);

        var e = await Assert.ThrowsAsync<MessageTransportException>(() => transport.SendAsync(new SqsSendRequest { QueueName = "orders", Body = "x" }));

        Assert.InRange(GC.GetTotalAllocatedBytes(precise: true) - before, 0, 4 << 20);
        Assert.Equal("Http500", e.ErrorCode);
        Assert.Contains("64", e.Message, StringComparison.Ordinal);
        Assert.True(e.IsTransient);
        Assert.Equal(2, handler.Requests.Count); // a server error is retried as before
    }

    [Theory]
    [InlineData("sqs")]
    [InlineData("sns")]
    [InlineData("events")]
    public async Task AnIdLongerThanTheServiceGives_IsAMalformedAnswer(string service)
    {
        string id = new('x', 1_000_000);
        string answer = service switch
        {
            "sqs" => "{\"MessageId\":\"" + id + "\"}",
            "sns" => "<PublishResponse><PublishResult><MessageId>" + id + "</MessageId></PublishResult></PublishResponse>",
            _ => "{\"FailedEntryCount\":0,\"Entries\":[{\"EventId\":\"" + id + "\"}]}",
        };
        using AwsTransport transport = Transport(new RecordingHandler().Then(HttpStatusCode.OK, answer), configure: o => o.VerifyMessageDigests = false);

        var e = await Assert.ThrowsAsync<MessageTransportException>(() => service switch
        {
            "sqs" => transport.SendAsync(new SqsSendRequest { QueueName = "orders", Body = "x" }),
            "sns" => transport.PublishAsync(new SnsPublishRequest { TopicArn = "arn:aws:sns:eu-west-1:123456789012:orders", Message = "x" }),
            _ => transport.PutEventAsync(new EventBridgeEntry { EventBusName = "bus", Source = "/s", DetailType = "t", Detail = "{}" }),
        });

        Assert.Equal("MalformedResponse", e.ErrorCode);
        Assert.Contains("over 100 characters", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task InvalidUtf8InAnAnswer_IsAMalformedAnswer_NotAnInvalidOperationException()
    {
        byte[] answer = [.. "{\"MessageId\":\"m-"u8, 0xC3, 0x28, .. "\"}"u8];
        using AwsTransport transport = Transport(new RecordingHandler().Then(_ => RecordingHandler.Answer(HttpStatusCode.OK, new ByteArrayContent(answer))), configure: o => o.VerifyMessageDigests = false);

        var e = await Assert.ThrowsAsync<MessageTransportException>(() => transport.SendAsync(new SqsSendRequest { QueueName = "orders", Body = "x" }));

        Assert.Equal("MalformedResponse", e.ErrorCode);
        Assert.IsType<InvalidOperationException>(e.InnerException);
    }

    [Theory]
    [InlineData("SignatureDoesNotMatch", "Signature expired: 20251103T140000Z is now earlier than 20251103T141500Z (20251103T143000Z - 15 min.)")]
    [InlineData("InvalidSignatureException", "Signature not yet current: 20251103T150000Z is still later than 20251103T144500Z (20251103T143000Z + 15 min.)")]
    [InlineData("RequestTimeTooSkewed", "The difference between the request time and the current time is too large.")]
    public async Task ARequestRefusedForItsSigningTime_IsSignedAgainWithTheServicesTime_OnceAndForLater(string code, string message)
    {
        DateTimeOffset serviceTime = DateTimeOffset.UtcNow.AddMinutes(-20);
        var log = new CapturingLoggerProvider();
        using var factory = new LoggerFactory([log]);
        var handler = new RecordingHandler { Default = _ => RecordingHandler.Answer(HttpStatusCode.OK, "{\"MessageId\":\"m-1\"}") }
            .Then(_ =>
            {
                HttpResponseMessage refused = RecordingHandler.Answer(HttpStatusCode.Forbidden, $"{{\"__type\":\"com.amazon.coral.service#{code}\",\"message\":\"{message}\"}}", ("x-amzn-query-error", code + ";Sender"));
                refused.Headers.Date = serviceTime;
                return refused;
            });
        using AwsTransport transport = Transport(handler, factory.CreateLogger<AwsTransport>(), o => o.VerifyMessageDigests = false);

        Assert.Equal("m-1", await transport.SendAsync(new SqsSendRequest { QueueName = "orders", Body = "x" }));
        Assert.Equal("m-1", await transport.SendAsync(new SqsSendRequest { QueueName = "orders", Body = "y" }));

        Assert.Equal(3, handler.Requests.Count);
        foreach (RecordedRequest corrected in handler.Requests.Skip(1))
        {
            DateTime signedAt = DateTime.ParseExact(corrected.Headers["X-Amz-Date"], "yyyyMMdd'T'HHmmss'Z'", System.Globalization.CultureInfo.InvariantCulture, System.Globalization.DateTimeStyles.AdjustToUniversal | System.Globalization.DateTimeStyles.AssumeUniversal);
            Assert.InRange(signedAt, serviceTime.UtcDateTime.AddSeconds(-5), serviceTime.UtcDateTime.AddMinutes(1));
        }

        Assert.Contains("clock", Assert.Single(log.Messages), StringComparison.Ordinal);
    }

    [Fact]
    public async Task ASignatureMismatchThatIsNotAboutTime_IsNotRetried()
    {
        var handler = new RecordingHandler { Default = _ =>
        {
            HttpResponseMessage refused = RecordingHandler.Answer(HttpStatusCode.Forbidden, "{\"__type\":\"SignatureDoesNotMatch\",\"message\":\"The request signature we calculated does not match the signature you provided.\"}");
            refused.Headers.Date = DateTimeOffset.UtcNow.AddHours(-3);
            return refused;
        } };
        using AwsTransport transport = Transport(handler);

        var e = await Assert.ThrowsAsync<MessageTransportException>(() => transport.SendAsync(new SqsSendRequest { QueueName = "orders", Body = "x" }));

        Assert.Equal("SignatureDoesNotMatch", e.ErrorCode);
        Assert.Single(handler.Requests);
    }

    private static AwsTransport Transport(RecordingHandler handler, ILogger? logger = null, Action<AwsTransportOptions>? configure = null)
        => RecordingHandler.Transport(handler, o =>
        {
            o.QueueUrls["orders"] = new Uri(QueueUrl);
            o.MaxBackoff = TimeSpan.FromMilliseconds(20);
            configure?.Invoke(o);
        }, logger: logger);

    /// <summary>Three messages, the second spoiled as <paramref name="spoiled"/> says; bodies hold <see cref="Secret"/>, which no log may show.</summary>
    private static byte[] ThreeMessages(string spoiled)
    {
        var answer = new MemoryStream();
        void Write(string text) => answer.Write(Encoding.UTF8.GetBytes(text));
        Write("{\"Messages\":[");
        for (int n = 1; n <= 3; n++)
        {
            bool bad = n == 2;
            string body = $"{Secret} {n}";
            string bodyDigest = Convert.ToHexStringLower(System.Security.Cryptography.MD5.HashData(Encoding.UTF8.GetBytes(body)));
            Write(n > 1 ? "," : string.Empty);
            Write($"{{\"MessageId\":\"{(bad && spoiled == "message-id-too-long" ? new string('i', 101) : "m-" + n)}\",");
            if (!(bad && spoiled == "no-receipt-handle"))
            {
                Write($"\"ReceiptHandle\":\"{(bad && spoiled == "receipt-handle-too-long" ? new string('r', 1025) : "rh-" + n)}\",");
            }

            Write($"\"MD5OfBody\":\"{(bad && spoiled == "body-digest" ? new string('0', 32) : bodyDigest)}\",\"Body\":\"");
            Write(body);
            if (bad && spoiled == "body-not-utf8")
            {
                answer.Write([0xFF, 0xFE]);
            }

            if (bad && spoiled == "body-escaped-lone-surrogate")
            {
                Write("\\ud800 and an escaped quote \\\"");
            }

            Write("\",\"Attributes\":{\"ApproximateReceiveCount\":\"1\"},");
            Write("\"MD5OfMessageAttributes\":\"" + (bad && spoiled == "attributes-digest" ? new string('0', 32) : "19e27d4e946b072f3f58da80d94fd778") + "\",");
            Write("\"MessageAttributes\":{\"attribName1\":{\"DataType\":\"String\",\"StringValue\":\"attribValue 1\"}");
            if (bad && spoiled == "attribute-not-base64")
            {
                Write(",\"blob\":{\"DataType\":\"Binary\",\"BinaryValue\":\"not base64!\"}");
            }

            if (bad && spoiled == "attribute-not-utf8")
            {
                Write(",\"name\":{\"DataType\":\"String\",\"StringValue\":\"");
                answer.Write([0xC3, 0x28]);
                Write("\"}");
            }

            Write("}}");
        }

        Write("]}");
        return answer.ToArray();
    }

    /// <summary>An answer body of <c>length</c> bytes (a JSON string's worth of 'x'), produced as it is read and never held.</summary>
    private sealed class EndlessContent(long length, bool declaredLength) : HttpContent
    {
        protected override async Task SerializeToStreamAsync(Stream stream, TransportContext? context)
        {
            byte[] chunk = new byte[64 * 1024];
            chunk.AsSpan().Fill((byte)'x');
            for (long written = 0; written < length; written += chunk.Length)
            {
                await stream.WriteAsync(chunk.AsMemory(0, (int)Math.Min(chunk.Length, length - written)));
            }
        }

        protected override Task<Stream> CreateContentReadStreamAsync() => Task.FromResult<Stream>(new EndlessStream(length));

        protected override bool TryComputeLength(out long computed)
        {
            computed = length;
            return declaredLength;
        }
    }

    private sealed class EndlessStream(long length) : Stream
    {
        private long _position;

        public override bool CanRead => true;

        public override bool CanSeek => false;

        public override bool CanWrite => false;

        public override long Length => length;

        public override long Position { get => _position; set => throw new NotSupportedException(); }

        public override int Read(byte[] buffer, int offset, int count) => Read(buffer.AsSpan(offset, count));

        public override int Read(Span<byte> buffer)
        {
            int n = (int)Math.Min(buffer.Length, length - _position);
            buffer[..n].Fill((byte)'x');
            _position += n;
            return n;
        }

        public override ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken = default) => ValueTask.FromResult(Read(buffer.Span));

        public override void Flush()
        {
        }

        public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

        public override void SetLength(long value) => throw new NotSupportedException();

        public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();
    }

    [Theory]
    [InlineData("compact")]
    [InlineData("indented")]
    [InlineData("spaces around the colon")]
    [InlineData("body first")]
    [InlineData("body last")]
    public void Bodies_AreReadAsSystemTextJsonReadsThem_WhereverTheyStand_ThroughCleanBuffers(string layout)
    {
        // Bodies read past the JSON reader (found and unescaped by block) against System.Text.Json's own reading of the
        // same answer: every escape JSON has, text longer than the widest block, none at all, and an empty body.
        string[] bodies =
        [
            "{\"specversion\":\"1.0\",\"data\":{\"note\":\"a \\\"quoted\\\" word, a back\\\\slash, a/slash\"}}",
            "tab\there, line\nfeed, return\r, \b\f, é ✉ \uD83D\uDE00 and \u0001",
            string.Concat(Enumerable.Repeat("{\"k\":\"v\"},", 40)),
            "plain text with nothing to unescape at all, but longer than one block of sixty-four bytes",
            string.Empty,
        ];
        var escapes = new System.Text.Json.JsonSerializerOptions { Encoder = System.Text.Encodings.Web.JavaScriptEncoder.Default }; // \u0022, \u002B, \u00E9
        var members = bodies.Select((body, n) => new List<string>
        {
            $"\"MessageId\":\"m-{n}\"",
            $"\"ReceiptHandle\":\"rh-{n}\"",
            "\"Body\"" + (layout == "spaces around the colon" ? " \t: \n" : ":") + System.Text.Json.JsonSerializer.Serialize(body, n % 2 == 0 ? escapes : null),
            "\"Attributes\":{\"ApproximateReceiveCount\":\"1\"}",
        }).ToList();
        foreach (List<string> message in members)
        {
            string body = message[2];
            message.RemoveAt(2);
            message.Insert(layout switch { "body first" => 0, "body last" => message.Count, _ => 2 }, body);
        }

        string separator = layout == "indented" ? ",\n      " : ",";
        string answer = "{\"Messages\":[" + string.Join(separator, members.Select(m => "{" + string.Join(separator, m) + "}")) + "]}";
        if (layout == "indented")
        {
            answer = System.Text.Json.JsonSerializer.Serialize(System.Text.Json.JsonDocument.Parse(answer).RootElement, new System.Text.Json.JsonSerializerOptions { WriteIndented = true, Encoder = System.Text.Encodings.Web.JavaScriptEncoder.Default });
        }

        byte[] bytes = Encoding.UTF8.GetBytes(answer);
        string[] expected = [.. System.Text.Json.JsonDocument.Parse(bytes).RootElement.GetProperty("Messages").EnumerateArray().Select(m => m.GetProperty("Body").GetString()!)];
        var pool = new CountingArrayPool();

        List<SqsMessage> read = Missive.Aws.Sqs.SqsReceiveAnswer.Read(new Missive.Aws.Protocol.AwsResponse(bytes, bytes.Length, "req"), verifyDigests: false, [], pool);

        Assert.Equal(bodies, expected); // the answer carries the bodies
        Assert.Equal(expected, read.Select(m => m.Body));
        Assert.Equal(members.Select((_, n) => $"m-{n}"), read.Select(m => m.MessageId));
        Assert.All(read, m => Assert.Equal("1", m.SystemAttributes["ApproximateReceiveCount"]));
        Assert.True(pool.Rents >= bodies.Length - 1); // an empty body needs no buffer
        Assert.Equal((pool.Rents, 0, 0, 0), (pool.Returns, pool.Outstanding, pool.DoubleReturns, pool.DirtyReturns));
    }

    [Theory]
    [InlineData("\"Body\":\"a raw\ttab\"", "MalformedResponse")] // a control character JSON does not allow in a string
    [InlineData("\"Body\":\"an unknown \\q escape\"", "MalformedResponse")]
    [InlineData("\"Body\":\"a short \\u12 escape\"", "MalformedResponse")]
    [InlineData("\"Body\":\"never closed", "MalformedResponse")]
    public void ABodyThatIsNotAJsonString_FailsTheAnswerWhole_AsTheJsonReaderWould(string body, string code)
    {
        byte[] answer = Encoding.UTF8.GetBytes("{\"Messages\":[{\"MessageId\":\"m\",\"ReceiptHandle\":\"r\"," + body + "}]}");
        var pool = new CountingArrayPool();

        var error = Assert.Throws<MessageTransportException>(() => Missive.Aws.Sqs.SqsReceiveAnswer.Read(new Missive.Aws.Protocol.AwsResponse(answer, answer.Length, "req"), verifyDigests: false, [], pool));

        Assert.Equal(code, error.ErrorCode);
        Assert.ThrowsAny<System.Text.Json.JsonException>(() => System.Text.Json.JsonDocument.Parse(answer)); // and System.Text.Json agrees
        Assert.Equal((pool.Rents, 0, 0, 0), (pool.Returns, pool.Outstanding, pool.DoubleReturns, pool.DirtyReturns));
    }

    [Fact]
    public void AnAnswerWithAMemberNameThatCannotBeDecoded_FailsWhole_WithTheTransportsTypedError()
    {
        // Found by the answer fuzz target: System.Text.Json throws InvalidOperationException comparing such a name.
        byte[] answer = Encoding.UTF8.GetBytes("{\"Messages\":[{\"MessageId\":\"m\",\"\\ud800x\":1,\"ReceiptHandle\":\"r\",\"Body\":\"b\"}]}");

        var error = Assert.Throws<MessageTransportException>(() => Missive.Aws.Sqs.SqsReceiveAnswer.Read(new Missive.Aws.Protocol.AwsResponse(answer, answer.Length, "req"), verifyDigests: false, []));

        Assert.Equal("MalformedResponse", error.ErrorCode);
        Assert.Contains("member name that is not UTF-8", error.Message, StringComparison.Ordinal);
    }
}
