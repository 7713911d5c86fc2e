using System;
using System.Collections.Generic;
using System.Threading.Tasks;
using Missive.Aws;
using Missive.Transport;

namespace Missive.Tests.Aws.Unit;

/// <summary>
/// A message larger than its service takes is refused before any request, with what to do; SNS takes 262,144 bytes (its
/// FAQ and quotas), SQS and EventBridge 1 MiB.
/// </summary>
public sealed class MessageSizeLimitTests
{
    private const string TopicArn = "arn:aws:sns:eu-west-1:123456789012:orders";

    [Fact]
    public async Task ASingleSnsPublishOverTwoHundredFiftySixKiB_IsRefusedBeforeTheCall_NamingTheTopicSizeLimitAndOffload()
    {
        var handler = new RecordingHandler();
        using AwsTransport transport = RecordingHandler.Transport(handler);

        var error = await Assert.ThrowsAsync<MessageTransportException>(() => transport.PublishAsync(new SnsPublishRequest { TopicArn = TopicArn, Message = new string('x', 300 * 1024) }));

        Assert.Equal("EntryTooLarge", error.ErrorCode);
        Assert.Contains(TopicArn, error.Message, StringComparison.Ordinal);
        Assert.Contains("307,200", error.Message, StringComparison.Ordinal);
        Assert.Contains("262,144", error.Message, StringComparison.Ordinal);
        Assert.Contains("UsePayloadOffload()", error.Message, StringComparison.Ordinal);
        Assert.Empty(handler.Requests);
    }

    [Fact]
    public async Task AnSnsBatchEntryOverTheLimit_FailsAlone_AndTheOthersArePublished()
    {
        var handler = new RecordingHandler { Default = _ => RecordingHandler.Answer(System.Net.HttpStatusCode.OK, "<PublishBatchResponse><PublishBatchResult><Successful><member><Id>0</Id><MessageId>m-0</MessageId></member></Successful><Failed/></PublishBatchResult></PublishBatchResponse>") };
        using AwsTransport transport = RecordingHandler.Transport(handler);

        IReadOnlyList<BatchEntryResult> results = await transport.PublishBatchAsync([new SnsPublishRequest { TopicArn = TopicArn, Message = "small" }, new SnsPublishRequest { TopicArn = TopicArn, Message = new string('x', 300 * 1024) }]);

        Assert.True(results[0].Succeeded, results[0].ErrorMessage);
        Assert.Equal("EntryTooLarge", results[1].ErrorCode);
        Assert.Equal(BatchEntryOutcome.Refused, results[1].Outcome);
        Assert.Contains($"the topic '{TopicArn}'", results[1].ErrorMessage, StringComparison.Ordinal); // as a single publish names it
        Assert.Single(handler.Requests);
    }

    [Fact]
    public async Task ASingleSqsSendOverOneMiB_IsRefusedBeforeTheCall_AndOneAtTheLimitGoes()
    {
        var handler = new RecordingHandler { Default = _ => RecordingHandler.Json(System.Net.HttpStatusCode.OK, "{\"MessageId\":\"m-1\"}") };
        using AwsTransport transport = RecordingHandler.Transport(handler, o =>
        {
            o.QueueUrls["orders"] = new Uri("https://sqs.eu-west-1.amazonaws.com/123456789012/orders");
            o.VerifyMessageDigests = false;
        });

        var error = await Assert.ThrowsAsync<MessageTransportException>(() => transport.SendAsync(new SqsSendRequest { QueueName = "orders", Body = new string('x', (1024 * 1024) + 1) }));
        string sent = await transport.SendAsync(new SqsSendRequest { QueueName = "orders", Body = new string('x', 1024 * 1024) });

        Assert.Equal("EntryTooLarge", error.ErrorCode);
        Assert.Contains("the queue 'orders'", error.Message, StringComparison.Ordinal);
        Assert.Equal("m-1", sent);
        Assert.Single(handler.Requests);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task SqsRefusingAFifoSendWithoutADeduplicationId_SaysWhatToSet_OnBothClients(bool sdk)
    {
        // The SQS API reference's text for a FIFO queue without content-based deduplication and a send without an id.
        var handler = new RecordingHandler { Default = _ => RecordingHandler.Json(System.Net.HttpStatusCode.BadRequest, "{\"__type\":\"com.amazonaws.sqs#InvalidParameterValue\",\"message\":\"The queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly\"}", ("x-amzn-RequestId", "req-fifo")) };
        using var client = sdk ? new Amazon.SQS.AmazonSQSClient(AwsEmulator.Credentials, new Amazon.SQS.AmazonSQSConfig { RegionEndpoint = Amazon.RegionEndpoint.EUWest1, MaxErrorRetry = 0, HttpClientFactory = new SdkHttpClients(handler) }) : null;
        using AwsTransport transport = RecordingHandler.Transport(handler, o =>
        {
            o.QueueUrls["payments.fifo"] = new Uri("https://sqs.eu-west-1.amazonaws.com/123456789012/payments.fifo");
            o.SqsClient = client;
        });

        var error = await Assert.ThrowsAsync<MessageTransportException>(() => transport.SendAsync(new SqsSendRequest { QueueName = "payments.fifo", Body = "{}", MessageGroupId = "g" }));

        Assert.Contains("PublishOptions.MessageDeduplicationId", error.Message, StringComparison.Ordinal);
        Assert.Contains("ContentBasedDeduplication", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task ARaisedSnsLimit_LetsALargerMessageGo()
    {
        var handler = new RecordingHandler { Default = _ => RecordingHandler.Answer(System.Net.HttpStatusCode.OK, "<PublishResponse><PublishResult><MessageId>m-1</MessageId></PublishResult></PublishResponse>") };
        using AwsTransport transport = RecordingHandler.Transport(handler, o => o.MaxSnsMessageSize = 1024 * 1024);

        Assert.Equal("m-1", await transport.PublishAsync(new SnsPublishRequest { TopicArn = TopicArn, Message = new string('x', 300 * 1024) }));
    }
}
