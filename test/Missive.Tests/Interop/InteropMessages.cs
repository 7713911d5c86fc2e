using System;
using System.Collections.Generic;

namespace Missive.Tests.Interop;

/// <summary>An order as a MassTransit service publishes it (a decimal, which MassTransit writes as a JSON string).</summary>
public sealed record OrderSubmitted(Guid OrderId, string Customer, decimal Total, DateTimeOffset SubmittedAt, IReadOnlyList<string> Lines);

/// <summary>A type nested in another, for MassTransit's <c>Outer+Inner</c> URN.</summary>
public static class Shipping
{
    public sealed record Dispatched(string Parcel, int Items);
}

/// <summary>A generic message, for MassTransit's <c>Name[[Namespace:Argument]]</c> URN.</summary>
public sealed record Batch<T>(IReadOnlyList<T> Items);
