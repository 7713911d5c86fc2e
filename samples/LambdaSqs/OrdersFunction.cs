using System;
using System.IO;
using System.Text.Json.Serialization;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;
using Missive;
using Missive.Bus;
using Missive.Lambda;

namespace LambdaSqs;

/// <summary>
/// The function: its handler string is <c>LambdaSqs::LambdaSqs.OrdersFunction::HandleAsync</c>. Turn on ReportBatchItemFailures
/// on the SQS event source mapping, so that Lambda reads the partial batch response and delivers again only the
/// records listed in it.
/// </summary>
public sealed class OrdersFunction
{
    // Built once per execution environment and reused by every invocation.
    private static readonly ServiceProvider Services = CreateServices();

    /// <summary>Handles one SQS event: every record through the bus's handlers; returns the partial batch response.</summary>
    /// <param name="sqsEvent">The event Lambda passes.</param>
    /// <returns>The <c>batchItemFailures</c> response.</returns>
    public async Task<Stream> HandleAsync(Stream sqsEvent)
    {
        // Stop handling new records a little before the function's own timeout (here 25 of 30 seconds); those are reported failed.
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(25));
        SqsBatchResponse response = await Services.GetRequiredService<SqsEventProcessor>().ProcessAsync(sqsEvent, timeout.Token);
        return response.ToStream();
    }

    private static ServiceProvider CreateServices()
    {
        var services = new ServiceCollection();
        services.AddSingleton<Shipments>();
        services.AddMessageBus(bus => bus
            .AddMessageType<OrderPlaced>("orders.placed")
            .ConfigureSerialization(o => o.JsonSerializerContext = FunctionJsonContext.Default)
            .AddHandler<OrderPlaced, ShipOrder>());
        return services.BuildServiceProvider();
    }
}

/// <summary>The message.</summary>
/// <param name="OrderId">The order.</param>
/// <param name="Total">Its total.</param>
public sealed record OrderPlaced(string OrderId, decimal Total);

/// <summary>The handler: ships every order of a positive total, and fails the others (so that they are retried).</summary>
/// <param name="shipments">Where shipped orders go.</param>
public sealed class ShipOrder(Shipments shipments) : IMessageHandler<OrderPlaced>
{
    /// <inheritdoc />
    public Task HandleAsync(MessageEnvelope<OrderPlaced> envelope, CancellationToken cancellationToken)
    {
        if (envelope.Message.Total <= 0)
        {
            throw new InvalidOperationException($"Order {envelope.Message.OrderId} has no total.");
        }

        shipments.Add(envelope.Message.OrderId);
        return Task.CompletedTask;
    }
}

/// <summary>The orders shipped in this execution environment.</summary>
public sealed class Shipments
{
    private readonly System.Collections.Concurrent.ConcurrentQueue<string> _orders = new();

    /// <summary>Gets the shipped order ids.</summary>
    public string[] Orders => _orders.ToArray();

    /// <summary>Records a shipped order.</summary>
    /// <param name="orderId">The order.</param>
    public void Add(string orderId) => _orders.Enqueue(orderId);
}

/// <summary>System.Text.Json metadata for the message, so the function can be trimmed or compiled ahead of time.</summary>
[JsonSerializable(typeof(OrderPlaced))]
public sealed partial class FunctionJsonContext : JsonSerializerContext
{
}
