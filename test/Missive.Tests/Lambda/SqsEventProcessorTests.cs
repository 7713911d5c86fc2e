using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text;
using System.Text.Json;
using System.Text.Json.Nodes;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;
using Missive.Bus;
using Missive.InMemory;
using Missive.Json;
using Missive.Lambda;
using Missive.Serialization;
using Missive.Tests.Infrastructure;
using Missive.Transport;

namespace Missive.Tests.Lambda;

/// <summary>
/// The Lambda SQS event processor, fed the event shapes of the AWS Lambda documentation
/// (https://docs.aws.amazon.com/lambda/latest/dg/with-sqs.html), answering with the documented partial batch response.
/// </summary>
public sealed class SqsEventProcessorTests
{
    /// <summary>The example standard-queue event of the Lambda documentation: two records whose bodies are plain text.</summary>
    private const string DocumentationEvent = """
        {
            "Records": [
                {
                    "messageId": "059f36b4-87a3-44ab-83d2-661975830a7d",
                    "receiptHandle": "AQEBwJnKyrHigUMZj6rYigCgxlaS3SLy0a...",
                    "body": "Test message.",
                    "attributes": {
                        "ApproximateReceiveCount": "1",
                        "SentTimestamp": "1545082649183",
                        "SenderId": "AIDAIENQZJOLO23YVJ4VO",
                        "ApproximateFirstReceiveTimestamp": "1545082649185"
                    },
                    "messageAttributes": {},
                    "md5OfBody": "e4e68fb7bd0e697a0ae8f1bb342846b3",
                    "eventSource": "aws:sqs",
                    "eventSourceARN": "arn:aws:sqs:us-east-2:123456789012:my-queue",
                    "awsRegion": "us-east-2"
                },
                {
                    "messageId": "2e1424d4-f796-459a-8184-9c92662be6da",
                    "receiptHandle": "AQEBzWwaftRI0KuVm4tP+/7q1rGgNqicHq...",
                    "body": "Test message.",
                    "attributes": {
                        "ApproximateReceiveCount": "1",
                        "SentTimestamp": "1545082650636",
                        "SenderId": "AIDAIENQZJOLO23YVJ4VO",
                        "ApproximateFirstReceiveTimestamp": "1545082650649"
                    },
                    "messageAttributes": {},
                    "md5OfBody": "e4e68fb7bd0e697a0ae8f1bb342846b3",
                    "eventSource": "aws:sqs",
                    "eventSourceARN": "arn:aws:sqs:us-east-2:123456789012:my-queue",
                    "awsRegion": "us-east-2"
                }
            ]
        }
        """;

    [Fact]
    public async Task TheDocumentationsEvent_OfPlainTextBodies_IsTwoFailures_InTheDocumentedResponseShape()
    {
        using ServiceProvider services = Services(new Handled());

        SqsBatchResponse response = await services.GetRequiredService<SqsEventProcessor>().ProcessAsync(Encoding.UTF8.GetBytes(DocumentationEvent));

        Assert.Equal(
            """{"batchItemFailures":[{"itemIdentifier":"059f36b4-87a3-44ab-83d2-661975830a7d"},{"itemIdentifier":"2e1424d4-f796-459a-8184-9c92662be6da"}]}""",
            response.ToString());
    }

