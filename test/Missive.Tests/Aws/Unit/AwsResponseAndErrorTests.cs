using System;
using System.Collections.Generic;
using System.Linq;
using System.Net;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using Missive.Aws;
using Missive.Aws.Protocol;
using Missive.Aws.Sqs;
using Missive.Transport;

namespace Missive.Tests.Aws.Unit;

/// <summary>How Missive.Aws reads answers, digests and errors, and retries, against the shapes the AWS API references document.</summary>
public sealed class AwsResponseAndErrorTests
{
    private const string QueueUrl = "https://sqs.eu-west-1.amazonaws.com/123456789012/orders";

    // ---- Digests: the published vectors of an independent implementation (npm aws-md5-of-message-attributes) ----

    public static TheoryData<string, string> AttributeDigestVectors => new()
    {
        { "string", "19e27d4e946b072f3f58da80d94fd778" },
        { "number", "9fe1b90bbd9965bdf77bac517c7d2495" },
        { "binary", "31a92b15d92f8db860eda32aceb656c3" },
        { "all", "c932db14a896c663f83c260297d594ff" },
    };

    [Theory]
    [MemberData(nameof(AttributeDigestVectors))]
    public void AttributeDigest_MatchesThePublishedVector(string vector, string digest)
    {
        var all = new Dictionary<string, MessageAttributeValue>
        {
            ["attribName1"] = MessageAttributeValue.FromString("attribValue 1"),
            ["customNumberTypeAttrib"] = new MessageAttributeValue { DataType = "Number.float", StringValue = "4563442423554324324264524243.32543234" },
            ["binaryAttribute"] = MessageAttributeValue.FromBinary(Encoding.UTF8.GetBytes("Hello binary world!")),
        };
        Dictionary<string, MessageAttributeValue> attributes = vector switch
        {
            "string" => new() { ["attribName1"] = all["attribName1"] },
            "number" => new() { ["customNumberTypeAttrib"] = all["customNumberTypeAttrib"] },
            "binary" => new() { ["binaryAttribute"] = all["binaryAttribute"] },
            _ => all,
        };

        Assert.Equal(digest, SqsMessageDigest.OfAttributes(attributes));
    }

    [Fact]
    public void BodyDigest_IsTheMd5OfTheUtf8Body_AndNoAttributesHaveNoDigest()
    {
        Assert.Equal("5d41402abc4b2a76b9719d911017c592", SqsMessageDigest.OfBody("hello")); // RFC 1321 test suite's neighbour: MD5("hello")
        Assert.Null(SqsMessageDigest.OfAttributes(new Dictionary<string, MessageAttributeValue>()));
    }

    // ---- Answers ----

    [Fact]
    public async Task Receive_ReadsTheDocumentedShape_AndChecksBothDigests()
    {
        var handler = new RecordingHandler().Then(HttpStatusCode.OK, ReceiveAnswer("hello", "5d41402abc4b2a76b9719d911017c592", "19e27d4e946b072f3f58da80d94fd778"));
        using AwsTransport transport = Transport(handler);

        SqsMessage message = Assert.Single(await transport.ReceiveAsync("orders", 10, TimeSpan.Zero));

        Assert.Equal("hello", message.Body);
        Assert.Equal("m-1", message.MessageId);
        Assert.Equal("rh-1", message.ReceiptHandle);
        Assert.Equal("3", message.SystemAttributes["ApproximateReceiveCount"]);
        Assert.Equal("group-1", message.SystemAttributes["MessageGroupId"]);
        Assert.Equal("attribValue 1", message.MessageAttributes["attribName1"].StringValue);
    }

    [Fact]
    public async Task Send_ADigestThatDoesNotMatch_IsATransportError_AndADisabledCheckIsNot()
    {
        const string Answer = "{\"MessageId\":\"m-1\",\"MD5OfMessageBody\":\"00000000000000000000000000000000\"}";
        using AwsTransport checking = Transport(new RecordingHandler().Then(HttpStatusCode.OK, Answer));
        using AwsTransport trusting = Transport(new RecordingHandler().Then(HttpStatusCode.OK, Answer), o => o.VerifyMessageDigests = false);
        var request = new SqsSendRequest { QueueName = "orders", Body = "hello" };

        Assert.Equal("DigestMismatch", (await Assert.ThrowsAsync<MessageTransportException>(() => checking.SendAsync(request))).ErrorCode);
        Assert.Equal("m-1", await trusting.SendAsync(request));
    }

