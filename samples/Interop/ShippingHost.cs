using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Linq;
using System.Text.Json;
using System.Text.Json.Serialization;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Missive.Bus;
using Missive.Transport;

namespace Missive.Samples.Interop;

/// <summary>
/// The sample's host: the shipping service, moved to Missive, reads its queue where a MassTransit service publishes
/// orders and an NServiceBus endpoint sends payments; it tells the warehouse (a MassTransit service) in MassTransit's
/// envelope and asks invoicing (an NServiceBus endpoint) in NServiceBus's format.
/// </summary>
public static class ShippingHost
{
    /// <summary>
    /// An order as MassTransit 8.5.12's SystemTextJsonMessageSerializer writes it for <c>Sales.Contracts.OrderSubmitted</c>
    /// published by a service on SQS (its decimal as a string, indented, <c>null</c> members, its <c>host</c> block), as that
    /// serializer writes it; only the sent time and the host's values are the sample's own.
    /// </summary>
    public const string MassTransitOrder = """
        {
          "messageId": "0b390000-8f3e-5254-51f8-08de31ad0b16",
          "requestId": null,
          "correlationId": null,
          "conversationId": "0b390000-8f3e-5254-3b09-08de31ad0b16",
          "initiatorId": null,
          "sourceAddress": "amazonsqs://eu-west-1/sales",
          "destinationAddress": "amazonsqs://eu-west-1/Sales_Contracts-OrderSubmitted?type=topic",
          "responseAddress": null,
          "faultAddress": null,
          "messageType": [
            "urn:message:Sales.Contracts:OrderSubmitted"
          ],
          "message": {
            "orderId": "63276a04-4452-430f-a5df-ae1d31727408",
            "customer": "ada",
            "total": "42.50"
          },
          "expirationTime": null,
          "sentTime": "2026-12-01T09:30:00.1234567Z",
          "headers": {},
          "host": {
            "machineName": "sales-7f9c",
            "processName": "Sales",
            "processId": 1,
            "assembly": "Sales",
            "assemblyVersion": "1.0.0.0",
            "frameworkVersion": "8.0.11",
            "massTransitVersion": "8.5.12.0",
            "operatingSystemVersion": "Unix 6.1.0.0"
          }
        }
        """;

    /// <summary>
    /// A payment as NServiceBus's SQS transport sends it by default: the wrapped transport message, its <c>Body</c> the
    /// endpoint's JSON in base64 (<c>{"OrderId":"63276a04-…","Amount":42.50}</c>), its headers beside it.
    /// </summary>
    public const string NServiceBusPayment = """
        {"Body":"eyJPcmRlcklkIjoiNjMyNzZhMDQtNDQ1Mi00MzBmLWE1ZGYtYWUxZDMxNzI3NDA4IiwiQW1vdW50Ijo0Mi41MH0=","S3BodyKey":null,"Headers":{"NServiceBus.MessageId":"093c17c6-d32e-44fe-9134-65c10c1287eb","NServiceBus.EnclosedMessageTypes":"Billing.Messages.PaymentReceived, Billing.Messages, Version=1.0.0.0, Culture=neutral, PublicKeyToken=null","NServiceBus.ConversationId":"5b5e8b9a-0f7c-4e1d-9b8a-1c2d3e4f5a6b","NServiceBus.MessageIntent":"Send","NServiceBus.OriginatingEndpoint":"Billing","NServiceBus.TimeSent":"2026-12-01 09:31:00:000000 Z","NServiceBus.ContentType":"application/json"}}
        """;