    [Fact]
    public async Task AMixedBatch_ReportsExactlyTheRecordsThatWereNotHandled_AndHandlesTheRestWithTheirMetadata()
    {
        var handled = new Handled();
        using ServiceProvider services = Services(handled);
        (string raw, string sns, string eventBridge) = await Bodies(services, "ORD-OK");
        var records = new JsonArray
        {
            Record("raw", raw, receiveCount: 3, attributes: new JsonObject { ["tenant"] = new JsonObject { ["stringValue"] = "acme", ["stringListValues"] = new JsonArray(), ["binaryListValues"] = new JsonArray(), ["dataType"] = "String" } }),
            Record("sns", sns),
            Record("eventbridge", eventBridge),
            Record("fails", raw.Replace("ORD-OK", "ORD-FAIL", StringComparison.Ordinal)),
            Record("unreadable", "{\"not\":\"an envelope\""),
            Record("bad-attribute", raw, attributes: new JsonObject { ["blob"] = new JsonObject { ["binaryValue"] = "not base64!", ["dataType"] = "Binary" } }),
            Record("unregistered", raw.Replace(TestSerializers.OrderType, "nobody.registers.this", StringComparison.Ordinal)),
        };

        SqsBatchResponse response = await services.GetRequiredService<SqsEventProcessor>().ProcessAsync(Event(records));

        Assert.Equal(["fails", "unreadable", "bad-attribute", "unregistered"], response.BatchItemFailures.Select(f => f.ItemIdentifier).ToArray());
        Assert.Equal(["eventbridge", "raw", "sns"], handled.Ids.Order(StringComparer.Ordinal).ToArray());
        MessageEnvelope<Order> first = handled.Envelopes["raw"];
        Assert.Equal("raw", first.SqsMetadata!.MessageId);
        Assert.Equal(3, first.SqsMetadata.ApproximateReceiveCount);
        Assert.Equal("acme", first.SqsMetadata.MessageAttributes["tenant"].StringValue);
        Assert.NotNull(handled.Envelopes["sns"].SnsMetadata);
        Assert.NotNull(handled.Envelopes["eventbridge"].EventBridgeMetadata);
    }

    [Fact]
    public async Task AFifoBatch_StopsAtTheFirstFailure_AndReportsItAndEveryRecordAfterIt()
    {
        var handled = new Handled();
        using ServiceProvider services = Services(handled);
        (string raw, _, _) = await Bodies(services, "ORD-OK");
        const string Arn = "arn:aws:sqs:us-east-2:123456789012:orders.fifo";
        var records = new JsonArray
        {
            Record("1", raw, arn: Arn, group: "g"),
            Record("2", raw.Replace("ORD-OK", "ORD-FAIL", StringComparison.Ordinal), arn: Arn, group: "g"),
            Record("3", raw, arn: Arn, group: "g"),
        };

        using JsonDocument document = JsonDocument.Parse(Event(records));
        SqsBatchResponse response = await services.GetRequiredService<SqsEventProcessor>().ProcessAsync(document.RootElement);

        Assert.Equal(["2", "3"], response.BatchItemFailures.Select(f => f.ItemIdentifier).ToArray());
        Assert.Equal(["1"], handled.Ids);
    }

    [Fact]
    public async Task AFifoBatch_AfterAFailureInAGroup_ReportsTheRestOfThatGroup_AndHandlesTheOtherGroupsInOrder()
    {
        var handled = new Handled();
        using ServiceProvider services = Services(handled, bus => bus.ConfigureLambdaProcessor(o => o.MaxConcurrency = 4));
        (string raw, _, _) = await Bodies(services, "ORD-OK");
        string failing = raw.Replace("ORD-OK", "ORD-FAIL", StringComparison.Ordinal);
        const string Arn = "arn:aws:sqs:us-east-2:123456789012:orders.fifo";
        var records = new JsonArray
        {
            Record("g1", raw, arn: Arn, group: "g"),
            Record("h1", raw, arn: Arn, group: "h"),
            Record("g2", failing, arn: Arn, group: "g"),
            Record("h2", raw, arn: Arn, group: "h"),
            Record("g3", raw, arn: Arn, group: "g"),
            Record("h3", raw, arn: Arn, group: "h"),
        };

        using JsonDocument document = JsonDocument.Parse(Event(records));
        SqsBatchResponse response = await services.GetRequiredService<SqsEventProcessor>().ProcessAsync(document.RootElement);

        Assert.Equal(["g2", "g3"], response.BatchItemFailures.Select(f => f.ItemIdentifier).ToArray());
        Assert.Equal(["g1"], handled.Order.Where(id => id[0] == 'g'));
        Assert.Equal(["h1", "h2", "h3"], handled.Order.Where(id => id[0] == 'h'));
    }

