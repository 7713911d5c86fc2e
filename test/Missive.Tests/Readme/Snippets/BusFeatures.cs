// With Orders.cs of the README's quick start.
using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;
using Missive;
using Missive.Bus;
using Missive.Diagnostics;
using OpenTelemetry;
using OpenTelemetry.Metrics;
using OpenTelemetry.Trace;

namespace Missive.Tests.Readme;

public static class Telemetry
{
    public static (TracerProvider Traces, MeterProvider Metrics) Start()
    {
        // Add the exporter of your choice (OTLP, console, …) to each builder.
        TracerProvider traces = Sdk.CreateTracerProviderBuilder()
            .AddSource(MissiveDiagnostics.Name)
            .Build()!;
        MeterProvider metrics = Sdk.CreateMeterProviderBuilder()
            .AddMeter(MissiveDiagnostics.Name)
            .Build()!;
        return (traces, metrics);
    }
}

public sealed class SkipTestMessages : IHandleMiddleware
{
    public Task InvokeAsync(HandleContext context, HandleStep nextStep)
    {
        // Returning without calling nextStep short-circuits: the message counts as handled and is deleted.
        if (context.Envelope.Extensions.ContainsKey("synthetictest"))
        {
            return Task.CompletedTask;
        }

        return nextStep(context);
    }
}

public sealed class StampTenant : IPublishMiddleware
{
    public Task InvokeAsync(PublishContext context, PublishStep nextStep)
    {
        context.Envelope.Extensions["tenant"] = CloudEventAttributeValue.FromString("acme");
        return nextStep(context);
    }
}

public sealed class UnknownTypes : IFallbackMessageHandler
{
    public Task<HandleOutcome> HandleAsync(MessageEnvelope<UnregisteredMessage> envelope, CancellationToken cancellationToken)
    {
        // envelope.Type is the identifier nobody registered; envelope.Message.Data is the data as it arrived.
        if (envelope.Type.StartsWith("orders.v1.", StringComparison.Ordinal))
        {
            return Task.FromResult(HandleOutcome.Handled); // retired: drop it
        }

        if (envelope.Type.StartsWith("orders.", StringComparison.Ordinal))
        {
            return Task.FromResult(HandleOutcome.RetryLater); // a newer producer: wait for this service's next version
        }

        return Task.FromResult(HandleOutcome.DeadLetter); // not ours: PollerOptions.DeadLetterQueue
    }
}

public static class BusFeatures
{
    public static IServiceCollection AddOrdering(this IServiceCollection services) => services.AddMessageBus(bus => bus
        .AddMessageType<OrderPlaced>("orders.placed")
        .ConfigureSerialization(o => o.JsonSerializerContext = AppJsonContext.Default)
        .UseInMemoryBroker(b =>
        {
            b.CreateQueue("orders-dlq");
            b.CreateQueue("orders.fifo", q => q.Fifo = true);
        })
        .AddSqsPublisher<OrderPlaced>("orders.fifo")
        .AddFifoIds<OrderPlaced>(order => order.OrderId, order => order.OrderId)
        .AddHandler<OrderPlaced, OrderPlacedHandler>()
        .AddFallbackHandler<UnknownTypes>()
        .UseMessageLoggingScope()
        .UseHandlingTimeout(t =>
        {
            t.DefaultTimeout = TimeSpan.FromMinutes(1);
            t.For<OrderPlaced>(TimeSpan.FromSeconds(10));
        })
        .UseHandleMiddleware<SkipTestMessages>()
        .UsePublishMiddleware<StampTenant>()
        .AddQueuePoller("orders.fifo", o => o.DeadLetterQueue = "orders-dlq"));
}

public static class DeliveryOptions
{
    public static async Task PublishLaterWithATenant(IMessagePublisher publisher, OrderPlaced order)
    {
        await publisher.PublishAsync(order, new PublishOptions
        {
            Delay = TimeSpan.FromSeconds(30),
            MessageAttributes = new Dictionary<string, MessageAttributeValue> { ["tenant"] = MessageAttributeValue.FromString("acme") },
        });
    }
}

public static class PublishingMany
{
    public static async Task<int> PublishMany(IMessagePublisher publisher, IReadOnlyList<OrderPlaced> orders)
    {
        IReadOnlyList<PublishResult<OrderPlaced>> results = await publisher.PublishBatchAsync(orders);
        int failed = 0;
        foreach (PublishResult<OrderPlaced> result in results)
        {
            if (!result.Succeeded)
            {
                failed++; // result.Error says why; result.Message is the order to try again
            }
        }

        return failed;
    }
}
