using System;
using System.Linq;
using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Missive.Bus;
using Missive.InMemory;
using Missive.Tests.Infrastructure;
using Missive.Transport;

namespace Missive.Tests.Bus;

/// <summary>FIFO group and deduplication ids derived per message type, with PublishOptions winning.</summary>
public sealed class FifoIdsTests
{
    [Theory]
    [InlineData("sqs")]
    [InlineData("sns")]
    public async Task EveryPublishToAFifoDestination_GetsItsIdsFromTheMessage_UnlessPublishOptionsGiveThem(string route)
    {
        using IHost host = BusTestHost.Build(
            b =>
            {
                b.CreateQueue("orders.fifo", o => o.Fifo = true);
                b.CreateTopic("orders-topic.fifo");
                b.Subscribe("orders-topic.fifo", "orders.fifo", rawMessageDelivery: true);
            },
            bus =>
            {
                _ = route == "sqs" ? bus.AddSqsPublisher<Order>("orders.fifo") : bus.AddSnsPublisher<Order>("orders-topic.fifo");
                bus.AddFifoIds<Order>(order => "customer-" + order.Total.ToString(System.Globalization.CultureInfo.InvariantCulture), order => "order-" + order.OrderId);
            });
        IMessagePublisher publisher = host.Services.GetRequiredService<IMessagePublisher>();
        InMemoryBroker broker = host.Services.GetRequiredService<InMemoryBroker>();

        Order first = Orders.Create(1);
        first.OrderId = "ORD-1";
        Order second = Orders.Create(1);
        second.OrderId = "ORD-2";
        await publisher.PublishAsync(first);
        await publisher.PublishAsync(second, new PublishOptions { MessageGroupId = "chosen", MessageDeduplicationId = "chosen-dedup" });
        await publisher.PublishAsync(first); // the same derived deduplication id: dropped as a duplicate

        var received = (await broker.ReceiveAsync("orders.fifo", 10, TimeSpan.Zero)).Concat(await broker.ReceiveAsync("orders.fifo", 10, TimeSpan.Zero)).ToList();
        Assert.Equal(2, received.Count);
        SqsMessage one = received.Single(m => m.Body.Contains("ORD-1", StringComparison.Ordinal));
        SqsMessage two = received.Single(m => m.Body.Contains("ORD-2", StringComparison.Ordinal));
        Assert.Equal("customer-129.95", one.SystemAttributes[SqsSystemAttributes.MessageGroupId]);
        Assert.Equal("order-ORD-1", one.SystemAttributes[SqsSystemAttributes.MessageDeduplicationId]);
        Assert.Equal("chosen", two.SystemAttributes[SqsSystemAttributes.MessageGroupId]);
        Assert.Equal("chosen-dedup", two.SystemAttributes[SqsSystemAttributes.MessageDeduplicationId]);
    }

    [Fact]
    public async Task AFifoDestinationWithoutAWayToGetAGroupId_IsAStartupError()
    {
        using IHost host = BusTestHost.Build(
            b => b.CreateQueue("orders.fifo", o => o.Fifo = true),
            bus => bus.AddSqsPublisher<Order>("orders.fifo"));

        var error = await Assert.ThrowsAsync<MessageBusConfigurationException>(() => host.StartAsync());

        Assert.Contains("FIFO destination 'orders.fifo'", error.Message, StringComparison.Ordinal);
        Assert.Contains("AddFifoIds<Order>", error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("sqs", false, false, true)]
    [InlineData("sns", false, false, true)]
    [InlineData("sqs", true, false, false)] // the queue deduplicates by content
    [InlineData("sns", true, false, false)]
    [InlineData("sqs", false, true, false)] // AddFifoIds gives deduplication ids
    public async Task AFifoDestinationThatDeduplicatesOnlyById_StartsForATypeWithoutIds_AndOnlyAPublishWithoutAnIdIsRefused(string route, bool contentBased, bool ids, bool refused)
    {
        // A valid configuration: every publish may give its deduplication id in PublishOptions.
        using IHost host = BusTestHost.Build(
            b =>
            {
                b.CreateQueue("payments.fifo", o =>
                {
                    o.Fifo = true;
                    o.ContentBasedDeduplication = contentBased;
                });
                b.CreateTopic("payments-topic.fifo", contentBasedDeduplication: contentBased);
            },
            bus =>
            {
                _ = route == "sqs" ? bus.AddSqsPublisher<Order>("payments.fifo") : bus.AddSnsPublisher<Order>("payments-topic.fifo");
                _ = ids ? bus.AddFifoIds<Order>(order => order.OrderId, order => order.OrderId) : bus.AddFifoIds<Order>(order => order.OrderId);
            });
        await host.StartAsync();
        IMessagePublisher publisher = host.Services.GetRequiredService<IMessagePublisher>();

        await publisher.PublishAsync(Orders.Create(1), new PublishOptions { MessageDeduplicationId = "d-1" });
        Exception? withoutId = await Record.ExceptionAsync(() => publisher.PublishAsync(Orders.Create(2)));
        await host.StopAsync();

        if (!refused)
        {
            Assert.Null(withoutId);
            return;
        }

        var error = Assert.IsType<MessageTransportException>(withoutId);
        Assert.Contains("needs a MessageDeduplicationId", error.Message, StringComparison.Ordinal);
        Assert.Contains("PublishOptions or AddFifoIds", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task AStandardDestination_GetsNoFifoIds()
    {
        using IHost host = BusTestHost.Build(
            b => b.CreateQueue("orders"),
            bus => bus.AddSqsPublisher<Order>("orders").AddFifoIds<Order>(order => order.CustomerName));

        await host.Services.GetRequiredService<IMessagePublisher>().PublishAsync(Orders.Create(1));

        SqsMessage message = (await host.Services.GetRequiredService<InMemoryBroker>().ReceiveAsync("orders", 1, TimeSpan.Zero)).Single();
        Assert.False(message.SystemAttributes.ContainsKey(SqsSystemAttributes.MessageGroupId));
    }
}
