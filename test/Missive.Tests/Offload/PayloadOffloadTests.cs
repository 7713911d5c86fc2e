using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Linq;
using System.Text;
using System.Text.Json.Nodes;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Missive.Bus;
using Missive.InMemory;
using Missive.Lambda;
using Missive.Offload;
using Missive.Serialization;
using Missive.Tests.Infrastructure;
using Missive.Transport;

namespace Missive.Tests.Offload;

/// <summary>
/// Messages larger than their service takes, through the bus with <c>UsePayloadOffload</c> on the in-memory broker and
/// store: a 5 MiB message through SQS, SNS with and without raw delivery, and the Lambda processor; what the extended
/// clients write, read; what they read, written; pointers that must not be followed, refused into the unreadable path;
/// a send that fails after its upload, reported with the payload's location; the lifecycle choice.
/// </summary>
public sealed class PayloadOffloadTests
{
    private const string DocumentType = "test.document";
    private static readonly string FiveMiB = new('x', 5 * 1024 * 1024);

    [Fact]
    public async Task TheStartupLine_NamesTheOffloadingTransport_AndTheStore()
    {
        var logs = new CapturingLoggerProvider();
        using IHost host = Build(new InMemoryPayloadStore("large-docs"), new Handled(), "sqs", logs: logs);

        await host.StartAsync();
        await host.StopAsync();

        string line = Assert.Single(logs.Entries, e => e.EventId == 2026).Text;
        Assert.Contains("the in-memory broker", line, StringComparison.Ordinal);
        Assert.Contains("payloads over the threshold stored in this process's memory (InMemoryPayloadStore, bucket 'large-docs')", line, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("sqs")]
    [InlineData("sns-raw")]
    [InlineData("sns-wrapped")]
    public async Task AFiveMiBMessage_TravelsAsAPointer_AndIsHandledWhole(string route)
    {
        var store = new InMemoryPayloadStore();
        var handled = new Handled();
        using IHost host = Build(store, handled, route);
        InMemoryBroker broker = host.Services.GetRequiredService<InMemoryBroker>();

        await host.Services.GetRequiredService<IMessagePublisher>().PublishAsync(FiveMiB);

        string queued = broker.GetQueue("docs").PeekBodies().Single();
        Assert.True(queued.Length < 4096, "the queue holds a pointer, not the payload");
        Assert.Contains("software.amazon.payloadoffloading.PayloadS3Pointer", queued, StringComparison.Ordinal);
        Assert.Equal(1, store.Count);
        await host.StartAsync();
        await BusTestHost.WaitUntil(() => handled.Messages.Count == 1 && broker.GetQueue("docs").Count == 0);
        await host.StopAsync();

        Assert.Equal(FiveMiB, handled.Messages.Single());
        Assert.Equal(1, store.Count); // kept: deleting is opt-in
    }

    [Theory]
    [InlineData("sqs")]
    [InlineData("sns-raw")]
    [InlineData("sns-wrapped")]
    public async Task WithDataRef_TheEnvelopeStays_ItsDataIsStored_AndTheHandlerGetsItWhole(string route)
    {
        var store = new InMemoryPayloadStore();
        var handled = new Handled();
        using IHost host = Build(store, handled, route, o => o.UseDataRef = true);
        InMemoryBroker broker = host.Services.GetRequiredService<InMemoryBroker>();

        MessageEnvelope<string> sent = await host.Services.GetRequiredService<IMessagePublisher>().PublishAsync(FiveMiB);

        string queued = broker.GetQueue("docs").PeekBodies().Single();
        Assert.True(queued.Length < 4096, "the queue holds the envelope without its data");
        Assert.Contains(sent.Id, queued, StringComparison.Ordinal);
        Assert.Matches("s3://missive-payloads/[0-9a-f-]{36}", queued);
        Assert.DoesNotContain("ExtendedPayloadSize", queued, StringComparison.Ordinal);
        await host.StartAsync();
        await BusTestHost.WaitUntil(() => handled.Messages.Count == 1 && broker.GetQueue("docs").Count == 0);
        await host.StopAsync();

        Assert.Equal(FiveMiB, handled.Messages.Single());
    }

    [Theory]
    [InlineData("sqs")]
    [InlineData("sns-raw")]
    public async Task ABatchPublish_StoresOnlyItsLargeMessages_AndEveryOneIsHandled(string route)
    {
        var store = new InMemoryPayloadStore();
        var handled = new Handled();
        using IHost host = Build(store, handled, route);
        InMemoryBroker broker = host.Services.GetRequiredService<InMemoryBroker>();

        IReadOnlyList<PublishResult<string>> results = await host.Services.GetRequiredService<IMessagePublisher>().PublishBatchAsync(["small one", FiveMiB, "small two"]);

        Assert.All(results, r => Assert.True(r.Succeeded));
        Assert.Equal(1, store.Count);
        Assert.Single(broker.GetQueue("docs").PeekBodies(), b => b.Contains("PayloadS3Pointer", StringComparison.Ordinal));
        await host.StartAsync();
        await BusTestHost.WaitUntil(() => handled.Messages.Count == 3);
        await host.StopAsync();

        Assert.Equal(["small one", "small two", FiveMiB], handled.Messages.OrderBy(m => m.Length).ThenBy(m => m, StringComparer.Ordinal));
    }

    [Fact]
    public async Task ADataRefEnvelopeFromAnotherProducer_IsHandled_WithTheDataItNames()
    {
        var store = new InMemoryPayloadStore();
        var handled = new Handled();
        using IHost host = Build(store, handled, "sqs");
        InMemoryBroker broker = host.Services.GetRequiredService<InMemoryBroker>();
        store.Put(new PayloadLocation("missive-payloads", "reports/2026-11.txt"), "the November report"u8);

        // As the CloudEvents dataref extension describes it: the event without data, and where its data lies.
        await broker.SendAsync(new SqsSendRequest { QueueName = "docs", Body = "{\"specversion\":\"1.0\",\"id\":\"r-11\",\"source\":\"/reports\",\"type\":\"test.document\",\"datacontenttype\":\"text/plain\",\"dataref\":\"s3://missive-payloads/reports/2026-11.txt\"}" });
        await host.StartAsync();
        await BusTestHost.WaitUntil(() => handled.Messages.Count == 1);
        await host.StopAsync();

        Assert.Equal("the November report", handled.Messages.Single());
    }

    [Fact]
    public async Task WhatJavasClientWrites_ByDefault_IsReadByTheLambdaProcessor()
    {
        // Java's defaults up to 2.1.2: the SQSLargePayloadSize attribute; 1.0.x's class name. The body was stored by the producer.
        var store = new InMemoryPayloadStore("java-payloads");
        var handled = new Handled();
        using IHost host = Build(store, handled, route: "sqs");
        byte[] envelope = Envelope(host.Services, "from Java");
        var location = new PayloadLocation("java-payloads", "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d");
        store.Put(location, envelope);
        var record = new JsonObject
        {
            ["messageId"] = "m-1",
            ["receiptHandle"] = "r-1",
            ["body"] = "[\"com.amazon.sqs.javamessaging.MessageS3Pointer\",{\"s3BucketName\":\"java-payloads\",\"s3Key\":\"0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d\"}]",
            ["attributes"] = new JsonObject { ["ApproximateReceiveCount"] = "1" },
            ["messageAttributes"] = new JsonObject { ["SQSLargePayloadSize"] = new JsonObject { ["stringValue"] = envelope.Length.ToString(System.Globalization.CultureInfo.InvariantCulture), ["dataType"] = "Number" } },
            ["eventSource"] = "aws:sqs",
            ["eventSourceARN"] = "arn:aws:sqs:eu-west-1:123456789012:docs",
        };
        string sqsEvent = new JsonObject { ["Records"] = new JsonArray(record) }.ToJsonString();

        SqsBatchResponse response = await host.Services.GetRequiredService<SqsEventProcessor>().ProcessAsync(Encoding.UTF8.GetBytes(sqsEvent));

        Assert.Empty(response.BatchItemFailures);
        Assert.Equal("from Java", handled.Messages.Single());
    }

    [Fact]
    public async Task InInteropMode_WhatIsWritten_IsWhatJavasClientReads()
    {
        var store = new InMemoryPayloadStore();
        using IHost host = Build(store, new Handled(), "sqs", o =>
        {
            o.OffloadAll = true;
            o.SizeAttributeName = "SQSLargePayloadSize";
            o.PointerClassName = "com.amazon.sqs.javamessaging.MessageS3Pointer";
        });
        InMemoryBroker broker = host.Services.GetRequiredService<InMemoryBroker>();

        await host.Services.GetRequiredService<IMessagePublisher>().PublishAsync("small");

        SqsMessage queued = Assert.Single(await broker.ReceiveAsync("docs", 1, TimeSpan.Zero));
        Assert.True(PayloadPointer.TryRead(Encoding.UTF8.GetBytes(queued.Body), out PayloadLocation location));
        Assert.Equal($"[\"com.amazon.sqs.javamessaging.MessageS3Pointer\",{{\"s3BucketName\":\"missive-payloads\",\"s3Key\":\"{location.Key}\"}}]", queued.Body);
        Assert.Matches("^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", location.Key);
        byte[] stored = (await store.GetAsync(location, long.MaxValue)).ToArray();
        Assert.Equal("Number", queued.MessageAttributes["SQSLargePayloadSize"].DataType);
        Assert.Equal(stored.Length.ToString(System.Globalization.CultureInfo.InvariantCulture), queued.MessageAttributes["SQSLargePayloadSize"].StringValue);
        Assert.Contains("\"data\":\"small\"", Encoding.UTF8.GetString(stored), StringComparison.Ordinal); // the whole envelope is stored
    }

    [Theory]
    [InlineData("another bucket")]
    [InlineData("missing object")]
    [InlineData("over the size limit")]
    [InlineData("a key that leaves its bucket")]
    [InlineData("a dataref to another bucket")]
    public async Task APointerThatMustNotOrCannotBeFollowed_IsUnreadable_RetriedAndDeadLettered(string problem)
    {
        var store = new CountingStore(new InMemoryPayloadStore());
        var handled = new Handled();
        var logs = new CapturingLoggerProvider();
        using IHost host = Build(store, handled, "sqs", o => o.MaxPayloadSize = problem == "over the size limit" ? 16 : o.MaxPayloadSize, logs);
        InMemoryBroker broker = host.Services.GetRequiredService<InMemoryBroker>();
        byte[] envelope = Envelope(host.Services, "secret");
        var location = new PayloadLocation(problem == "another bucket" ? "someone-elses-bucket" : "missive-payloads", problem == "a key that leaves its bucket" ? "../someone-elses-bucket/k" : "k-1");
        if (problem is "over the size limit")
        {
            store.Inner.Put(location, envelope);
        }

        await broker.SendAsync(problem == "a dataref to another bucket"
            ? new SqsSendRequest { QueueName = "docs", Body = "{\"specversion\":\"1.0\",\"id\":\"1\",\"source\":\"/s\",\"type\":\"test.document\",\"datacontenttype\":\"text/plain\",\"dataref\":\"s3://someone-elses-bucket/s3Key\"}" }
            : new SqsSendRequest
            {
                QueueName = "docs",
                Body = PayloadPointer.Write(location, PayloadPointer.ClassName),
                MessageAttributes = new Dictionary<string, MessageAttributeValue> { ["ExtendedPayloadSize"] = MessageAttributeValue.FromNumber("1000") },
            });
        await host.StartAsync();
        await BusTestHost.WaitUntil(() => broker.GetQueue("docs-dlq").Count == 1);
        await host.StopAsync();

        Assert.Empty(handled.Messages);
        Assert.Equal(problem is "missing object" or "over the size limit" ? 2 : 0, store.Gets); // never fetched from elsewhere
        Assert.Contains("s3Key", broker.GetQueue("docs-dlq").PeekBodies().Single(), StringComparison.Ordinal); // the pointer, as received
        Assert.Contains(logs.Messages, m => m.Contains("PayloadUnavailable", StringComparison.Ordinal));
        Assert.DoesNotContain(logs.Messages, m => m.Contains("secret", StringComparison.Ordinal));
    }

    [Fact]
    public async Task ASendThatFailsAfterItsUpload_SaysWhereThePayloadIs()
    {
        var store = new InMemoryPayloadStore();
        await using ServiceProvider services = new ServiceCollection()
            .AddSingleton<IPayloadStore>(store)
            .AddSingleton<IMessageTransport>(new RefusingTransport())
            .AddMessageBus(bus => bus
                .AddMessageType<string>(DocumentType)
                .ConfigureSerialization(o => o.MaxEnvelopeSize = 8 * 1024 * 1024)
                .AddSqsPublisher<string>("docs")
                .UsePayloadOffload())
            .BuildServiceProvider();

        var error = await Assert.ThrowsAsync<MessageTransportException>(() => services.GetRequiredService<IMessagePublisher>().PublishAsync(FiveMiB));

        Assert.Equal(1, store.Count);
        Assert.Contains("The payload had been stored at s3://missive-payloads/", error.Message, StringComparison.Ordinal);
        Assert.Equal("ServiceUnavailable", error.ErrorCode);
    }

    [Theory]
    [InlineData("sqs", "ExtendedPayloadSize")]
    [InlineData("sqs", "SQSLargePayloadSize")]
    [InlineData("sns-raw", "ExtendedPayloadSize")]
    public async Task ASmallMessageCarryingThePointersSizeAttribute_IsRefused_AndNothingIsSent(string route, string attribute)
    {
        // AWS's extended clients read a message with that attribute as a pointer and fail on it; Java's refuses the send.
        var store = new InMemoryPayloadStore();
        using IHost host = Build(store, new Handled(), route);
        InMemoryBroker broker = host.Services.GetRequiredService<InMemoryBroker>();
        var options = new PublishOptions { MessageAttributes = new Dictionary<string, Missive.MessageAttributeValue> { [attribute] = Missive.MessageAttributeValue.FromNumber("12") } };

        var error = await Assert.ThrowsAsync<ArgumentException>(() => host.Services.GetRequiredService<IMessagePublisher>().PublishAsync("small", options));

        Assert.Contains(attribute, error.Message, StringComparison.Ordinal);
        Assert.Equal(0, broker.GetQueue("docs").Count);
        Assert.Equal(0, store.Count);
    }

    [Theory]
    [InlineData("sqs")]
    [InlineData("sns-raw")]
    public async Task ABatchEntryCarryingThePointersSizeAttribute_IsRefusedAlone_AndItsNeighboursGo(string route)
    {
        // One entry's refusal is its own: nothing reported "may have been delivered", no payload of a neighbour orphaned.
        var store = new InMemoryPayloadStore();
        using IHost host = Build(store, new Handled(), route);
        InMemoryBroker broker = host.Services.GetRequiredService<InMemoryBroker>();
        string[] documents = [FiveMiB, "small, with the reserved attribute", "small"];
        var reserved = new PublishOptions { MessageAttributes = new Dictionary<string, Missive.MessageAttributeValue> { ["ExtendedPayloadSize"] = Missive.MessageAttributeValue.FromNumber("12") } };

        IReadOnlyList<PublishResult<string>> results = await host.Services.GetRequiredService<IMessagePublisher>()
            .PublishBatchAsync(documents, document => document.Contains("reserved", StringComparison.Ordinal) ? reserved : null);

        Assert.True(results[0].Succeeded);
        Assert.True(results[2].Succeeded);
        var refused = Assert.IsType<MessageTransportException>(results[1].Error);
        Assert.False(refused.IsTransient);
        Assert.Contains("ExtendedPayloadSize", refused.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("may have", refused.Message, StringComparison.Ordinal);
        Assert.Equal(2, broker.GetQueue("docs").Count);
        Assert.Equal(1, store.Count); // the large one's payload, which its message points to
    }

    [Fact]
    public async Task ABatchEntryWhosePayloadCannotBeStored_FailsAlone_AsNotSent()
    {
        var store = new FailingPayloadStore();
        using IHost host = Build(store, new Handled(), "sqs");
        InMemoryBroker broker = host.Services.GetRequiredService<InMemoryBroker>();

        IReadOnlyList<PublishResult<string>> results = await host.Services.GetRequiredService<IMessagePublisher>().PublishBatchAsync([FiveMiB, "small"]);

        var failed = Assert.IsType<MessageTransportException>(results[0].Error);
        Assert.Contains("was not sent", failed.Message, StringComparison.Ordinal);
        Assert.True(results[1].Succeeded);
        Assert.Equal(1, broker.GetQueue("docs").Count);
    }

    /// <summary>A store whose uploads fail with its own exception (as a credential provider's would).</summary>
    private sealed class FailingPayloadStore : IPayloadStore
    {
        public string Bucket => "missive-payloads";

        public string Description => "a failing store";

        public Task<PayloadLocation> PutAsync(ReadOnlyMemory<byte> payload, CancellationToken cancellationToken = default) => throw new InvalidOperationException("no credentials");

        public Task<ReadOnlyMemory<byte>> GetAsync(PayloadLocation location, long maxLength, CancellationToken cancellationToken = default) => throw new NotSupportedException();

        public Task DeleteAsync(PayloadLocation location, CancellationToken cancellationToken = default) => throw new NotSupportedException();
    }

    [Fact]
    public async Task DeleteAfterHandling_DeletesThePayload_OnlyOnceItsMessageIsDeleted()
    {
        var store = new InMemoryPayloadStore();
        var handled = new Handled();
        using IHost host = Build(store, handled, "sqs", o => o.DeleteAfterHandling = true);
        InMemoryBroker broker = host.Services.GetRequiredService<InMemoryBroker>();

        await host.Services.GetRequiredService<IMessagePublisher>().PublishAsync(FiveMiB);
        Assert.Equal(1, store.Count);
        await host.StartAsync();
        await BusTestHost.WaitUntil(() => handled.Messages.Count == 1 && broker.GetQueue("docs").Count == 0 && store.Count == 0);
        await host.StopAsync();

        Assert.Equal(FiveMiB, handled.Messages.Single());
    }

    /// <summary>A host with the queue 'docs' (dead-lettered to 'docs-dlq' after two receives), fed directly or by the topic 'docs-topic'.</summary>
    internal static IHost Build(IPayloadStore store, Handled handled, string route, Action<PayloadOffloadOptions>? offload = null, CapturingLoggerProvider? logs = null)
        => BusTestHost.Build(
            b =>
            {
                b.CreateQueue("docs-dlq");
                b.CreateQueue("docs", o =>
                {
                    o.DeadLetterQueue = "docs-dlq";
                    o.MaxReceiveCount = 2;
                });
                b.CreateTopic("docs-topic");
                b.Subscribe("docs-topic", "docs", rawMessageDelivery: route == "sns-raw");
            },
            bus =>
            {
                bus.AddMessageType<string>(DocumentType)
                    .ConfigureSerialization(o => o.MaxEnvelopeSize = 8 * 1024 * 1024)
                    .AddHandler<string, DocumentHandler>()
                    .AddQueuePoller("docs", o =>
                    {
                        o.WaitTime = TimeSpan.FromMilliseconds(50);
                        o.RetryDelay = TimeSpan.Zero;
                    })
                    .UsePayloadOffload(offload);
                _ = route == "sqs" ? bus.AddSqsPublisher<string>("docs") : bus.AddSnsPublisher<string>("docs-topic");
            },
            services =>
            {
                services.AddSingleton<IPayloadStore>(store);
                services.AddSingleton(handled);
            },
            logs);

    internal static byte[] Envelope(IServiceProvider services, string text)
    {
        MessageEnvelope<string> envelope = services.GetRequiredService<IEnvelopeFactory>().CreateEnvelope(text);
        return services.GetRequiredService<IEnvelopeSerializer>().SerializeToArray(envelope);
    }

    public sealed class Handled
    {
        public ConcurrentQueue<string> Messages { get; } = new();

        public ConcurrentQueue<string> ReceiptHandles { get; } = new();
    }

    public sealed class DocumentHandler(Handled handled) : IMessageHandler<string>
    {
        public Task HandleAsync(MessageEnvelope<string> envelope, CancellationToken cancellationToken)
        {
            handled.ReceiptHandles.Enqueue(envelope.SqsMetadata!.ReceiptHandle);
            handled.Messages.Enqueue(envelope.Message);
            return Task.CompletedTask;
        }
    }

    /// <summary>A store that counts its reads, to show which pointers were never followed.</summary>
    private sealed class CountingStore(InMemoryPayloadStore inner) : IPayloadStore
    {
        private int _gets;

        public InMemoryPayloadStore Inner { get; } = inner;

        public int Gets => _gets;

        public string Bucket => Inner.Bucket;

        public Task<PayloadLocation> PutAsync(ReadOnlyMemory<byte> payload, CancellationToken cancellationToken = default) => Inner.PutAsync(payload, cancellationToken);

        public Task<ReadOnlyMemory<byte>> GetAsync(PayloadLocation location, long maxLength, CancellationToken cancellationToken = default)
        {
            Interlocked.Increment(ref _gets);
            return Inner.GetAsync(location, maxLength, cancellationToken);
        }

        public Task DeleteAsync(PayloadLocation location, CancellationToken cancellationToken = default) => Inner.DeleteAsync(location, cancellationToken);
    }

    /// <summary>A transport whose sends fail as a 503 would, after the payload was stored.</summary>
    private sealed class RefusingTransport : IMessageTransport
    {
        public Task<string> SendAsync(SqsSendRequest request, CancellationToken cancellationToken = default)
            => throw new MessageTransportException("SQS SendMessage failed: HTTP 503.") { ErrorCode = "ServiceUnavailable", FailureKind = TransportFailureKind.Transient };

        public Task<string> PublishAsync(SnsPublishRequest request, CancellationToken cancellationToken = default) => throw new NotSupportedException();

        public Task<string> PutEventAsync(EventBridgeEntry entry, CancellationToken cancellationToken = default) => throw new NotSupportedException();

        public Task<IReadOnlyList<SqsMessage>> ReceiveAsync(string queueName, int maxMessages, TimeSpan waitTime, TimeSpan? visibilityTimeout = null, CancellationToken cancellationToken = default) => Task.FromResult<IReadOnlyList<SqsMessage>>([]);

        public Task<bool> DeleteAsync(string queueName, string receiptHandle, CancellationToken cancellationToken = default) => Task.FromResult(true);

        public Task<bool> ChangeVisibilityAsync(string queueName, string receiptHandle, TimeSpan visibilityTimeout, CancellationToken cancellationToken = default) => Task.FromResult(true);
    }
}
