using System;
using System.Collections.Generic;
using System.Linq;
using System.Net;
using System.Net.Http;
using System.Text;
using System.Text.Json;
using System.Threading.Tasks;
using Missive.Aws;
using Missive.Transport;

namespace Missive.Tests.Aws.Unit;

/// <summary>
/// Entries of a batch call that the service failed on its side (the batch answers' <c>SenderFault</c> false, as the SQS,
/// SNS and EventBridge API references describe them) are sent again in a new call under the standard retry mode; the
/// sender's faults are not, nor anything on a FIFO destination.
/// </summary>
public sealed class BatchEntryRetryTests
{
    private const string QueueUrl = "https://sqs.eu-west-1.amazonaws.com/123456789012/";

    [Fact]
    public async Task SendBatch_AnEntryFailedOnTheServicesSide_IsSentAgainAlone_AndOneTheSenderCaused_IsNot()
    {
        var sqs = new ScriptedSqs((body, attempt) => body switch
        {
            "b2" when attempt == 1 => ("InternalError", false),
            "b4" => ("InvalidParameterValue", true),
            _ => null,
        });
        using AwsTransport transport = Transport(sqs.Handler);

        IReadOnlyList<BatchEntryResult> results = await transport.SendBatchAsync(Requests("orders", 6));

        Assert.Equal(["m-b0", "m-b1", "m-b2", "m-b3", null, "m-b5"], results.Select(r => r.MessageId));
        Assert.Equal("InvalidParameterValue", results[4].ErrorCode);
        Assert.True(results[4].SenderFault);
        Assert.Equal([["b0", "b1", "b2", "b3", "b4", "b5"], ["b2"]], sqs.Calls);
        Assert.Equal(500, transport.Retry.Quota); // the retry's 14 tokens came back when it succeeded
    }

    [Fact]
    public async Task SendBatch_AnEntryThatKeepsFailing_IsSentMaxAttemptsTimes_ThenIsItsTransientError_AndTheQuotaPaid()
    {
        var sqs = new ScriptedSqs((body, _) => body == "b1" ? ("ServiceUnavailable", false) : null);
        using AwsTransport transport = Transport(sqs.Handler, o => o.MaxAttempts = 4);

        IReadOnlyList<BatchEntryResult> results = await transport.SendBatchAsync(Requests("orders", 3));

        Assert.Equal("ServiceUnavailable", results[1].ErrorCode);
        Assert.False(results[1].SenderFault);
        Assert.True(results[0].Succeeded && results[2].Succeeded);
        Assert.Equal([["b0", "b1", "b2"], ["b1"], ["b1"], ["b1"]], sqs.Calls);
        Assert.Equal(500 - (3 * 14) + 3, transport.Retry.Quota); // 14 per retry; each call that succeeded at once gives 1 back (the first, at a full quota, nothing)
    }

    [Fact]
    public async Task SendBatch_ACallSendingEntriesAgainThatFailsWhole_GivesThemItsFailure_AndTheOthersStaySent()
    {
        var handler = new RecordingHandler()
            .Then(HttpStatusCode.OK, "{\"Successful\":[{\"Id\":\"0\",\"MessageId\":\"m-b0\",\"MD5OfMessageBody\":\"00000000000000000000000000000000\"},{\"Id\":\"2\",\"MessageId\":\"m-b2\",\"MD5OfMessageBody\":\"00000000000000000000000000000000\"}],"
                + "\"Failed\":[{\"Id\":\"1\",\"SenderFault\":false,\"Code\":\"InternalError\",\"Message\":\"try later\"}]}")
            .Then(HttpStatusCode.BadRequest, "{\"__type\":\"com.amazonaws.sqs#InvalidParameterValue\",\"message\":\"refused\"}");
        using AwsTransport transport = Transport(handler);

        IReadOnlyList<BatchEntryResult> results = await transport.SendBatchAsync(Requests("orders", 3));

        Assert.Equal(["m-b0", null, "m-b2"], results.Select(r => r.MessageId));
        Assert.Equal("InvalidParameterValue", results[1].ErrorCode); // its last outcome: the call sending it again was refused
        Assert.True(results[1].SenderFault);
        Assert.Contains("was not sent", results[1].ErrorMessage, StringComparison.Ordinal);
        Assert.Equal(2, handler.Requests.Count);
    }

