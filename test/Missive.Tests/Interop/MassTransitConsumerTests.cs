using System;
using System.Net.Mime;
using System.Threading;
using System.Threading.Tasks;
using MassTransit;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Missive.Bus;
using Missive.InMemory;
using Missive.Tests.Infrastructure;
using SqsMessage = Missive.Transport.SqsMessage;

namespace Missive.Tests.Interop;

/// <summary>
/// What Missive publishes with <c>PublishAsMassTransit</c>, delivered to a running MassTransit 8.5.12 bus (its in-memory
/// transport, its deserializer chosen by the <c>Content-Type</c> Missive sets, its consumer pipeline), reaches a
/// MassTransit consumer with the values Missive published: the message, its id, time, source, and the message type MassTransit
/// routes by, for a plain, a nested and a generic type.
/// </summary>
public sealed class MassTransitConsumerTests
{
    private static readonly TimeSpan Deadline = TimeSpan.FromSeconds(30);

    [Fact]
    public async Task AnOrder_ReachesAMassTransitConsumer_WithEveryValueMissivePublished()
    {
        var order = new OrderSubmitted(Guid.Parse("8d0c3f0e-51a4-4c55-9a47-2f0f7a1b9c11"), "ada", 1234.5678m, new DateTimeOffset(2026, 12, 2, 7, 15, 30, 125, TimeSpan.FromHours(1)), ["book", "pen"]);
        (MessageEnvelope<OrderSubmitted> published, SqsMessage sent) = await PublishWithMissive(order, source: "https://shop.example/orders");

        ConsumeContext<OrderSubmitted> consumed = await ConsumeWithMassTransit<OrderSubmitted>(sent);

        Assert.Equal((order.OrderId, order.Customer, order.Total, order.SubmittedAt), (consumed.Message.OrderId, consumed.Message.Customer, consumed.Message.Total, consumed.Message.SubmittedAt));
        Assert.Equal(order.Lines, consumed.Message.Lines);
        Assert.Equal(Guid.Parse(published.Id), consumed.MessageId);
        Assert.Equal(published.Time!.Value.UtcDateTime, consumed.SentTime);
        Assert.Equal(new Uri("https://shop.example/orders"), consumed.SourceAddress);
        Assert.Equal([MessageUrn.ForTypeString<OrderSubmitted>()], consumed.SupportedMessageTypes);
    }

    [Fact]
    public async Task NestedAndGenericTypes_ReachTheirMassTransitConsumers()
    {
        var dispatched = new Shipping.Dispatched("PCL-1", 3);
        var batch = new Batch<Shipping.Dispatched>([dispatched, new Shipping.Dispatched("PCL-2", 1)]);

        (_, SqsMessage nestedSent) = await PublishWithMissive(dispatched);
        (_, SqsMessage genericSent) = await PublishWithMissive(batch);

        Assert.Equal(dispatched, (await ConsumeWithMassTransit<Shipping.Dispatched>(nestedSent)).Message);
        Assert.Equal(batch.Items, (await ConsumeWithMassTransit<Batch<Shipping.Dispatched>>(genericSent)).Message.Items);
    }

    [Fact]
    public async Task AMessageIdThatIsNotAGuid_OrASourceThatIsNotAUri_ReachTheConsumerAsMassTransitHasThem()
    {
        // MassTransit's ids are GUIDs and its addresses absolute URIs: an envelope id that is not one is replaced, so the
        // consumer's MessageId is never null; a relative source (Missive's default, "/missive") is left out, before and
        // after an absolute one has been written.
        (_, SqsMessage sent) = await PublishWithMissive(new Shipping.Dispatched("PCL-3", 2), configure: e => e.Id = "order-77");
        (_, SqsMessage absolute) = await PublishWithMissive(new Shipping.Dispatched("PCL-4", 1), source: "https://shop.example/parcels");
        (_, SqsMessage relativeAgain) = await PublishWithMissive(new Shipping.Dispatched("PCL-5", 1), source: "parcels/relative");

        ConsumeContext<Shipping.Dispatched> consumed = await ConsumeWithMassTransit<Shipping.Dispatched>(sent);

        Assert.NotEqual(Guid.Empty, consumed.MessageId.GetValueOrDefault());
        Assert.Null(consumed.SourceAddress);
        Assert.Equal(new Uri("https://shop.example/parcels"), (await ConsumeWithMassTransit<Shipping.Dispatched>(absolute)).SourceAddress);
        Assert.Null((await ConsumeWithMassTransit<Shipping.Dispatched>(relativeAgain)).SourceAddress);
    }

