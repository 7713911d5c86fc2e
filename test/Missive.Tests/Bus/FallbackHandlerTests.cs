using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Linq;
using System.Text;
using System.Text.Json;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Missive.Bus;
using Missive.InMemory;
using Missive.Json;
using Missive.Protobuf;
using Missive.Serialization;
using Missive.Tests.Infrastructure;
using Missive.Transport;

namespace Missive.Tests.Bus;

/// <summary>Messages of a type nobody registered: the fallback handler's three outcomes, and the behaviour without one.</summary>
public sealed class FallbackHandlerTests
{
    [Theory]
    [InlineData(HandleOutcome.Handled)]
    [InlineData(HandleOutcome.RetryLater)]
    [InlineData(HandleOutcome.DeadLetter)]
    public async Task TheFallbackHandler_GetsTheEnvelopeWithRawData_AndItsOutcomeIsApplied(HandleOutcome outcome)
    {
        var decisions = new Decisions(outcome);
        using IHost host = Build(bus => bus.AddFallbackHandler<DecidingFallback>(), decisions);
        InMemoryBroker broker = host.Services.GetRequiredService<InMemoryBroker>();
        await broker.SendAsync(new SqsSendRequest { QueueName = "orders", Body = LegacyEnvelope() });
        await host.StartAsync();

        await decisions.Seen.Task.WaitAsync(BusTestHost.Patience);
        await BusTestHost.WaitUntil(() => outcome switch
        {
            HandleOutcome.Handled => broker.GetQueue("orders").Count == 0,
            HandleOutcome.DeadLetter => broker.GetQueue("orders").Count == 0 && broker.GetQueue("orders-dlq").Count == 1,
            _ => decisions.Calls >= 2, // received again (RetryDelay zero)
        });
        await host.StopAsync();

        MessageEnvelope<UnregisteredMessage> envelope = decisions.First!;
        Assert.Equal("legacy.order", envelope.Type);
        Assert.Equal("/legacy", envelope.Source);
        Assert.True(envelope.Message.IsJson);
        Assert.Equal("ORD-LEGACY", envelope.Message.ToJsonElement().GetProperty("OrderId").GetString());
        Assert.Equal(envelope.SqsMetadata!.MessageId, decisions.SqsMessageId);
        if (outcome == HandleOutcome.RetryLater)
        {
            Assert.Equal(1, broker.GetQueue("orders").Count);
        }

        if (outcome == HandleOutcome.DeadLetter)
        {
            Assert.Equal(LegacyEnvelope(), broker.GetQueue("orders-dlq").PeekBodies().Single()); // moved as it was received
        }
    }

    [Fact]
    public async Task WithoutAFallbackHandler_TheMessageStays_WithOneClearLogLinePerReceive()
    {
        var log = new CapturingLoggerProvider();
        using IHost host = Build(_ => { }, new Decisions(HandleOutcome.Handled), log);
        InMemoryBroker broker = host.Services.GetRequiredService<InMemoryBroker>();
        await broker.SendAsync(new SqsSendRequest { QueueName = "orders", Body = LegacyEnvelope() });
        await host.StartAsync();

        await BusTestHost.WaitUntil(() => log.Messages.Count(m => m.Contains("which no AddMessageType registers", StringComparison.Ordinal)) >= 2);
        await host.StopAsync();

        Assert.Equal(1, broker.GetQueue("orders").Count);
        string line = log.Messages.First(m => m.Contains("which no AddMessageType registers", StringComparison.Ordinal));
        Assert.Contains("AddFallbackHandler", line, StringComparison.Ordinal);
        Assert.Contains("(receive 1)", line, StringComparison.Ordinal);
        Assert.Contains("legacy.order", line, StringComparison.Ordinal);
        IReadOnlyDictionary<string, object?> fields = log.Fields.First(f => f.EventId == 2016).Fields;
        Assert.Equal("legacy.order", fields["MessageType"]); // a field of its own, for a dashboard to group by
        Assert.Equal("orders", fields["Queue"]);
    }

