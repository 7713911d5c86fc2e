using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;
using Missive.Bus;
using Missive.InMemory;
using Missive.Tests.Infrastructure;
using Missive.Transport;

namespace Missive.Tests.Packaging;

/// <summary>
/// The members renamed for clarity keep working under their old names for a release, as forwarders marked obsolete:
/// code written against them compiles (with a warning) and behaves as before.
/// </summary>
#pragma warning disable CS0618 // the old names are what is tested
public sealed class RenamedMembersTests
{
    [Fact]
    public async Task PublishOptionsSubject_IsTheSnsSubject_UnderItsOldName()
    {
        var options = new PublishOptions { Subject = "Order placed" };
        Assert.Equal("Order placed", options.SnsSubject);

        await using ServiceProvider provider = new ServiceCollection()
            .AddMessageBus(bus => bus
                .AddMessageType<Order>(TestSerializers.OrderType)
                .ConfigureSerialization(o => o.JsonSerializerContext = TestJsonContext.Default)
                .AddSnsPublisher<Order>("orders")
                .UseInMemoryBroker(b =>
                {
                    b.CreateTopic("orders");
                    b.CreateQueue("billing");
                    b.Subscribe("orders", "billing");
                }))
            .BuildServiceProvider();
        MessageEnvelope<Order> sent = await provider.GetRequiredService<IMessagePublisher>().PublishAsync(Orders.Create(1), options);

        SqsMessage received = Assert.Single(await provider.GetRequiredService<InMemoryBroker>().ReceiveAsync("billing", 1, TimeSpan.Zero));
        Assert.Contains("\"Subject\" : \"Order placed\"", received.Body, StringComparison.Ordinal); // the notification's
        Assert.Null(sent.Subject); // not the envelope's CloudEvents subject
    }

    [Fact]
    public void SqsSendRequestMessageBody_IsTheBody_UnderItsOldNames()
    {
        var text = new SqsSendRequest { QueueName = "q", MessageBody = "{\"a\":1}" };
        var bytes = new SqsSendRequest { QueueName = "q", Utf8MessageBody = "{\"b\":2}"u8.ToArray() };

        Assert.Equal("{\"a\":1}", text.Body);
        Assert.False(text.HasUtf8MessageBody);
        Assert.Equal("{\"b\":2}", bytes.Body);
        Assert.True(bytes.HasUtf8MessageBody);
        Assert.Equal(bytes.Utf8Body.ToArray(), bytes.Utf8MessageBody.ToArray());
    }

    [Fact]
    public async Task ATransportWrittenForPutEventsAsync_KeepsItsBatchCalls_WhenTheBusCallsTheNewName()
    {
        var transport = new OldNameTransport();
        IMessageTransport seam = transport;

        IReadOnlyList<BatchEntryResult> results = await seam.PutEventBatchAsync([new EventBridgeEntry { EventBusName = "b", Source = "/s", DetailType = "t", Detail = "{}" }, new EventBridgeEntry { EventBusName = "b", Source = "/s", DetailType = "t", Detail = "{}" }]);

        Assert.Equal(1, transport.BatchCalls);
        Assert.Equal(0, transport.SingleCalls);
        Assert.Equal(["batch-0", "batch-1"], results.Select(r => r.MessageId));
    }

    /// <summary>A third-party transport as written before the rename: its own PutEventsAsync, no PutEventBatchAsync.</summary>
    private sealed class OldNameTransport : IMessageTransport
    {
        public int BatchCalls { get; private set; }

        public int SingleCalls { get; private set; }

        public Task<IReadOnlyList<BatchEntryResult>> PutEventsAsync(IReadOnlyList<EventBridgeEntry> entries, CancellationToken cancellationToken = default)
        {
            BatchCalls++;
            return Task.FromResult<IReadOnlyList<BatchEntryResult>>(entries.Select((_, i) => new BatchEntryResult(i, "batch-" + i, null, null, false)).ToArray());
        }

        public Task<string> PutEventAsync(EventBridgeEntry entry, CancellationToken cancellationToken = default)
        {
            SingleCalls++;
            return Task.FromResult("single");
        }

        public Task<string> SendAsync(SqsSendRequest request, CancellationToken cancellationToken = default) => throw new NotSupportedException();

        public Task<string> PublishAsync(SnsPublishRequest request, CancellationToken cancellationToken = default) => throw new NotSupportedException();

        public Task<IReadOnlyList<SqsMessage>> ReceiveAsync(string queueName, int maxMessages, TimeSpan waitTime, TimeSpan? visibilityTimeout = null, CancellationToken cancellationToken = default) => throw new NotSupportedException();

        public Task<bool> DeleteAsync(string queueName, string receiptHandle, CancellationToken cancellationToken = default) => throw new NotSupportedException();

        public Task<bool> ChangeVisibilityAsync(string queueName, string receiptHandle, TimeSpan visibilityTimeout, CancellationToken cancellationToken = default) => throw new NotSupportedException();
    }
}
#pragma warning restore CS0618