    [Fact]
    public async Task SendBatch_WithOneAttempt_NothingIsSentAgain()
    {
        var sqs = new ScriptedSqs((body, _) => body == "b0" ? ("InternalError", false) : null);
        using AwsTransport transport = Transport(sqs.Handler, o => o.MaxAttempts = 1);

        IReadOnlyList<BatchEntryResult> results = await transport.SendBatchAsync(Requests("orders", 2));

        Assert.False(results[0].Succeeded);
        Assert.Single(sqs.Calls);
    }

    [Fact]
    public async Task SendBatch_WithTheQuotaSpent_NothingIsSentAgain()
    {
        var sqs = new ScriptedSqs((body, _) => body == "b0" ? ("InternalError", false) : null);
        using AwsTransport transport = Transport(sqs.Handler, o => o.MaxAttempts = 2);

        // Each batch pays 14 tokens for its one retry, which fails too (each call itself succeeds, giving 1 back).
        for (int batch = 0; transport.Retry.Quota >= 14; batch++)
        {
            Assert.True(batch < 50, "the quota never ran out");
            await transport.SendBatchAsync(Requests("orders", 1));
        }

        sqs.Calls.Clear();
        IReadOnlyList<BatchEntryResult> results = await transport.SendBatchAsync(Requests("orders", 1));

        Assert.False(results[0].Succeeded);
        Assert.Single(sqs.Calls);
    }

    [Theory]
    [InlineData("orders.fifo", false)] // a FIFO queue by its name
    [InlineData("orders.fifo", true)] // by its name, with its URL configured (a FIFO URL under another name is refused: ATransportBuiltWithoutUseAws_RefusesAFifoQueueUnderAnotherName)
    public async Task SendBatch_OnAFifoQueue_AFailedEntryIsNotSentAgain(string queue, bool configuredName)
    {
        var sqs = new ScriptedSqs((body, attempt) => body == "b1" && attempt == 1 ? ("InternalError", false) : null);
        using AwsTransport transport = Transport(sqs.Handler, o =>
        {
            if (configuredName)
            {
                o.QueueUrls[queue] = new Uri(QueueUrl + "orders.fifo");
            }
        });
        SqsSendRequest[] requests = Requests(queue, 3, group: "g");

        IReadOnlyList<BatchEntryResult> results = await transport.SendBatchAsync(requests);

        Assert.Equal("InternalError", results[1].ErrorCode);
        Assert.Single(sqs.Calls);
    }

    [Fact]
    public async Task PublishBatch_AnEntrySnsFailedOnItsSide_IsSentAgainAlone()
    {
        var sns = new ScriptedSns((message, attempt) => message == "p1" && attempt == 1);
        using AwsTransport transport = Transport(sns.Handler);

        IReadOnlyList<BatchEntryResult> results = await transport.PublishBatchAsync([.. Enumerable.Range(0, 3).Select(i => Publish("p" + i))]);

        Assert.Equal(["m-p0", "m-p1", "m-p2"], results.Select(r => r.MessageId));
        Assert.Equal([["p0", "p1", "p2"], ["p1"]], sns.Calls);
    }