    /// <summary>Builds the host from the command line (configuration keys as <c>--Missive:Transport=Aws</c>).</summary>
    public static IHost Build(string[] args)
    {
        HostApplicationBuilder builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { Args = args, ContentRootPath = AppContext.BaseDirectory });
        IConfigurationSection missive = builder.Configuration.GetSection("Missive");
        string queue = missive["Queue"] ?? "shipping", warehouse = missive["Warehouse"] ?? "warehouse", invoicing = missive["Invoicing"] ?? "invoicing";
        builder.Services.AddSingleton<Journal>();
        builder.Services.AddMessageBus(bus =>
        {
            bus.AddMessageType<Sales.Contracts.OrderSubmitted>("Sales.Contracts.OrderSubmitted")
                .AddMessageType<Billing.Messages.PaymentReceived>("Billing.Messages.PaymentReceived")
                .AddMessageType<Warehouse.Contracts.OrderShipped>("Warehouse.Contracts.OrderShipped")
                .AddMessageType<Billing.Messages.InvoiceRequested>("Billing.Messages.InvoiceRequested")
                .ConfigureSerialization(o => o.JsonSerializerContext = ShippingJsonContext.Default)
                .UseMessageSource(missive["Source"] ?? "/samples/interop/shipping")
                .PublishAsMassTransit<Warehouse.Contracts.OrderShipped>() // the warehouse runs MassTransit
                .AddSqsPublisher<Warehouse.Contracts.OrderShipped>(warehouse)
                .PublishAsNServiceBus<Billing.Messages.InvoiceRequested>() // invoicing is an NServiceBus endpoint
                .AddSqsPublisher<Billing.Messages.InvoiceRequested>(invoicing)
                .AddHandler<Sales.Contracts.OrderSubmitted, OrderHandler>()
                .AddHandler<Billing.Messages.PaymentReceived, PaymentHandler>()
                .AddQueuePoller(queue, o =>
                {
                    missive.GetSection("Poller").Bind(o);
                    o.NativeMessages
                        .WhenMassTransit<Sales.Contracts.OrderSubmitted>() // urn:message:Sales.Contracts:OrderSubmitted
                        .WhenNServiceBus<Billing.Messages.PaymentReceived>(); // NServiceBus.EnclosedMessageTypes
                });
            if (string.Equals(missive["Transport"], "Aws", StringComparison.OrdinalIgnoreCase))
            {
                // The application's AWS settings; the queues exist: on AWS, or on the local endpoint started from local-aws.json.
                bus.UseAws();
            }
            else
            {
                bus.UseInMemoryBroker(broker =>
                {
                    broker.CreateQueue(queue + "-dlq");
                    broker.CreateQueue(queue, o => { o.DeadLetterQueue = queue + "-dlq"; o.MaxReceiveCount = 3; });
                    broker.CreateQueue(warehouse);
                    broker.CreateQueue(invoicing);
                });
            }
        });
        return builder.Build();
    }

    /// <summary>
    /// Puts the two bodies on the queue as their buses send them, runs the host until both are handled (or 30 seconds
    /// pass), and returns what the handlers got and what the other buses' queues then hold.
    /// </summary>
    public static async Task<IReadOnlyList<string>> RunOnceAsync(string[] args)
    {
        using IHost host = Build(args);
        IConfiguration configuration = host.Services.GetRequiredService<IConfiguration>();
        string queue = configuration["Missive:Queue"] ?? "shipping";
        await host.StartAsync().ConfigureAwait(false);
        IMessageTransport transport = host.Services.GetRequiredService<IMessageTransport>();
        await transport.SendAsync(new SqsSendRequest
        {
            QueueName = queue,
            Body = MassTransitOrder,
            MessageAttributes = new Dictionary<string, MessageAttributeValue> { ["Content-Type"] = MessageAttributeValue.FromString("application/vnd.masstransit+json") },
        }).ConfigureAwait(false);
        await transport.SendAsync(new SqsSendRequest { QueueName = queue, Body = NServiceBusPayment }).ConfigureAwait(false);
        Journal journal = host.Services.GetRequiredService<Journal>();
        using (var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(30)))
        {
            while (journal.Lines.Count < 2 && !timeout.IsCancellationRequested)
            {
                await Task.Delay(50, CancellationToken.None).ConfigureAwait(false);
            }
        }

        await host.StopAsync().ConfigureAwait(false);
        var lines = new List<string>(journal.Lines.Order(StringComparer.Ordinal));
        lines.Add(await SentAsync(transport, configuration["Missive:Warehouse"] ?? "warehouse", MassTransitLine).ConfigureAwait(false));
        lines.Add(await SentAsync(transport, configuration["Missive:Invoicing"] ?? "invoicing", NServiceBusLine).ConfigureAwait(false));
        return lines;
    }

    /// <summary>What one of the other buses' queues received, as that bus's transport would look at it.</summary>
    private static async Task<string> SentAsync(IMessageTransport transport, string queue, Func<SqsMessage, string> describe)
    {
        IReadOnlyList<SqsMessage> received = await transport.ReceiveAsync(queue, 10, TimeSpan.FromSeconds(1)).ConfigureAwait(false);
        return received.Count == 1 ? $"{queue} received {describe(received[0])}" : $"{queue} received {received.Count} messages";
    }

    private static string MassTransitLine(SqsMessage message)
    {
        using JsonDocument body = JsonDocument.Parse(message.Utf8Body);
        return $"MassTransit's envelope ({message.MessageAttributes["Content-Type"].StringValue}): {body.RootElement.GetProperty("messageType")[0].GetString()}, message {body.RootElement.GetProperty("message").GetRawText()}";
    }

    private static string NServiceBusLine(SqsMessage message)
    {
        using JsonDocument headers = JsonDocument.Parse(message.MessageAttributes["NServiceBus.AmazonSQS.Headers"].StringValue!);
        return $"an NServiceBus message: {headers.RootElement.GetProperty("NServiceBus.EnclosedMessageTypes").GetString()} ({headers.RootElement.GetProperty("NServiceBus.MessageIntent").GetString()}), body {message.Body}";
    }
}

