using System;
using System.Collections.Generic;
using System.Linq;
using System.Net;
using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Missive.Aws;
using Missive.Tests.Infrastructure;

namespace Missive.Tests.Aws.Unit;

/// <summary>
/// <see cref="AwsTransportOptions.VerifyResourcesAtStartup"/> against an endpoint scripted as AWS documents its answers
/// (GetQueueUrl, GetQueueAttributes, GetTopicAttributes, DescribeEventBus, and their errors): every resource asked about
/// once, every problem one line of the startup exception with what to check, nothing asked when it is off.
/// </summary>
public sealed class ResourceVerificationTests
{
    private const string Account = "https://sqs.eu-west-1.amazonaws.com/123456789012/";
    private const string TopicArn = "arn:aws:sns:eu-west-1:123456789012:";

    [Fact]
    public async Task ResourcesThatExistAndFit_LetTheHostStart_EachAskedAboutOnce()
    {
        var aws = new ScriptedAws();
        using IHost host = Build(aws, verify: true);

        await host.StartAsync();
        await host.StopAsync();

        string[] expected =
        [
            "GetQueueUrl billing", "GetQueueUrl billing-dlq", "GetQueueUrl payments.fifo", "GetQueueUrl shipments",
            "GetQueueAttributes billing", "GetQueueAttributes billing-dlq", "GetQueueAttributes payments.fifo", "GetQueueAttributes shipments",
            "GetTopicAttributes orders", "DescribeEventBus audit",
        ];
        Assert.Equal(expected.Order(StringComparer.Ordinal), aws.Calls.Where(c => !c.StartsWith("ReceiveMessage", StringComparison.Ordinal)).Order(StringComparer.Ordinal));
    }

    [Fact]
    public async Task EveryMissingResource_IsALineOfTheStartupException_WithWhatToCheck()
    {
        var aws = new ScriptedAws { MissingQueue = "shipments", FifoWithoutContentDeduplication = true, MissingTopic = true, MissingBus = true };
        using IHost host = Build(aws, verify: true);

        var error = await Assert.ThrowsAsync<MessageBusConfigurationException>(() => host.StartAsync());

        // The FIFO queue that deduplicates only by id is no problem: a publish may give its id in PublishOptions.
        Assert.Equal(3, error.Problems.Count);
        string queue = Assert.Single(error.Problems, p => p.StartsWith("The queue 'shipments' could not be verified: SQS GetQueueUrl on queue 'shipments' failed", StringComparison.Ordinal));
        Assert.Contains("region", queue, StringComparison.Ordinal);
        Assert.Contains("QueueUrls", queue, StringComparison.Ordinal);
        Assert.DoesNotContain(error.Problems, p => p.Contains("payments.fifo", StringComparison.Ordinal));
        string topic = Assert.Single(error.Problems, p => p.StartsWith("The topic 'orders' could not be verified: SNS GetTopicAttributes on topic 'orders' (" + TopicArn + "orders)", StringComparison.Ordinal));
        Assert.Contains("TopicArns", topic, StringComparison.Ordinal);
        string bus = Assert.Single(error.Problems, p => p.StartsWith("The event bus 'audit' could not be verified: EventBridge DescribeEventBus on event bus 'audit'", StringComparison.Ordinal));
        Assert.Contains("signing region eu-west-1", bus, StringComparison.Ordinal);
        Assert.DoesNotContain(aws.Calls, c => c.StartsWith("ReceiveMessage", StringComparison.Ordinal)); // no poller started
    }

    [Fact]
    public async Task WhenOff_NothingIsAskedAtStartup()
    {
        var aws = new ScriptedAws { MissingQueue = "shipments", MissingTopic = true, MissingBus = true };
        using IHost host = Build(aws, verify: false, pollers: false);

        await host.StartAsync();
        await host.StopAsync();

        Assert.Empty(aws.Calls);
    }

    private static IHost Build(ScriptedAws aws, bool verify, bool pollers = true)
    {
        HostApplicationBuilder builder = Host.CreateApplicationBuilder();
        builder.Logging.ClearProviders();
        builder.Services.AddMessageBus(bus =>
        {
            bus.AddMessageType<Order>(TestSerializers.OrderType)
                .AddMessageType<Node>("test.node")
                .AddMessageType<Dictionary<string, int>>("test.counts")
                .AddMessageType<byte[]>("test.blob")
                .ConfigureSerialization(o => o.JsonSerializerContext = TestJsonContext.Default)
                .AddSqsPublisher<Order>("payments.fifo")
                .AddFifoIds<Order>(order => order.OrderId)
                .AddSqsPublisher<Node>("shipments")
                .UseAws(o =>
                {
                    o.Region = "eu-west-1";
                    o.Credentials = AwsEmulator.Credentials;
                    o.TopicArns["orders"] = TopicArn + "orders";
                    o.VerifyResourcesAtStartup = verify;
                    o.MaxAttempts = 1;
                });
            bus.AddSnsPublisher<Dictionary<string, int>>("orders").AddEventBridgePublisher<byte[]>("audit");
            if (pollers)
            {
                bus.AddQueuePoller("billing", o => o.DeadLetterQueue = "billing-dlq");
            }
        });
        foreach (string service in new[] { "sqs", "sns", "events" })
        {
            builder.Services.AddHttpClient(MessageBusBuilderAwsExtensions.HttpClientNamePrefix + service).ConfigurePrimaryHttpMessageHandler(() => aws.Handler);
        }

        return builder.Build();
    }

