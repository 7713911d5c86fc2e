using System;
using System.Collections.Generic;
using System.Text.Json.Serialization;

namespace Missive.Tests.Infrastructure;

public sealed class Order
{
    public string OrderId { get; set; } = string.Empty;

    public string CustomerName { get; set; } = string.Empty;

    public decimal Total { get; set; }

    public DateTimeOffset PlacedAt { get; set; }

    public List<OrderLine> Lines { get; set; } = [];
}

public sealed class OrderLine
{
    public string Sku { get; set; } = string.Empty;

    public int Quantity { get; set; }

    public double UnitPrice { get; set; }
}

/// <summary>Only in the reflection-based tests: not in the source-generated context.</summary>
public sealed class Shipment
{
    public string ShipmentId { get; set; } = string.Empty;

    public int Parcels { get; set; }
}

/// <summary>A payload that nests itself, for the depth-limit tests.</summary>
public sealed class Node
{
    public Node? Child { get; set; }
}

[JsonSerializable(typeof(Order))]
[JsonSerializable(typeof(Node))]
[JsonSerializable(typeof(Native.S3EventNotification))]
[JsonSerializable(typeof(Native.S3ObjectCreated))]
[JsonSerializable(typeof(Native.Ec2StateChange))]
[JsonSerializable(typeof(Native.SesNotification))]
[JsonSerializable(typeof(Native.CloudWatchAlarm))]
[JsonSerializable(typeof(Dictionary<string, int>))]
public sealed partial class TestJsonContext : JsonSerializerContext
{
}

public static class Orders
{
    public static Order Create(int lines, string customer = "Zoë Martin")
    {
        var order = new Order
        {
            OrderId = "ORD-20251103-0042",
            CustomerName = customer,
            Total = 129.95m,
            PlacedAt = new DateTimeOffset(2025, 11, 3, 14, 27, 9, TimeSpan.Zero).AddTicks(4418273),
        };
        for (int i = 0; i < lines; i++)
        {
            order.Lines.Add(new OrderLine { Sku = "SKU-" + (4471 + i), Quantity = (i % 5) + 1, UnitPrice = 9.99 + i });
        }

        return order;
    }

    /// <summary>The order envelope the size, allocation and benchmark figures use: fixed id, source and time, JSON data, one traceparent extension.</summary>
    public static MessageEnvelope<Order> Envelope(int lines)
    {
        var envelope = new MessageEnvelope<Order>
        {
            Id = "5f8b2c3e-9a41-4d7e-b6c2-0e3f1a7d9b24",
            Source = "/AmazonECS/orders-prod/0f3c9a2b",
            Type = TestSerializers.OrderType,
            Time = new DateTimeOffset(2025, 11, 3, 14, 27, 9, TimeSpan.Zero).AddTicks(4418273),
            DataContentType = ContentTypes.ApplicationJson,
            Message = Create(lines),
        };
        envelope.Extensions["traceparent"] = CloudEventAttributeValue.FromString("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
        return envelope;
    }
}