    [Fact]
    public async Task BatchCalls_AreCutByTheRequestsOwnSizes_AtEachServicesLimit()
    {
        var sqs = new ScriptedSqs((_, _) => null);
        var sns = new ScriptedSns((_, _) => false);
        using AwsTransport toSqs = Transport(sqs.Handler);
        using AwsTransport toSns = Transport(sns.Handler);
        string large = new('x', 400 * 1024), medium = new('y', 100 * 1024);

        // SQS, 1 MiB: two 400 KiB bodies fit with the small ones before them, a third does not; then count.
        SqsSendRequest[] sends = [.. Requests("orders", 2), .. Enumerable.Range(0, 3).Select(_ => new SqsSendRequest { QueueName = "orders", Body = large }), .. Requests("orders", 12)];
        Assert.All(await toSqs.SendBatchAsync(sends), r => Assert.True(r.Succeeded));
        Assert.Equal([4, 10, 3], sqs.Calls.Select(c => c.Length));

        // SNS, 256 KiB: two 100 KiB messages fit, a third does not.
        SnsPublishRequest[] publishes = [.. Enumerable.Range(0, 3).Select(_ => Publish(medium)), Publish("p3")];
        Assert.All(await toSns.PublishBatchAsync(publishes), r => Assert.True(r.Succeeded));
        Assert.Equal([2, 2], sns.Calls.Select(c => c.Length));
    }

    [Fact]
    public async Task PutEvents_AThrottledEntry_IsSentAgainAlone_AndAnInvalidOne_IsNot()
    {
        var calls = new List<string[]>();
        var handler = new RecordingHandler
        {
            Default = request =>
            {
                using JsonDocument body = JsonDocument.Parse(request.Body);
                string[] details = [.. body.RootElement.GetProperty("Entries").EnumerateArray().Select(e => e.GetProperty("Detail").GetString()!)];
                bool first = calls.Count == 0;
                calls.Add(details);
                IEnumerable<string> entries = details.Select(d => d switch
                {
                    "{\"n\":1}" when first => "{\"ErrorCode\":\"ThrottlingException\",\"ErrorMessage\":\"Rate exceeded\"}",
                    "{\"n\":2}" => "{\"ErrorCode\":\"MalformedDetail\",\"ErrorMessage\":\"Detail is malformed.\"}",
                    _ => "{\"EventId\":\"e-" + d[5] + "\"}",
                });
                return RecordingHandler.Json(HttpStatusCode.OK, "{\"FailedEntryCount\":0,\"Entries\":[" + string.Join(",", entries) + "]}");
            },
        };
        using AwsTransport transport = Transport(handler);

        IReadOnlyList<BatchEntryResult> results = await transport.PutEventBatchAsync(
            [.. Enumerable.Range(0, 3).Select(i => new EventBridgeEntry { EventBusName = "b", Source = "/s", DetailType = "t", Detail = "{\"n\":" + i + "}" })]);

        Assert.Equal(["e-0", "e-1", null], results.Select(r => r.MessageId));
        Assert.Equal("MalformedDetail", results[2].ErrorCode);
        Assert.True(results[2].SenderFault);
        Assert.Equal([["{\"n\":0}", "{\"n\":1}", "{\"n\":2}"], ["{\"n\":1}"]], calls);
        Assert.Equal(500, transport.Retry.Quota);
    }

    private static SnsPublishRequest Publish(string message) => new() { TopicArn = "arn:aws:sns:eu-west-1:123456789012:orders", Message = message };

    private static SqsSendRequest[] Requests(string queue, int count, string? group = null)
        => [.. Enumerable.Range(0, count).Select(i => new SqsSendRequest { QueueName = queue, Body = "b" + i, MessageGroupId = group, MessageDeduplicationId = group is null ? null : "d" + i })];

    private static AwsTransport Transport(RecordingHandler handler, Action<AwsTransportOptions>? configure = null)
        => RecordingHandler.Transport(handler, o =>
        {
            o.QueueUrls["orders"] = new Uri(QueueUrl + "orders");
            o.QueueUrls["orders.fifo"] = new Uri(QueueUrl + "orders.fifo");
            o.MaxBackoff = TimeSpan.FromMilliseconds(5);
            o.VerifyMessageDigests = false;
            configure?.Invoke(o);
        });