    [Fact]
    public async Task ADeadLetterOutcome_SendsTheRecordToTheDeadLetterQueue_AndReportsItHandled()
    {
        using ServiceProvider services = Services(new Handled(), bus => bus
            .AddFallbackHandler<DeadLetterIt>()
            .UseInMemoryBroker(b => b.CreateQueue("orders-dlq"))
            .ConfigureLambdaProcessor(o => o.DeadLetterQueue = "orders-dlq"));
        (string raw, _, _) = await Bodies(services, "ORD-OK");
        string unregistered = raw.Replace(TestSerializers.OrderType, "nobody.registers.this", StringComparison.Ordinal);

        SqsBatchResponse response = await services.GetRequiredService<SqsEventProcessor>().ProcessAsync(new MemoryStream(Event([Record("x", unregistered)])));

        Assert.Empty(response.BatchItemFailures);
        Assert.Equal(unregistered, services.GetRequiredService<InMemoryBroker>().GetQueue("orders-dlq").PeekBodies().Single());
    }

    [Theory]
    [InlineData("[]")]
    [InlineData("{\"records\":[]}")]
    [InlineData("{\"Records\":[{\"body\":\"no id\"}]}")]
    [InlineData("not json")]
    public async Task AnInputThatIsNotAnSqsEvent_Throws_SoLambdaRetriesTheWholeBatch(string input)
    {
        using ServiceProvider services = Services(new Handled());

        await Assert.ThrowsAsync<ArgumentException>(() => services.GetRequiredService<SqsEventProcessor>().ProcessAsync(Encoding.UTF8.GetBytes(input)));
    }

    [Fact]
    public async Task TheLambdaSample_ShipsTheGoodOrder_AndReportsTheOther()
    {
        var map = new MessageTypeMap(new SerializationOptions { JsonSerializerContext = LambdaSqs.FunctionJsonContext.Default });
        map.Add<LambdaSqs.OrderPlaced>("orders.placed");
        using var serializer = new Utf8JsonEnvelopeSerializer(map);
        var factory = new EnvelopeFactory(map, "/shop");
        string good = serializer.SerializeToString(factory.CreateEnvelope(new LambdaSqs.OrderPlaced("ORD-1", 12.5m)));
        string zero = serializer.SerializeToString(factory.CreateEnvelope(new LambdaSqs.OrderPlaced("ORD-2", 0m)));
        JsonNode sqsEvent = JsonNode.Parse(DocumentationEvent)!;
        sqsEvent["Records"]![0]!["body"] = good;
        sqsEvent["Records"]![1]!["body"] = zero;

        Stream output = await new LambdaSqs.OrdersFunction().HandleAsync(new MemoryStream(Encoding.UTF8.GetBytes(sqsEvent.ToJsonString())));

        using var reader = new StreamReader(output);
        Assert.Equal("""{"batchItemFailures":[{"itemIdentifier":"2e1424d4-f796-459a-8184-9c92662be6da"}]}""", await reader.ReadToEndAsync());
    }

    private static ServiceProvider Services(Handled handled, Action<MessageBusBuilder>? configure = null)
    {
        var services = new ServiceCollection();
        services.AddSingleton(handled);
        services.AddMessageBus(bus =>
        {
            bus.AddMessageType<Order>(TestSerializers.OrderType)
                .ConfigureSerialization(o => o.JsonSerializerContext = TestJsonContext.Default)
                .AddHandler<Order, RecordingHandler>();
            configure?.Invoke(bus);
        });
        return services.BuildServiceProvider();
    }