/// <summary>What the handlers got, one line each.</summary>
public sealed class Journal
{
    public ConcurrentQueue<string> Lines { get; } = new();
}

internal sealed class OrderHandler(Journal journal, IMessagePublisher publisher) : IMessageHandler<Sales.Contracts.OrderSubmitted>
{
    public async Task HandleAsync(MessageEnvelope<Sales.Contracts.OrderSubmitted> envelope, CancellationToken cancellationToken)
    {
        Sales.Contracts.OrderSubmitted order = envelope.Message;
        await publisher.PublishAsync(new Warehouse.Contracts.OrderShipped(order.OrderId, "parcel-post"), cancellationToken: cancellationToken).ConfigureAwait(false);
        MassTransitMetadata sender = envelope.MassTransitMetadata!;
        journal.Lines.Enqueue($"from MassTransit: order {order.OrderId} of {order.Customer} ({order.Total}), message {envelope.Id} from {envelope.Source}, conversation {sender.ConversationId}");
    }
}

internal sealed class PaymentHandler(Journal journal, IMessagePublisher publisher) : IMessageHandler<Billing.Messages.PaymentReceived>
{
    public async Task HandleAsync(MessageEnvelope<Billing.Messages.PaymentReceived> envelope, CancellationToken cancellationToken)
    {
        Billing.Messages.PaymentReceived payment = envelope.Message;
        await publisher.PublishAsync(new Billing.Messages.InvoiceRequested(payment.OrderId, payment.Amount), cancellationToken: cancellationToken).ConfigureAwait(false);
        NServiceBusMetadata sender = envelope.NServiceBusMetadata!;
        journal.Lines.Enqueue($"from NServiceBus: payment of {payment.Amount} for {payment.OrderId}, message {envelope.Id} from {envelope.Source} sent {envelope.Time:u}, intent {sender.MessageIntent}");
    }
}

[JsonSerializable(typeof(Sales.Contracts.OrderSubmitted))]
[JsonSerializable(typeof(Billing.Messages.PaymentReceived))]
[JsonSerializable(typeof(Warehouse.Contracts.OrderShipped))]
[JsonSerializable(typeof(Billing.Messages.InvoiceRequested))]
internal sealed partial class ShippingJsonContext : JsonSerializerContext
{
}
