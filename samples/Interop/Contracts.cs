using System;

// The contracts as the other services declare them: Missive matches MassTransit's URN and NServiceBus's type name by
// the namespace and name, so the shipping service keeps its copies in the same namespaces.
namespace Sales.Contracts
{
    /// <summary>Published by the sales service (MassTransit).</summary>
    public sealed record OrderSubmitted(Guid OrderId, string Customer, decimal Total);
}

namespace Warehouse.Contracts
{
    /// <summary>Published by the shipping service for the warehouse (MassTransit).</summary>
    public sealed record OrderShipped(Guid OrderId, string Carrier);
}

namespace Billing.Messages
{
    /// <summary>Sent by the billing endpoint (NServiceBus).</summary>
    public sealed record PaymentReceived(Guid OrderId, decimal Amount);

    /// <summary>Sent by the shipping service to the invoicing endpoint (NServiceBus).</summary>
    public sealed record InvoiceRequested(Guid OrderId, decimal Amount);
}