    /// <summary>SQS answering <c>SendMessageBatch</c> as its API reference shows, failing the entries a script names, and recording each call's bodies.</summary>
    private sealed class ScriptedSqs
    {
        private readonly Dictionary<string, int> _attempts = [];

        public ScriptedSqs(Func<string, int, (string Code, bool SenderFault)?> failure)
        {
            Handler = new RecordingHandler
            {
                Default = request =>
                {
                    using JsonDocument body = JsonDocument.Parse(request.Body);
                    var bodies = new List<string>();
                    var successful = new List<string>();
                    var failed = new List<string>();
                    foreach (JsonElement entry in body.RootElement.GetProperty("Entries").EnumerateArray())
                    {
                        string id = entry.GetProperty("Id").GetString()!;
                        string text = entry.GetProperty("MessageBody").GetString()!;
                        bodies.Add(text);
                        int attempt = _attempts[text] = _attempts.GetValueOrDefault(text) + 1;
                        if (failure(text, attempt) is { } fault)
                        {
                            failed.Add($"{{\"Id\":\"{id}\",\"SenderFault\":{(fault.SenderFault ? "true" : "false")},\"Code\":\"{fault.Code}\",\"Message\":\"scripted\"}}");
                        }
                        else
                        {
                            successful.Add($"{{\"Id\":\"{id}\",\"MessageId\":\"m-{(text.Length > 10 ? "long" : text)}\",\"MD5OfMessageBody\":\"00000000000000000000000000000000\"}}");
                        }
                    }

                    Calls.Add([.. bodies]);
                    return RecordingHandler.Json(HttpStatusCode.OK, $"{{\"Successful\":[{string.Join(",", successful)}],\"Failed\":[{string.Join(",", failed)}]}}");
                },
            };
        }

        public RecordingHandler Handler { get; }

        public List<string[]> Calls { get; } = [];
    }

    /// <summary>SNS answering <c>PublishBatch</c> as its API reference shows (XML), failing on its side the entries a script names, and recording each call's messages.</summary>
    private sealed class ScriptedSns
    {
        private readonly Dictionary<string, int> _attempts = [];

        public ScriptedSns(Func<string, int, bool> fails)
        {
            Handler = new RecordingHandler
            {
                Default = request =>
                {
                    Dictionary<string, string> form = request.Body.Split('&').Select(p => p.Split('=')).ToDictionary(p => WebUtility.UrlDecode(p[0]), p => WebUtility.UrlDecode(p[1]));
                    var messages = new List<string>();
                    var answer = new StringBuilder("<PublishBatchResponse><PublishBatchResult><Successful>");
                    var failed = new StringBuilder();
                    for (int n = 1; form.TryGetValue($"PublishBatchRequestEntries.member.{n}.Message", out string? message); n++)
                    {
                        string id = form[$"PublishBatchRequestEntries.member.{n}.Id"];
                        messages.Add(message);
                        int attempt = _attempts[message] = _attempts.GetValueOrDefault(message) + 1;
                        if (fails(message, attempt))
                        {
                            failed.Append($"<member><Id>{id}</Id><Code>InternalError</Code><Message>try later</Message><SenderFault>false</SenderFault></member>");
                        }
                        else
                        {
                            answer.Append($"<member><Id>{id}</Id><MessageId>m-{(message.Length > 10 ? "long" : message)}</MessageId></member>");
                        }
                    }

                    Calls.Add([.. messages]);
                    answer.Append("</Successful><Failed>").Append(failed).Append("</Failed></PublishBatchResult></PublishBatchResponse>");
                    return RecordingHandler.Answer(HttpStatusCode.OK, answer.ToString());
                },
            };
        }

        public RecordingHandler Handler { get; }

        public List<string[]> Calls { get; } = [];
    }
}