    /// <summary>Answers as the AWS API references show: the JSON protocols' <c>__type</c> errors, SNS's XML, and the query-compatible SQS error header.</summary>
    private sealed class ScriptedAws
    {
        public ScriptedAws() => Handler = new RecordingHandler { Default = Answer };

        public RecordingHandler Handler { get; }

        public string? MissingQueue { get; init; }

        public bool FifoWithoutContentDeduplication { get; init; }

        public bool MissingTopic { get; init; }

        public bool MissingBus { get; init; }

        public List<string> Calls { get; } = [];

        private System.Net.Http.HttpResponseMessage Answer(RecordedRequest request)
        {
            string operation = request.Target?.Split('.')[1] ?? request.Body.Split('&')[0].Split('=')[1];
            string subject = operation switch
            {
                "GetQueueUrl" => Between(request.Body, "\"QueueName\":\"", "\""),
                "GetQueueAttributes" or "ReceiveMessage" => Between(request.Body, "\"QueueUrl\":\"" + Account, "\""),
                "GetTopicAttributes" => Uri.UnescapeDataString(Between(request.Body + "&", "TopicArn=", "&")).Split(':')[^1],
                "DescribeEventBus" => Between(request.Body, "\"Name\":\"", "\""),
                _ => "?",
            };
            lock (Calls)
            {
                Calls.Add(operation + " " + subject);
            }

            return (operation, subject) switch
            {
                ("GetQueueUrl", _) when subject == MissingQueue => RecordingHandler.Json(HttpStatusCode.BadRequest, "{\"__type\":\"com.amazonaws.sqs#QueueDoesNotExist\",\"message\":\"The specified queue does not exist.\"}", ("x-amzn-query-error", "AWS.SimpleQueueService.NonExistentQueue;Sender")),
                ("GetQueueUrl", _) => RecordingHandler.Json(HttpStatusCode.OK, "{\"QueueUrl\":\"" + Account + subject + "\"}"),
                ("GetQueueAttributes", "payments.fifo") => RecordingHandler.Json(HttpStatusCode.OK, "{\"Attributes\":{\"FifoQueue\":\"true\",\"ContentBasedDeduplication\":\"" + (FifoWithoutContentDeduplication ? "false" : "true") + "\"}}"),
                ("GetQueueAttributes", _) => RecordingHandler.Json(HttpStatusCode.OK, "{\"Attributes\":{}}"),
                ("GetTopicAttributes", _) when MissingTopic => RecordingHandler.Answer(HttpStatusCode.NotFound, "<ErrorResponse xmlns=\"http://sns.amazonaws.com/doc/2010-03-31/\"><Error><Type>Sender</Type><Code>NotFound</Code><Message>Topic does not exist</Message></Error><RequestId>r-1</RequestId></ErrorResponse>"),
                ("GetTopicAttributes", _) => RecordingHandler.Answer(HttpStatusCode.OK, "<GetTopicAttributesResponse xmlns=\"http://sns.amazonaws.com/doc/2010-03-31/\"><GetTopicAttributesResult><Attributes><entry><key>TopicArn</key><value>" + TopicArn + "orders</value></entry></Attributes></GetTopicAttributesResult><ResponseMetadata><RequestId>r-2</RequestId></ResponseMetadata></GetTopicAttributesResponse>"),
                ("DescribeEventBus", _) when MissingBus => RecordingHandler.Json(HttpStatusCode.BadRequest, "{\"__type\":\"ResourceNotFoundException\",\"message\":\"Event bus audit does not exist.\"}"),
                ("DescribeEventBus", _) => RecordingHandler.Json(HttpStatusCode.OK, "{\"Name\":\"audit\",\"Arn\":\"arn:aws:events:eu-west-1:123456789012:event-bus/audit\"}"),
                _ => RecordingHandler.Json(HttpStatusCode.OK, "{\"Messages\":[]}"),
            };
        }

        private static string Between(string text, string before, string after)
        {
            int start = text.IndexOf(before, StringComparison.Ordinal);
            if (start < 0)
            {
                return "?";
            }

            start += before.Length;
            return text[start..text.IndexOf(after, start, StringComparison.Ordinal)];
        }
    }
}
