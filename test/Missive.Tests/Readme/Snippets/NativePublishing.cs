// With Orders.cs of the README's quick start.
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Missive;

namespace Missive.Tests.Readme;

/// <summary>docs/native-messages.md's publishing snippet: orders for a consumer that does not speak CloudEvents.</summary>
public static class NativePublishing
{
    public static void AddLegacyOrdersPublisher(this HostApplicationBuilder builder)
    {
        builder.Services.AddMessageBus(bus => bus
            .AddMessageType<OrderPlaced>("Orders.OrderPlaced")
            .AddSqsPublisher<OrderPlaced>("legacy-orders")
            .PublishWithoutEnvelope<OrderPlaced>() // the body is the order's JSON; MessageType = "Orders.OrderPlaced"
            .UseInMemoryBroker(broker => broker.CreateQueue("legacy-orders")));
    }
}
