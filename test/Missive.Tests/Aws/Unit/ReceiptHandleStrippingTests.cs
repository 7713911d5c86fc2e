using System;
using System.Linq;
using System.Net;
using System.Text.Json.Nodes;
using System.Threading.Tasks;
using Missive.Aws;

namespace Missive.Tests.Aws.Unit;

/// <summary>
/// A receipt handle that carries a payload location (the bus's receive with <c>DeleteAfterHandling</c>, in Java's
/// extended client's format) reaches SQS as SQS issued it, on both SQS clients and every call that takes a handle.
/// </summary>
public sealed class ReceiptHandleStrippingTests
{
    private const string QueueUrl = "https://sqs.eu-west-1.amazonaws.com/123456789012/orders";
    private const string SqsHandle = "AQEBzWwaftRI0KuVm4tP+/7q1rGg==";
    private const string Marked = "-..s3BucketName..-missive-payloads-..s3BucketName..--..s3Key..-0b1d6ef0-1d0e-4bd2-9d34-1a7dc8e5b3a4-..s3Key..-" + SqsHandle;

    [Theory]
    [InlineData("built-in")]
    [InlineData("sdk")]
    public async Task EveryCallThatTakesAHandle_SendsTheHandleSqsIssued(string client)
    {
        var handler = new RecordingHandler
        {
            Default = request => RecordingHandler.Json(HttpStatusCode.OK, request.Headers["X-Amz-Target"].EndsWith("Batch", StringComparison.Ordinal) ? "{\"Successful\":[{\"Id\":\"0\"}],\"Failed\":[]}" : "{}", ("x-amzn-RequestId", "req-1")),
        };
        using AwsTransport transport = Transport(client, handler);

        Assert.True(await transport.DeleteAsync("orders", Marked));
        Assert.True(await transport.ChangeVisibilityAsync("orders", Marked, TimeSpan.FromSeconds(30)));
        Assert.True((await transport.DeleteBatchAsync("orders", [Marked])).Single().Succeeded);
        Assert.True((await transport.ChangeVisibilityBatchAsync("orders", [Marked], TimeSpan.FromSeconds(30))).Single().Succeeded);

        Assert.Equal(4, handler.Requests.Count);
        Assert.All(handler.Requests, r => Assert.Equal(SqsHandle, HandleIn(r.Body)));
    }

    /// <summary>The receipt handle a request gives: its own, or its one entry's.</summary>
    private static string? HandleIn(string body)
    {
        JsonNode root = JsonNode.Parse(body)!;
        return (root["ReceiptHandle"] ?? root["Entries"]![0]!["ReceiptHandle"])!.GetValue<string>();
    }

    private static AwsTransport Transport(string client, RecordingHandler handler)
        => client == "built-in"
            ? RecordingHandler.Transport(handler, o => o.QueueUrls["orders"] = new Uri(QueueUrl))
            : SdkHttpClients.SqsTransport(handler, "orders", QueueUrl);
}