    [Fact]
    public void EveryFormat_ReadsAnUnregisteredType_AsRawData_WhenEnabled_AndRejectsItOtherwise()
    {
        var writerMap = new MessageTypeMap(new SerializationOptions { JsonSerializerContext = TestJsonContext.Default });
        writerMap.Add<Order>("legacy.order");
        writerMap.Add<byte[]>("legacy.blob");
        var factory = new EnvelopeFactory(writerMap, "/legacy", TimeProvider.System);
        MessageEnvelope<Order> order = factory.CreateEnvelope(Orders.Create(2));
        MessageEnvelope<byte[]> blob = factory.CreateEnvelope(new byte[] { 1, 2, 3 });

        MessageTypeMap reading = TestSerializers.Map();
        reading.ReadUnregisteredTypes();
        MessageTypeMap strict = TestSerializers.Map();
        using var utf8Writer = new Utf8JsonEnvelopeSerializer(writerMap);
        using var protobufWriter = new ProtobufEnvelopeSerializer(writerMap);
        IEnvelopeSerializer[] readers = [new Utf8JsonEnvelopeSerializer(reading), new StandardJsonEnvelopeSerializer(reading), new ProtobufEnvelopeSerializer(reading)];
        IEnvelopeSerializer[] strictReaders = [new Utf8JsonEnvelopeSerializer(strict), new StandardJsonEnvelopeSerializer(strict), new ProtobufEnvelopeSerializer(strict)];
        for (int i = 0; i < readers.Length; i++)
        {
            IEnvelopeSerializer writer = i == 2 ? protobufWriter : utf8Writer;
            var orderRead = (MessageEnvelope<UnregisteredMessage>)readers[i].Deserialize(writer.SerializeToArray(order));
            var blobRead = (MessageEnvelope<UnregisteredMessage>)readers[i].Deserialize(writer.SerializeToArray(blob));

            Assert.Equal("legacy.order", orderRead.Type);
            Assert.Equal(order.Id, orderRead.Id);
            Assert.Equal(JsonSerializer.Serialize(order.Message, TestJsonContext.Default.Order), Encoding.UTF8.GetString(orderRead.Message.Data.Span));
            Assert.Equal("legacy.blob", blobRead.Type);
            Assert.False(blobRead.Message.IsJson);
            Assert.Equal(new byte[] { 1, 2, 3 }, blobRead.Message.Data.ToArray());
            var error = Assert.Throws<InvalidEnvelopeException>(() => strictReaders[i].Deserialize(writer.SerializeToArray(order)));
            Assert.Equal(InvalidEnvelopeReason.UnknownMessageType, error.Reason);
        }

        // What was received for an unregistered type cannot be published.
        Assert.Throws<MessageBusConfigurationException>(() => new EnvelopeFactory(reading).CreateEnvelope(new UnregisteredMessage(new byte[] { 1 }, isJson: false)));
    }

    private static string LegacyEnvelope()
    {
        var map = new MessageTypeMap(new SerializationOptions { JsonSerializerContext = TestJsonContext.Default });
        map.Add<Order>("legacy.order");
        using var serializer = new Utf8JsonEnvelopeSerializer(map);
        Order order = Orders.Create(1);
        order.OrderId = "ORD-LEGACY";
        MessageEnvelope<Order> envelope = new EnvelopeFactory(map, "/legacy", TimeProvider.System).CreateEnvelope(order);
        envelope.Id = "legacy-1";
        envelope.Time = new DateTimeOffset(2026, 11, 22, 10, 0, 0, TimeSpan.Zero);
        return serializer.SerializeToString(envelope);
    }

    private static IHost Build(Action<MessageBusBuilder> fallback, Decisions decisions, CapturingLoggerProvider? log = null)
        => BusTestHost.Build(
            b =>
            {
                b.CreateQueue("orders-dlq");
                b.CreateQueue("orders");
            },
            bus =>
            {
                bus.AddQueuePoller("orders", o =>
                {
                    o.WaitTime = TimeSpan.FromMilliseconds(50);
                    o.RetryDelay = decisions.Outcome == HandleOutcome.RetryLater ? TimeSpan.Zero : TimeSpan.FromMilliseconds(100);
                    o.DeadLetterQueue = "orders-dlq";
                });
                fallback(bus);
            },
            services => services.AddSingleton(decisions),
            log);

    private sealed class Decisions(HandleOutcome outcome)
    {
        private int _calls;

        public HandleOutcome Outcome { get; } = outcome;

        public TaskCompletionSource Seen { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public MessageEnvelope<UnregisteredMessage>? First { get; private set; }

        public string? SqsMessageId { get; private set; }

        public int Calls => Volatile.Read(ref _calls);

        public HandleOutcome Decide(MessageEnvelope<UnregisteredMessage> envelope)
        {
            if (Interlocked.Increment(ref _calls) == 1)
            {
                First = envelope;
                SqsMessageId = envelope.SqsMetadata?.MessageId;
                Seen.TrySetResult();
            }

            return Outcome;
        }
    }

    private sealed class DecidingFallback(Decisions decisions) : IFallbackMessageHandler
    {
        public Task<HandleOutcome> HandleAsync(MessageEnvelope<UnregisteredMessage> envelope, CancellationToken cancellationToken) => Task.FromResult(decisions.Decide(envelope));
    }
}