    [Fact]
    public async Task SendBatch_FailedEntries_AreReportedPerEntry()
    {
        var handler = new RecordingHandler().Then(HttpStatusCode.OK, "{\"Successful\":[{\"Id\":\"1\",\"MessageId\":\"m-2\",\"MD5OfMessageBody\":\"5d41402abc4b2a76b9719d911017c592\"}],\"Failed\":[{\"Id\":\"0\",\"SenderFault\":true,\"Code\":\"InvalidMessageContents\",\"Message\":\"Invalid characters.\"}]}");
        using AwsTransport transport = Transport(handler);

        IReadOnlyList<BatchEntryResult> results = await transport.SendBatchAsync([new SqsSendRequest { QueueName = "orders", Body = "bad" }, new SqsSendRequest { QueueName = "orders", Body = "hello" }]);

        Assert.False(results[0].Succeeded);
        Assert.Equal("InvalidMessageContents", results[0].ErrorCode);
        Assert.True(results[0].SenderFault);
        Assert.Equal("m-2", results[1].MessageId);
    }

    [Fact]
    public async Task DeleteAndChangeVisibility_StaleReceiptErrors_AreFalse()
    {
        var handler = new RecordingHandler()
            .Then(HttpStatusCode.BadRequest, "{\"__type\":\"com.amazonaws.sqs#ReceiptHandleIsInvalid\",\"message\":\"The input receipt handle is invalid.\"}", ("x-amzn-query-error", "ReceiptHandleIsInvalid;Sender"))
            .Then(HttpStatusCode.BadRequest, "{\"__type\":\"com.amazonaws.sqs#MessageNotInflight\",\"message\":\"The message is not in flight.\"}", ("x-amzn-query-error", "AWS.SimpleQueueService.MessageNotInflight;Sender"));
        using AwsTransport transport = Transport(handler);

        Assert.False(await transport.DeleteAsync("orders", "stale"));
        Assert.False(await transport.ChangeVisibilityAsync("orders", "stale", TimeSpan.Zero));
    }

    // ---- Errors ----