    /// <summary>The bodies the three ways an envelope reaches SQS: raw, in an SNS notification, in an EventBridge event (made by the in-memory broker).</summary>
    private static async Task<(string Raw, string Sns, string EventBridge)> Bodies(IServiceProvider services, string orderId)
    {
        var broker = new InMemoryBroker();
        broker.CreateQueue("q");
        broker.CreateTopic("t");
        broker.Subscribe("t", "q");
        broker.CreateEventBus("b");
        broker.AddRule("b", "q");
        var writer = new OutboundMessageWriter(services.GetRequiredService<IEnvelopeSerializerProvider>());
        Order order = Orders.Create(1);
        order.OrderId = orderId;
        MessageEnvelope<Order> envelope = services.GetRequiredService<IEnvelopeFactory>().CreateEnvelope(order);
        await broker.SendAsync(writer.ToSqs(envelope, "q"));
        await broker.PublishAsync(writer.ToSns(envelope, "t"));
        await broker.PutEventAsync(writer.ToEventBridge(envelope, "b"));
        var bodies = (await broker.ReceiveAsync("q", 10, TimeSpan.Zero)).Select(m => m.Body).ToList();
        return (bodies.Single(b => b.StartsWith("{\"id\"", StringComparison.Ordinal)), bodies.Single(b => b.Contains("\"Type\"", StringComparison.Ordinal)), bodies.Single(b => b.Contains("\"detail-type\"", StringComparison.Ordinal)));
    }

    private static JsonObject Record(string id, string body, int receiveCount = 1, JsonObject? attributes = null, string arn = "arn:aws:sqs:us-east-2:123456789012:my-queue", string? group = null)
    {
        var system = new JsonObject
        {
            ["ApproximateReceiveCount"] = receiveCount.ToString(System.Globalization.CultureInfo.InvariantCulture),
            ["SentTimestamp"] = "1545082649183",
            ["SenderId"] = "AIDAIENQZJOLO23YVJ4VO",
            ["ApproximateFirstReceiveTimestamp"] = "1545082649185",
        };
        if (group is not null)
        {
            system["MessageGroupId"] = group;
            system["SequenceNumber"] = "18849496460467696128";
            system["MessageDeduplicationId"] = id;
        }

        return new JsonObject
        {
            ["messageId"] = id,
            ["receiptHandle"] = "AQEB" + id,
            ["body"] = body,
            ["attributes"] = system,
            ["messageAttributes"] = attributes ?? new JsonObject(),
            ["md5OfBody"] = "e4e68fb7bd0e697a0ae8f1bb342846b3",
            ["eventSource"] = "aws:sqs",
            ["eventSourceARN"] = arn,
            ["awsRegion"] = "us-east-2",
        };
    }

    private static byte[] Event(JsonArray records) => Encoding.UTF8.GetBytes(new JsonObject { ["Records"] = records }.ToJsonString());

    private sealed class Handled
    {
        public ConcurrentDictionary<string, MessageEnvelope<Order>> Envelopes { get; } = new();

        public string[] Ids => Envelopes.Keys.ToArray();

        /// <summary>Gets the message ids in the order their handlers ran.</summary>
        public ConcurrentQueue<string> Order { get; } = new();
    }

    private sealed class RecordingHandler(Handled handled) : IMessageHandler<Order>
    {
        public Task HandleAsync(MessageEnvelope<Order> envelope, CancellationToken cancellationToken)
        {
            if (envelope.Message.OrderId == "ORD-FAIL")
            {
                throw new InvalidOperationException("this order fails");
            }

            handled.Envelopes[envelope.SqsMetadata!.MessageId] = envelope;
            handled.Order.Enqueue(envelope.SqsMetadata.MessageId);
            return Task.CompletedTask;
        }
    }

    private sealed class DeadLetterIt : IFallbackMessageHandler
    {
        public Task<HandleOutcome> HandleAsync(MessageEnvelope<UnregisteredMessage> envelope, CancellationToken cancellationToken) => Task.FromResult(HandleOutcome.DeadLetter);
    }
}