    private static async Task<(MessageEnvelope<T> Published, SqsMessage Sent)> PublishWithMissive<T>(T message, string? source = null, Action<MessageEnvelope>? configure = null)
        where T : class
    {
        using IHost host = BusTestHost.Build(
            broker => broker.CreateQueue("billing"),
            bus =>
            {
                bus.AddMessageType<OrderSubmitted>("interop.order-submitted")
                    .AddMessageType<Shipping.Dispatched>("interop.dispatched")
                    .AddMessageType<Batch<Shipping.Dispatched>>("interop.batch")
                    .ConfigureSerialization(o => o.JsonSerializerContext = InteropJsonContext.Default)
                    .AddSqsPublisher<T>("billing")
                    .PublishAsMassTransit<T>();
                if (source is not null)
                {
                    bus.UseMessageSource(source);
                }
            });
        MessageEnvelope<T> published = await host.Services.GetRequiredService<IMessagePublisher>().PublishAsync(message, new PublishOptions { ConfigureEnvelope = configure });
        SqsMessage sent = Assert.Single(await host.Services.GetRequiredService<InMemoryBroker>().ReceiveAsync("billing", 1, TimeSpan.Zero));
        return (published, sent);
    }

    /// <summary>
    /// Starts a MassTransit bus on its in-memory transport with one consumer of <typeparamref name="T"/> on <c>billing</c>,
    /// puts <paramref name="sent"/>'s body on that queue with its <c>Content-Type</c> attribute as the transport's
    /// content type (as MassTransit's SQS transport reads it), and returns what the consumer was given.
    /// </summary>
    private static async Task<ConsumeContext<T>> ConsumeWithMassTransit<T>(SqsMessage sent)
        where T : class
    {
        var consumer = new RecordingConsumer<T>();
        IBusControl bus = MassTransit.Bus.Factory.CreateUsingInMemory(cfg => cfg.ReceiveEndpoint("billing", e => e.Consumer(() => consumer)));
        using var deadline = new CancellationTokenSource(Deadline);
        await bus.StartAsync(deadline.Token);
        try
        {
            ISendEndpoint queue = await bus.GetSendEndpoint(new Uri("queue:billing"));
            var asSent = new BodyAsSent(sent.Utf8Body.ToArray(), sent.MessageAttributes["Content-Type"].StringValue!);
            await queue.Send(new Placeholder(), Pipe.Execute<SendContext<Placeholder>>(context => context.Serializer = asSent), deadline.Token);
            return await consumer.Consumed.Task.WaitAsync(deadline.Token);
        }
        finally
        {
            await bus.StopAsync(CancellationToken.None);
        }
    }

    /// <summary>What the test hands MassTransit's send pipeline; its body is replaced by <see cref="BodyAsSent"/>.</summary>
    public sealed record Placeholder;

    /// <summary>A serializer that gives MassTransit's transport the bytes Missive sent, under the content type Missive set.</summary>
    private sealed class BodyAsSent(byte[] body, string contentType) : IMessageSerializer
    {
        public ContentType ContentType { get; } = new(contentType);

        public MassTransit.MessageBody GetMessageBody<T>(SendContext<T> context)
            where T : class => new BytesMessageBody(body);
    }

    private sealed class RecordingConsumer<T> : IConsumer<T>
        where T : class
    {
        public TaskCompletionSource<ConsumeContext<T>> Consumed { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public Task Consume(ConsumeContext<T> context)
        {
            Consumed.TrySetResult(context);
            return Task.CompletedTask;
        }
    }
}