    [Fact]
    public async Task SqsError_CarriesTheQueryCodeTheRequestIdAndTheFault()
    {
        var handler = new RecordingHandler().Then(HttpStatusCode.BadRequest, "{\"__type\":\"com.amazonaws.sqs#QueueDoesNotExist\",\"message\":\"The specified queue does not exist.\"}",
            ("x-amzn-query-error", "AWS.SimpleQueueService.NonExistentQueue;Sender"), ("x-amzn-RequestId", "req-42"));
        using AwsTransport transport = Transport(handler);

        var e = await Assert.ThrowsAsync<MessageTransportException>(() => transport.SendAsync(new SqsSendRequest { QueueName = "orders", Body = "secret body" }));

        Assert.Equal("AWS.SimpleQueueService.NonExistentQueue", e.ErrorCode);
        Assert.Equal("req-42", e.RequestId);
        Assert.Equal(400, e.StatusCode);
        Assert.False(e.IsTransient);
        Assert.Contains("The specified queue does not exist.", e.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("secret body", e.ToString(), StringComparison.Ordinal);
        Assert.Single(handler.Requests); // a sender fault is not retried
    }

    [Fact]
    public async Task SnsError_IsReadFromTheXmlErrorResponse()
    {
        var handler = new RecordingHandler().Then(HttpStatusCode.NotFound,
            "<ErrorResponse xmlns=\"http://sns.amazonaws.com/doc/2010-03-31/\"><Error><Type>Sender</Type><Code>NotFound</Code><Message>Topic does not exist</Message></Error><RequestId>sns-req-1</RequestId></ErrorResponse>");
        using AwsTransport transport = Transport(handler);

        var e = await Assert.ThrowsAsync<MessageTransportException>(() => transport.PublishAsync(new SnsPublishRequest { TopicArn = "arn:aws:sns:eu-west-1:123456789012:gone", Message = "m" }));

        Assert.Equal("NotFound", e.ErrorCode);
        Assert.Equal("sns-req-1", e.RequestId);
        Assert.Contains("Topic does not exist", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task EventBridgeError_IsReadFromTheJsonErrorResponse()
    {
        var handler = new RecordingHandler().Then(HttpStatusCode.BadRequest, "{\"__type\":\"ResourceNotFoundException\",\"message\":\"Event bus orders-bus does not exist.\"}", ("x-amzn-RequestId", "eb-1"));
        using AwsTransport transport = Transport(handler);

        var e = await Assert.ThrowsAsync<MessageTransportException>(() => transport.PutEventAsync(new EventBridgeEntry { EventBusName = "orders-bus", Source = "/s", DetailType = "t", Detail = "{}" }));

        Assert.Equal("ResourceNotFoundException", e.ErrorCode);
        Assert.Equal("eb-1", e.RequestId);
    }

    // ---- Retries ----

    [Theory]
    [InlineData(HttpStatusCode.ServiceUnavailable, "<html>Service Unavailable</html>", null)]
    [InlineData(HttpStatusCode.InternalServerError, "{\"__type\":\"InternalError\"}", null)]
    [InlineData(HttpStatusCode.BadRequest, "{\"__type\":\"com.amazonaws.sqs#RequestThrottled\",\"message\":\"Rate exceeded\"}", "RequestThrottled;Sender")]
    [InlineData((HttpStatusCode)429, "{}", null)]
    public async Task TransientFailure_IsRetried_WithEveryAttemptSignedAfresh(HttpStatusCode status, string body, string? queryError)
    {
        (string, string)[] headers = queryError is null ? [] : [("x-amzn-query-error", queryError)];
        var handler = new RecordingHandler().Then(status, body, headers).Then(HttpStatusCode.OK, "{\"MessageId\":\"m-1\"}");
        using AwsTransport transport = Transport(handler, o => o.VerifyMessageDigests = false);

        Assert.Equal("m-1", await transport.SendAsync(new SqsSendRequest { QueueName = "orders", Body = "x" }));

        Assert.Equal(2, handler.Requests.Count);
        Assert.All(handler.Requests, r => Assert.StartsWith("AWS4-HMAC-SHA256 Credential=", r.Headers["Authorization"], StringComparison.Ordinal));
        Assert.Equal(handler.Requests[0].Body, handler.Requests[1].Body);
    }

    [Fact]
    public async Task PersistentServerError_StopsAfterMaxAttempts_AndSaysHowMany()
    {
        var handler = new RecordingHandler { Default = _ => RecordingHandler.Answer(HttpStatusCode.ServiceUnavailable, "{\"__type\":\"ServiceUnavailable\"}") };
        using AwsTransport transport = Transport(handler, o => o.MaxAttempts = 4);

        var e = await Assert.ThrowsAsync<MessageTransportException>(() => transport.SendAsync(new SqsSendRequest { QueueName = "orders", Body = "x" }));

        Assert.Equal(4, handler.Requests.Count);
        Assert.True(e.IsTransient);
        Assert.Equal(503, e.StatusCode);
        Assert.Contains("after 4 attempts", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task ConnectionFailure_AndAttemptTimeout_AreRetried()
    {
        int calls = 0;
        var handler = new RecordingHandler
        {
            Default = _ => Interlocked.Increment(ref calls) switch
            {
                1 => throw new System.Net.Http.HttpRequestException("Connection refused"),
                _ => RecordingHandler.Answer(HttpStatusCode.OK, "{\"MessageId\":\"m-1\"}"),
            },
        };
        using AwsTransport transport = Transport(handler, o => o.VerifyMessageDigests = false);

        Assert.Equal("m-1", await transport.SendAsync(new SqsSendRequest { QueueName = "orders", Body = "x" }));
        Assert.Equal(2, calls);
    }

    [Fact]
    public async Task CallerCancellation_IsNotWrappedNorRetried()
    {
        var handler = new RecordingHandler { Default = _ => throw new OperationCanceledException() };
        using AwsTransport transport = Transport(handler);
        using var cancelled = new CancellationTokenSource();
        await cancelled.CancelAsync();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => transport.SendAsync(new SqsSendRequest { QueueName = "orders", Body = "x" }, cancelled.Token));
        Assert.True(handler.Requests.Count <= 1);
    }

    [Fact]
    public async Task PutEvent_ATransientEntryFailure_IsRetried()
    {
        var handler = new RecordingHandler()
            .Then(HttpStatusCode.OK, "{\"FailedEntryCount\":1,\"Entries\":[{\"ErrorCode\":\"ThrottlingException\",\"ErrorMessage\":\"Rate exceeded\"}]}")
            .Then(HttpStatusCode.OK, "{\"FailedEntryCount\":0,\"Entries\":[{\"EventId\":\"e-1\"}]}");
        using AwsTransport transport = Transport(handler);

        Assert.Equal("e-1", await transport.PutEventAsync(new EventBridgeEntry { EventBusName = "b", Source = "/s", DetailType = "t", Detail = "{}" }));
        Assert.Equal(2, handler.Requests.Count);
    }

    // ---- The retry strategy itself ----

    [Theory]
    [InlineData(true, 0, 1000)]
    [InlineData(true, 1, 2000)]
    [InlineData(true, 5, 20000)]
    [InlineData(false, 0, 50)]
    [InlineData(false, 3, 400)]
    [InlineData(false, 20, 20000)]
    public void Backoff_IsARandomFractionOfTheCappedExponential(bool throttling, int retry, double ceilingMs)
    {
        var full = new AwsRetryStrategy(3, TimeSpan.FromSeconds(20), TimeProvider.System, random: () => 1.0);
        var half = new AwsRetryStrategy(3, TimeSpan.FromSeconds(20), TimeProvider.System, random: () => 0.5);
        AwsServiceFailure failure = Failure(throttling);

        Assert.Equal(ceilingMs, full.DelayFor(failure, retry).TotalMilliseconds, precision: 3);
        Assert.Equal(ceilingMs / 2, half.DelayFor(failure, retry).TotalMilliseconds, precision: 3);
    }

    [Fact]
    public void Backoff_HonoursRetryAfter_UpToFiveSecondsPastTheComputedDelay()
    {
        var strategy = new AwsRetryStrategy(3, TimeSpan.FromSeconds(20), TimeProvider.System, random: () => 1.0);

        Assert.Equal(3000, strategy.DelayFor(Failure(false, TimeSpan.FromSeconds(3)), 0).TotalMilliseconds, precision: 3);
        Assert.Equal(5050, strategy.DelayFor(Failure(false, TimeSpan.FromSeconds(60)), 0).TotalMilliseconds, precision: 3);
        Assert.Equal(1000, strategy.DelayFor(Failure(true, TimeSpan.FromMilliseconds(10)), 0).TotalMilliseconds, precision: 3);
    }

    [Fact]
    public async Task Quota_RetriesCostTokens_SuccessesRefundThem_AndAnEmptyQuotaStopsRetrying()
    {
        var strategy = new AwsRetryStrategy(2, TimeSpan.FromMilliseconds(1), TimeProvider.System, random: () => 0);
        int attempts = 0;
        ValueTask<int> AlwaysFails(CancellationToken _)
        {
            attempts++;
            throw Failure(throttling: false);
        }

        // 500 tokens pay for 35 transient retries (14 each); the 36th failing call is not retried.
        for (int call = 0; call < 36; call++)
        {
            await Assert.ThrowsAsync<AwsServiceFailure>(() => strategy.ExecuteAsync(AlwaysFails, longPolling: false, CancellationToken.None));
        }

        Assert.Equal(35 * 2 + 1, attempts);
        Assert.Equal(500 - (35 * 14), strategy.Quota);

        await strategy.ExecuteAsync(_ => ValueTask.FromResult(1), longPolling: false, CancellationToken.None);
        Assert.Equal(500 - (35 * 14) + 1, strategy.Quota);
    }

    private static AwsServiceFailure Failure(bool throttling, TimeSpan? retryAfter = null)
        => new("failed", throttling ? "ThrottlingException" : "InternalError", null, throttling ? 400 : 500, senderFault: false) { RetryAfter = retryAfter };

    private static AwsTransport Transport(RecordingHandler handler, Action<AwsTransportOptions>? configure = null)
        => RecordingHandler.Transport(handler, o =>
        {
            o.QueueUrls["orders"] = new Uri(QueueUrl);
            o.MaxBackoff = TimeSpan.FromMilliseconds(20);
            configure?.Invoke(o);
        });

    private static string ReceiveAnswer(string body, string bodyDigest, string attributesDigest)
        => "{\"Messages\":[{\"MessageId\":\"m-1\",\"ReceiptHandle\":\"rh-1\",\"MD5OfBody\":\"" + bodyDigest + "\",\"Body\":\"" + body + "\","
        + "\"Attributes\":{\"ApproximateReceiveCount\":\"3\",\"SentTimestamp\":\"1762180029441\",\"MessageGroupId\":\"group-1\"},"
        + "\"MD5OfMessageAttributes\":\"" + attributesDigest + "\","
        + "\"MessageAttributes\":{\"attribName1\":{\"DataType\":\"String\",\"StringValue\":\"attribValue 1\"}}}]}";
}
