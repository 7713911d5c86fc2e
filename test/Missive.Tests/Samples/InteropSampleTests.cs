using System;
using System.Collections.Generic;
using System.Linq;
using System.Text;
using System.Text.Json.Nodes;
using System.Threading.Tasks;
using MassTransit;
using MassTransit.Context;
using MassTransit.Serialization;
using Missive.Samples.Interop;
using Missive.Tests.Aws;
using Missive.Tests.Infrastructure;
using Missive.Tests.Interop;

namespace Missive.Tests.Samples;

/// <summary>
/// The Interop sample as a user runs it: a MassTransit service's order and an NServiceBus endpoint's payment on one
/// queue, each to its handler, answered in each bus's format, on the in-memory broker and, switched by configuration
/// alone, on the local endpoint; and the sample's MassTransit bodies checked against MassTransit 8.5.12 itself.
/// </summary>
[Collection(AwsEmulatorCollection.Name)]
public sealed class InteropSampleTests(AwsEmulatorFixture fixture)
{
    private static readonly Guid OrderId = Guid.Parse("63276a04-4452-430f-a5df-ae1d31727408");

    private static string[] Expected(string warehouse = "warehouse", string invoicing = "invoicing") =>
    [
        "from MassTransit: order 63276a04-4452-430f-a5df-ae1d31727408 of ada (42.50), message 0b390000-8f3e-5254-51f8-08de31ad0b16 from amazonsqs://eu-west-1/sales, conversation 0b390000-8f3e-5254-3b09-08de31ad0b16",
        "from NServiceBus: payment of 42.50 for 63276a04-4452-430f-a5df-ae1d31727408, message 093c17c6-d32e-44fe-9134-65c10c1287eb from Billing sent 2026-12-01 09:31:00Z, intent Send",
        warehouse + " received MassTransit's envelope (application/vnd.masstransit+json): urn:message:Warehouse.Contracts:OrderShipped, message {\"OrderId\":\"63276a04-4452-430f-a5df-ae1d31727408\",\"Carrier\":\"parcel-post\"}",
        invoicing + " received an NServiceBus message: Billing.Messages.InvoiceRequested (Send), body {\"OrderId\":\"63276a04-4452-430f-a5df-ae1d31727408\",\"Amount\":42.50}",
    ];

    [Fact]
    public async Task OnTheInMemoryBroker_EachBusMessageReachesItsHandler_AndIsAnsweredInItsFormat()
    {
        IReadOnlyList<string> lines = await ShippingHost.RunOnceAsync(["--Logging:LogLevel:Default=Warning"]);

        Assert.Equal(Expected(), lines);
    }

    [EmulatorFact]
    public async Task OnTheLocalEndpoint_ByConfigurationAlone_TheSameHappens()
    {
        AwsEmulator emulator = fixture.Emulator;
        string queue = AwsTransportSqsTests.NewName("shipping"), warehouse = AwsTransportSqsTests.NewName("warehouse"), invoicing = AwsTransportSqsTests.NewName("invoicing");
        foreach (string name in new[] { queue, warehouse, invoicing })
        {
            await emulator.CreateQueueAsync(name);
        }

        using var credentials = new EnvironmentScope(("AWS_ACCESS_KEY_ID", AwsEmulator.Credentials.GetCredentials().AccessKey), ("AWS_SECRET_ACCESS_KEY", AwsEmulator.Credentials.GetCredentials().SecretKey));

        IReadOnlyList<string> lines = await ShippingHost.RunOnceAsync(
        [
            "--Missive:Transport=Aws",
            $"--Missive:Queue={queue}",
            $"--Missive:Warehouse={warehouse}",
            $"--Missive:Invoicing={invoicing}",
            $"--AWS:ServiceURL={emulator.Proxy}",
            $"--AWS:Region={AwsEmulator.Region}",
            "--Missive:Poller:WaitTime=00:00:01",
            "--Logging:LogLevel:Default=Warning",
        ]);

        Assert.Equal(Expected(warehouse, invoicing), lines);
    }

    [Fact]
    public void TheSamplesMassTransitOrder_IsWhatMassTransitWrites_ButForItsSentTimeAndHost()
    {
        byte[] written = MassTransitBodies.Serialize(new Sales.Contracts.OrderSubmitted(OrderId, "ada", 42.50m), context =>
        {
            context.MessageId = Guid.Parse("0b390000-8f3e-5254-51f8-08de31ad0b16");
            context.ConversationId = Guid.Parse("0b390000-8f3e-5254-3b09-08de31ad0b16");
            context.SourceAddress = new Uri("amazonsqs://eu-west-1/sales");
            context.DestinationAddress = new Uri("amazonsqs://eu-west-1/Sales_Contracts-OrderSubmitted?type=topic");
        });
        JsonObject theirs = JsonNode.Parse(written)!.AsObject(), ours = JsonNode.Parse(ShippingHost.MassTransitOrder)!.AsObject();

        Assert.Equal(theirs.Select(p => p.Key), ours.Select(p => p.Key)); // the same members, in MassTransit's order
        foreach ((string name, JsonNode? value) in theirs)
        {
            if (name is not ("sentTime" or "host"))
            {
                Assert.True(JsonNode.DeepEquals(value, ours[name]), $"{name}: MassTransit writes {value?.ToJsonString()}, the sample has {ours[name]?.ToJsonString()}");
            }
        }

        Assert.Equal(theirs["host"]!.AsObject().Select(p => p.Key), ours["host"]!.AsObject().Select(p => p.Key));
    }

    [Fact]
    public async Task WhatTheWarehouseReceives_MassTransitsOwnDeserializerReads()
    {
        using Microsoft.Extensions.Hosting.IHost host = ShippingHost.Build(["--Logging:LogLevel:Default=Warning"]);
        var publisher = Microsoft.Extensions.DependencyInjection.ServiceProviderServiceExtensions.GetRequiredService<Missive.Bus.IMessagePublisher>(host.Services);
        var broker = Microsoft.Extensions.DependencyInjection.ServiceProviderServiceExtensions.GetRequiredService<Missive.InMemory.InMemoryBroker>(host.Services);

        await publisher.PublishAsync(new Warehouse.Contracts.OrderShipped(OrderId, "parcel-post"));
        Missive.Transport.SqsMessage sent = Assert.Single(await broker.ReceiveAsync("warehouse", 1, TimeSpan.Zero));

        SerializerContext context = new SystemTextJsonMessageSerializer().Deserialize(new BytesMessageBody(sent.Utf8Body.ToArray()), EmptyHeaders.Instance, new Uri("loopback://localhost/warehouse"));
        Assert.True(context.TryGetMessage(out Warehouse.Contracts.OrderShipped? read));
        Assert.Equal(new Warehouse.Contracts.OrderShipped(OrderId, "parcel-post"), read);
    }
}
