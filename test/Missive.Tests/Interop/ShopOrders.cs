namespace Shop.Orders;

/// <summary>The order as a MassTransit service declares it (<c>urn:message:Shop.Orders:OrderPlaced</c>), for the publishing snippet's test.</summary>
public sealed record OrderPlaced(string OrderId, decimal Total);
