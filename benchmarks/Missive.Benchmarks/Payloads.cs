using System;
using System.Collections.Generic;
using System.Text.Json.Serialization;

namespace Missive.Benchmarks;

/// <summary>A realistic order message: a header and <c>ItemCount</c> line items.</summary>
public sealed class OrderPlaced
{
    public string OrderId { get; set; } = string.Empty;

    public string CustomerId { get; set; } = string.Empty;

    public string CustomerName { get; set; } = string.Empty;

    public string Currency { get; set; } = "EUR";

    public decimal Total { get; set; }

    public DateTimeOffset PlacedAt { get; set; }

    public Address ShippingAddress { get; set; } = new();

    public List<LineItem> Items { get; set; } = [];
}

public sealed class Address
{
    public string Street { get; set; } = string.Empty;

    public string City { get; set; } = string.Empty;

    public string PostalCode { get; set; } = string.Empty;

    public string Country { get; set; } = string.Empty;
}

public sealed class LineItem
{
    public string Sku { get; set; } = string.Empty;

    public string Description { get; set; } = string.Empty;

    public int Quantity { get; set; }

    public decimal UnitPrice { get; set; }
}

/// <summary>The same shape, registered without a context so its metadata comes from reflection.</summary>
public sealed class OrderPlacedReflected
{
    public string OrderId { get; set; } = string.Empty;

    public string CustomerId { get; set; } = string.Empty;

    public string CustomerName { get; set; } = string.Empty;

    public string Currency { get; set; } = "EUR";

    public decimal Total { get; set; }

    public DateTimeOffset PlacedAt { get; set; }

    public Address ShippingAddress { get; set; } = new();

    public List<LineItem> Items { get; set; } = [];
}

[JsonSerializable(typeof(OrderPlaced))]
[JsonSerializable(typeof(PlainCloudEvent))]
[JsonSerializable(typeof(PlainEventBridgeEvent<PlainCloudEvent>))]
[JsonSerializable(typeof(PlainEventBridgeEvent<OrderPlaced>))]
[JsonSerializable(typeof(PlainNServiceBusTransportMessage))]
public sealed partial class BenchJsonContext : JsonSerializerContext
{
}

public static class Payloads
{
    public const string OrderType = "Orders.OrderPlaced";
    public const string ReflectedType = "Orders.OrderPlaced.Reflected";

    public static OrderPlaced Order(int itemCount)
    {
        var order = new OrderPlaced
        {
            OrderId = "ORD-20251103-0042",
            CustomerId = "CUST-000981",
            CustomerName = "Zoë Martin",
            Total = 129.95m,
            PlacedAt = new DateTimeOffset(2025, 11, 3, 14, 27, 9, TimeSpan.Zero),
            ShippingAddress = new Address { Street = "12 Rue des Lilas", City = "Lyon", PostalCode = "69003", Country = "FR" },
        };
        for (int i = 0; i < itemCount; i++)
        {
            order.Items.Add(new LineItem { Sku = "SKU-" + (4471 + i), Description = "Ceramic mug, 350 ml, blue glaze", Quantity = (i % 5) + 1, UnitPrice = 9.95m + i });
        }

        return order;
    }

    public static OrderPlacedReflected Reflected(int itemCount)
    {
        OrderPlaced o = Order(itemCount);
        return new OrderPlacedReflected { OrderId = o.OrderId, CustomerId = o.CustomerId, CustomerName = o.CustomerName, Total = o.Total, PlacedAt = o.PlacedAt, ShippingAddress = o.ShippingAddress, Items = o.Items };
    }

    public static MessageEnvelope<T> Envelope<T>(T message, string type) => new()
    {
        Id = "5f8b2c3e-9a41-4d7e-b6c2-0e3f1a7d9b24",
        Source = "/AmazonECS/orders-prod/0f3c9a2b",
        Type = type,
        Time = new DateTimeOffset(2025, 11, 3, 14, 27, 9, TimeSpan.Zero).AddTicks(4418273),
        DataContentType = ContentTypes.ApplicationJson,
        Message = message,
    };
}
