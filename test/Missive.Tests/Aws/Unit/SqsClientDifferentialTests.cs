using System;
using System.Collections.Generic;
using System.Linq;
using System.Net;
using System.Text.Json.Nodes;
using System.Threading.Tasks;
using Amazon.SQS;
using Missive.Aws;
using Missive.Transport;

namespace Missive.Tests.Aws.Unit;

/// <summary>
/// The built-in SQS client held to what the AWS SDK sends: the same logical calls through both clients to one recording
/// endpoint, and each pair of requests compared (the operation, the protocol's headers, every parameter of the JSON
/// body as JSON values, the message attributes and their types) and both signed for the same credential scope. (The
/// signatures themselves are checked elsewhere: the SigV4 suite, and the proxy in front of every emulator.)
/// </summary>
public sealed class SqsClientDifferentialTests(Xunit.Abstractions.ITestOutputHelper output)
{
    private const string QueueUrl = "https://sqs.eu-west-1.amazonaws.com/123456789012/orders";
    private const string FifoUrl = "https://sqs.eu-west-1.amazonaws.com/123456789012/orders.fifo";

    public static TheoryData<string> Calls => new() { "SendMessage", "SendMessageFifo", "SendMessageBatch", "ReceiveMessage", "DeleteMessage", "DeleteMessageBatch", "ChangeMessageVisibility", "ChangeMessageVisibilityBatch" };

    [Theory]
    [MemberData(nameof(Calls))]
    public async Task TheBuiltInClient_SendsWhatTheSdkSends(string call)
    {
        RecordedRequest builtIn = Assert.Single(await RecordAsync(call, sdk: false));
        RecordedRequest sdk = Assert.Single(await RecordAsync(call, sdk: true));

        Assert.Equal(sdk.Target, builtIn.Target);
        Assert.Equal(sdk.Method, builtIn.Method);
        Assert.Equal(sdk.Headers["Content-Type"].Split(';')[0], builtIn.Headers["Content-Type"].Split(';')[0]);
        JsonNode expected = Normalize(JsonNode.Parse(sdk.Body)!);
        JsonNode actual = Normalize(JsonNode.Parse(builtIn.Body)!);
        output.WriteLine($"{builtIn.Target}: {actual.ToJsonString()}");
        Assert.True(JsonNode.DeepEquals(expected, actual), $"{call}: the built-in client sent\n{actual.ToJsonString()}\nthe SDK sent\n{expected.ToJsonString()}");
        Assert.Contains("/eu-west-1/sqs/aws4_request", builtIn.Headers["Authorization"], StringComparison.Ordinal);
        Assert.Contains("/eu-west-1/sqs/aws4_request", sdk.Headers["Authorization"], StringComparison.Ordinal);
    }

    /// <summary>One logical call through one client, recorded.</summary>
    private static async Task<List<RecordedRequest>> RecordAsync(string call, bool sdk)
    {
        var handler = new RecordingHandler { Default = Answer };
        using AmazonSQSClient? client = sdk
            ? new AmazonSQSClient(AwsEmulator.Credentials, new AmazonSQSConfig { RegionEndpoint = Amazon.RegionEndpoint.EUWest1, MaxErrorRetry = 0, HttpClientFactory = new SdkHttpClients(handler) })
            : null;
        using AwsTransport transport = RecordingHandler.Transport(handler, o =>
        {
            o.QueueUrls["orders"] = new Uri(QueueUrl);
            o.QueueUrls["orders.fifo"] = new Uri(FifoUrl);
            o.VerifyMessageDigests = false; // the answers carry no digests; the requests are what is compared
            o.SqsClient = client;
        });
        Assert.Equal(sdk, transport.UsesSdkSqsClient);
        switch (call)
        {
            case "SendMessage":
                await transport.SendAsync(Request("orders", "body with \"quotes\", Zoë 東京 and a tab\t"));
                break;
            case "SendMessageFifo":
                await transport.SendAsync(new SqsSendRequest { QueueName = "orders.fifo", Body = "fifo", MessageGroupId = "g-1", MessageDeduplicationId = "d-1" });
                break;
            case "SendMessageBatch":
                await transport.SendBatchAsync([Request("orders", "first"), Request("orders", "second", TimeSpan.FromSeconds(30))]);
                break;
            case "ReceiveMessage":
                await transport.ReceiveAsync("orders", 10, TimeSpan.FromSeconds(20), TimeSpan.FromSeconds(45));
                break;
            case "DeleteMessage":
                await transport.DeleteAsync("orders", "receipt-1");
                break;
            case "DeleteMessageBatch":
                await transport.DeleteBatchAsync("orders", ["receipt-1", "receipt-2"]);
                break;
            case "ChangeMessageVisibility":
                await transport.ChangeVisibilityAsync("orders", "receipt-1", TimeSpan.FromSeconds(90));
                break;
            default:
                await transport.ChangeVisibilityBatchAsync("orders", ["receipt-1", "receipt-2"], TimeSpan.FromSeconds(90));
                break;
        }

        return handler.Requests;
    }

    private static SqsSendRequest Request(string queue, string body, TimeSpan delay = default) => new()
    {
        QueueName = queue,
        Body = body,
        Delay = delay,
        MessageAttributes = new Dictionary<string, MessageAttributeValue>
        {
            ["contentType"] = MessageAttributeValue.FromString("application/cloudevents+json"),
            ["count"] = MessageAttributeValue.FromNumber("12"),
            ["blob"] = MessageAttributeValue.FromBinary(new byte[] { 0, 1, 254, 255 }),
            ["typed"] = new MessageAttributeValue { DataType = "Number.int", StringValue = "7" },
        },
    };

    /// <summary>An answer for each operation as the SQS reference shows it: every entry successful, no messages.</summary>
    private static System.Net.Http.HttpResponseMessage Answer(RecordedRequest request)
    {
        string target = request.Target ?? string.Empty;
        JsonNode? body = string.IsNullOrEmpty(request.Body) ? null : JsonNode.Parse(request.Body);
        string answer = target switch
        {
            "AmazonSQS.SendMessage" => "{\"MessageId\":\"m-1\"}",
            "AmazonSQS.ReceiveMessage" => "{\"Messages\":[]}",
            "AmazonSQS.SendMessageBatch" or "AmazonSQS.DeleteMessageBatch" or "AmazonSQS.ChangeMessageVisibilityBatch" =>
                new JsonObject
                {
                    ["Successful"] = new JsonArray([.. body!["Entries"]!.AsArray().Select(e => (JsonNode)new JsonObject { ["Id"] = e!["Id"]!.GetValue<string>(), ["MessageId"] = "m-" + e["Id"]!.GetValue<string>() })]),
                    ["Failed"] = new JsonArray(),
                }.ToJsonString(),
            _ => "{}",
        };
        return RecordingHandler.Json(HttpStatusCode.OK, answer, ("x-amzn-RequestId", "req-1"));
    }

    /// <summary>A body with its objects' members in name order and the attribute names' list sorted, so that order alone does not differ.</summary>
    private static JsonNode Normalize(JsonNode node) => node switch
    {
        JsonObject o => new JsonObject(o.OrderBy(p => p.Key, StringComparer.Ordinal).Select(p => KeyValuePair.Create(p.Key, p.Value is null ? null : Normalize(p.Value)))),
        JsonArray a => new JsonArray([.. a.Select(i => i is null ? null : Normalize(i))]),
        _ => node.DeepClone(),
    };
}
