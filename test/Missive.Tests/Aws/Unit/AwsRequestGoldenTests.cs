using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Net;
using System.Threading.Tasks;
using Missive.Aws;
using Missive.Tests.Infrastructure;
using Missive.Transport;

namespace Missive.Tests.Aws.Unit;

/// <summary>
/// The exact request of every operation Missive.Aws speaks, against golden files in Aws/Golden written from the
/// AWS API references (member names, nesting, encodings): SQS (AWS JSON 1.0), SNS (Query), EventBridge (AWS JSON 1.1).
/// Run with MISSIVE_WRITE_GOLDEN=1 to print what the code sends instead of comparing.
/// </summary>
public sealed class AwsRequestGoldenTests
{
    private const string QueueUrl = "https://sqs.eu-west-1.amazonaws.com/123456789012/orders";
    private const string TopicArn = "arn:aws:sns:eu-west-1:123456789012:orders";

    private static readonly Dictionary<string, MessageAttributeValue> Attributes = new()
    {
        ["contentType"] = MessageAttributeValue.FromString("application/cloudevents+protobuf"),
        ["count"] = MessageAttributeValue.FromNumber("3"),
        ["blob"] = MessageAttributeValue.FromBinary(new byte[] { 1, 2, 3 }),
    };

    public static TheoryData<string> Operations() => new()
    {
        "sqs-GetQueueUrl", "sqs-SendMessage", "sqs-SendMessageBatch", "sqs-ReceiveMessage", "sqs-DeleteMessage", "sqs-DeleteMessageBatch",
        "sqs-ChangeMessageVisibility", "sqs-ChangeMessageVisibilityBatch", "sns-Publish", "sns-PublishBatch", "events-PutEvents",
    };

    [Theory]
    [MemberData(nameof(Operations))]
    public async Task Operation_SendsTheGoldenRequest(string operation)
    {
        var handler = new RecordingHandler { Default = r => RecordingHandler.Answer(HttpStatusCode.OK, SuccessFor(r)) };
        using AwsTransport transport = RecordingHandler.Transport(handler, o =>
        {
            o.VerifyMessageDigests = false; // the canned answers carry no digests; digests have tests of their own
            if (operation != "sqs-GetQueueUrl")
            {
                o.QueueUrls["orders"] = new Uri(QueueUrl);
            }
        });

        await Run(transport, operation);

        RecordedRequest request = handler.Requests[^1];
        string service = operation[..operation.IndexOf('-', StringComparison.Ordinal)];
        string actual = Describe(request);
        string path = Path.Combine(RepositoryPaths.Root, "test", "Missive.Tests", "Aws", "Golden", operation + ".txt");
        if (Environment.GetEnvironmentVariable("MISSIVE_WRITE_GOLDEN") == "1")
        {
            File.WriteAllText(path, actual);
        }

        Assert.Equal(File.ReadAllText(path).ReplaceLineEndings("\n"), actual);
        Assert.Equal($"https://{service}.eu-west-1.amazonaws.com/", request.Uri.ToString());
        Assert.Contains($"/eu-west-1/{service}/aws4_request, SignedHeaders=", request.Headers["Authorization"], StringComparison.Ordinal);
    }

