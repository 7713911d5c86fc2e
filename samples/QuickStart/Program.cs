using System;
using System.Buffers;
using System.Collections.Generic;
using System.Text;
using System.Text.Json.Serialization;
using Microsoft.Extensions.DependencyInjection;
using Missive;
using Missive.Buffers;
using Missive.Serialization;

// Two containers: one with the defaults, one with EnableExperimentalFeatures().
using ServiceProvider standard = Build(experimental: false);
using ServiceProvider experimental = Build(experimental: true);

IEnvelopeSerializer standardSerializer = standard.GetRequiredService<IEnvelopeSerializer>();
IEnvelopeSerializer fastSerializer = experimental.GetRequiredService<IEnvelopeSerializer>();
IEnvelopeFactory factory = experimental.GetRequiredService<IEnvelopeFactory>();

Console.WriteLine($"Default serializer:      {standardSerializer.GetType().Name}");
Console.WriteLine($"Experimental serializer: {fastSerializer.GetType().Name}");

// Publish side: wrap orders in envelopes and write them into one pooled buffer.
const int Count = 200;
var envelopes = new List<MessageEnvelope<OrderPlaced>>(Count);
for (int i = 0; i < Count; i++)
{
    var order = new OrderPlaced($"ORD-{i:D5}", "Zoë Martin", 19.99m + i, [new OrderLine("SKU-4471", (i % 3) + 1)]);
    MessageEnvelope<OrderPlaced> envelope = factory.CreateEnvelope(order);
    envelope.Extensions["tenant"] = CloudEventAttributeValue.FromString("acme-eu");
    envelopes.Add(envelope);
}

int handled = 0;
long bytes = 0;
using var buffer = new PooledBufferWriter();
foreach (MessageEnvelope<OrderPlaced> envelope in envelopes)
{
    buffer.Reset();
    bytes += fastSerializer.Serialize(buffer, envelope);

    // Receive side: the default serializer reads what the experimental one wrote.
    var received = (MessageEnvelope<OrderPlaced>)standardSerializer.Deserialize(new ReadOnlySequence<byte>(buffer.WrittenMemory));
    if (received.Message.OrderId == envelope.Message.OrderId && received.Id == envelope.Id)
    {
        handled++;
    }
}

Console.WriteLine($"Published {Count} orders, handled {handled} ({bytes / Count} bytes per JSON envelope on average).");
Console.WriteLine("Example envelope:");
Console.WriteLine(fastSerializer.SerializeToString(envelopes[0]));
return handled == Count ? 0 : 1;

static ServiceProvider Build(bool experimental)
{
    var services = new ServiceCollection();
    services.AddMessageBus(bus =>
    {
        bus.AddMessageType<OrderPlaced>("Orders.OrderPlaced");
        bus.UseMessageSource("/samples/quickstart");
        bus.ConfigureSerialization(options => options.JsonSerializerContext = QuickStartJsonContext.Default);
        if (experimental)
        {
            bus.EnableExperimentalFeatures();
        }
    });
    return services.BuildServiceProvider();
}

/// <summary>An order was placed.</summary>
internal sealed record OrderPlaced(string OrderId, string CustomerName, decimal Total, List<OrderLine> Lines);

/// <summary>One line of an order.</summary>
internal sealed record OrderLine(string Sku, int Quantity);

[JsonSerializable(typeof(OrderPlaced))]
internal sealed partial class QuickStartJsonContext : JsonSerializerContext
{
}