    private static async Task Run(AwsTransport transport, string operation)
    {
        var entry = new EventBridgeEntry { EventBusName = "orders-bus", Source = "/orders", DetailType = "Orders.OrderPlaced", Detail = "{\"id\":\"1\"}", Resources = ["arn:aws:s3:::bucket"], Time = new DateTimeOffset(2025, 11, 3, 14, 27, 9, 441, TimeSpan.Zero) };
        var send = new SqsSendRequest { QueueName = "orders", Body = "{\"id\":\"1\"}", MessageAttributes = Attributes, MessageGroupId = "customer-7", MessageDeduplicationId = "order-1", Delay = TimeSpan.FromSeconds(5) };
        var publish = new SnsPublishRequest { TopicArn = TopicArn, Message = "{\"id\":\"1\",\"note\":\"a & b = c\"}", Subject = "Order placed", MessageAttributes = Attributes, MessageGroupId = "customer-7", MessageDeduplicationId = "order-1" };
        switch (operation)
        {
            case "sqs-GetQueueUrl": await transport.GetQueueUrlAsync("orders"); break;
            case "sqs-SendMessage": await transport.SendAsync(send); break;
            case "sqs-SendMessageBatch": await transport.SendBatchAsync([send, new SqsSendRequest { QueueName = "orders", Body = "second" }]); break;
            case "sqs-ReceiveMessage": await transport.ReceiveAsync("orders", 10, TimeSpan.FromSeconds(20), TimeSpan.FromSeconds(45)); break;
            case "sqs-DeleteMessage": await transport.DeleteAsync("orders", "receipt-1"); break;
            case "sqs-DeleteMessageBatch": await transport.DeleteBatchAsync("orders", ["receipt-1", "receipt-2"]); break;
            case "sqs-ChangeMessageVisibility": await transport.ChangeVisibilityAsync("orders", "receipt-1", TimeSpan.FromSeconds(90)); break;
            case "sqs-ChangeMessageVisibilityBatch": await transport.ChangeVisibilityBatchAsync("orders", ["receipt-1", "receipt-2"], TimeSpan.Zero); break;
            case "sns-Publish": await transport.PublishAsync(publish); break;
            case "sns-PublishBatch": await transport.PublishBatchAsync([publish, new SnsPublishRequest { TopicArn = TopicArn, Message = "second" }]); break;
            case "events-PutEvents": await transport.PutEventAsync(entry); break;
            default: throw new ArgumentOutOfRangeException(nameof(operation));
        }
    }

    /// <summary>The protocol headers and the body, one per line; signing headers and the user agent are left out (they vary).</summary>
    private static string Describe(RecordedRequest request)
    {
        var lines = new List<string> { $"{request.Method} {request.Uri.AbsolutePath}" };
        foreach (string name in new[] { "Content-Type", "X-Amz-Target", "x-amzn-query-mode" })
        {
            if (request.Headers.TryGetValue(name, out string? value))
            {
                lines.Add($"{name}: {value}");
            }
        }

        lines.Add(string.Empty);
        lines.Add(request.Body);
        return string.Join("\n", lines) + "\n";
    }

    /// <summary>A minimal successful answer in each protocol's documented shape.</summary>
    private static string SuccessFor(RecordedRequest request) => request.Target switch
    {
        "AmazonSQS.GetQueueUrl" => $"{{\"QueueUrl\":\"{QueueUrl}\"}}",
        "AmazonSQS.SendMessage" => "{\"MessageId\":\"m-1\"}",
        "AmazonSQS.SendMessageBatch" => "{\"Successful\":[{\"Id\":\"0\",\"MessageId\":\"m-1\"},{\"Id\":\"1\",\"MessageId\":\"m-2\"}],\"Failed\":[]}",
        "AmazonSQS.DeleteMessageBatch" or "AmazonSQS.ChangeMessageVisibilityBatch" => "{\"Successful\":[{\"Id\":\"0\"},{\"Id\":\"1\"}],\"Failed\":[]}",
        "AWSEvents.PutEvents" => "{\"FailedEntryCount\":0,\"Entries\":[{\"EventId\":\"e-1\"}]}",
        null when request.Body.StartsWith("Action=PublishBatch", StringComparison.Ordinal)
            => "<PublishBatchResponse><PublishBatchResult><Successful><member><Id>0</Id><MessageId>m-1</MessageId></member><member><Id>1</Id><MessageId>m-2</MessageId></member></Successful><Failed/></PublishBatchResult></PublishBatchResponse>",
        null => "<PublishResponse><PublishResult><MessageId>m-1</MessageId></PublishResult></PublishResponse>",
        _ => "{}",
    };
}
