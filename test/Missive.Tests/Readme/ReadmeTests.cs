using Microsoft.Extensions.Time.Testing;
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text.RegularExpressions;
using System.Threading.Tasks;
using Microsoft.Extensions.Configuration;
using Amazon.Runtime;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Missive.Aws;
using Missive.Tests.Infrastructure;
using Missive.Transport;

namespace Missive.Tests.Readme;

/// <summary>
/// The README and the docs: their links, commands and numbers; the snippets their C# blocks show (CSharpBlockTests
/// compiles them) are run here.
/// </summary>
public sealed partial class ReadmeTests
{
    /// <summary>README.md, every package's README, and every page of docs/.</summary>
    public static TheoryData<string> Pages()
    {
        var pages = new TheoryData<string> { "README.md" };
        foreach (string package in Directory.GetDirectories(Path.Combine(RepositoryPaths.Root, "src")).Order(StringComparer.Ordinal))
        {
            if (File.Exists(Path.Combine(package, "README.md")))
            {
                pages.Add($"src/{Path.GetFileName(package)}/README.md");
            }
        }

        foreach (string page in Directory.GetFiles(Path.Combine(RepositoryPaths.Root, "docs"), "*.md").Order(StringComparer.Ordinal))
        {
            pages.Add("docs/" + Path.GetFileName(page));
        }

        return pages;
    }

    [Fact]
    public async Task TheCoalescingSnippet_PublishesConcurrentOrders_InSharedCalls()
    {
        using ServiceProvider services = Coalescing.Services().BuildServiceProvider();
        Missive.Bus.IMessagePublisher publisher = services.GetRequiredService<Missive.Bus.IMessagePublisher>();

        await Task.WhenAll(Enumerable.Range(0, 20).Select(i => publisher.PublishAsync(new OrderPlaced("ORD-" + i, i))));

        Assert.Equal(20, services.GetRequiredService<Missive.InMemory.InMemoryBroker>().GetQueue("orders").Count);
    }

    [Fact]
    public async Task TheHealthChecksSnippet_ReportsThePollerAndPublishing_ReadyOnceTheHostRuns()
    {
        using Microsoft.Extensions.Hosting.IHost host = HealthChecksWiring.BuildWorker(["--Logging:LogLevel:Default=Warning"]);
        Microsoft.Extensions.Diagnostics.HealthChecks.HealthReport before = await HealthChecksWiring.ReadyAsync(host);
        await host.StartAsync();
        await Infrastructure.BusTestHost.WaitUntil(() => host.Services.GetRequiredService<Missive.Bus.MessageBusHealth>().Pollers[0].LastReceiveAt is not null);
        Microsoft.Extensions.Diagnostics.HealthChecks.HealthReport after = await HealthChecksWiring.ReadyAsync(host);
        await host.StopAsync();

        Assert.Equal(["missive-poller-billing", "missive-publishing"], before.Entries.Keys.Order(StringComparer.Ordinal));
        Assert.Equal(Microsoft.Extensions.Diagnostics.HealthChecks.HealthStatus.Degraded, before.Status); // not started
        Assert.Equal(Microsoft.Extensions.Diagnostics.HealthChecks.HealthStatus.Healthy, after.Status);
    }

    [Fact]
    public async Task TheQuickStartProgram_HandlesWhatItPublishes_InsideTheGenericHost()
    {
        string printed = await ConsoleCapture.RunAsync(() => QuickStartProgram.RunAsync(["--Logging:LogLevel:Default=Warning"]));

        Assert.Contains("ORD-1 via arn:aws:sns:", printed, StringComparison.Ordinal);
        Assert.Contains("ORD-2 via arn:aws:sns:", printed, StringComparison.Ordinal); // the protobuf one
    }

    [Fact]
    public async Task TheBusFeaturesSnippet_PublishesWithFifoIdsAndTheTenantStamp_AndTheTelemetrySnippetStarts()
    {
        (OpenTelemetry.Trace.TracerProvider traces, OpenTelemetry.Metrics.MeterProvider metrics) = Telemetry.Start();
        using (traces)
        using (metrics)
        {
            await using ServiceProvider provider = new ServiceCollection().AddLogging().AddOrdering().BuildServiceProvider();

            MessageEnvelope<OrderPlaced> sent = await provider.GetRequiredService<Missive.Bus.IMessagePublisher>().PublishAsync(new OrderPlaced("ORD-7", 10m));

            SqsMessage received = (await provider.GetRequiredService<Missive.InMemory.InMemoryBroker>().ReceiveAsync("orders.fifo", 1, TimeSpan.Zero)).Single();
            Assert.Equal("ORD-7", received.SystemAttributes[SqsSystemAttributes.MessageGroupId]);
            Assert.Equal("ORD-7", received.SystemAttributes[SqsSystemAttributes.MessageDeduplicationId]);
            Assert.Equal("acme", sent.Extensions["tenant"].AsString());
            Assert.Contains("\"tenant\":\"acme\"", received.Body, StringComparison.Ordinal);
        }
    }

    [Fact]
    public async Task TheDeliveryOptionsSnippets_SendTheMessageLater_WithItsAttribute_AndPublishMany()
    {
        var time = new FakeTimeProvider(new DateTimeOffset(2025, 11, 3, 14, 27, 9, TimeSpan.Zero));
        await using ServiceProvider provider = new ServiceCollection()
            .AddSingleton<TimeProvider>(time)
            .AddMessageBus(bus => bus
                .AddMessageType<OrderPlaced>("orders.placed")
                .ConfigureSerialization(o => o.JsonSerializerContext = AppJsonContext.Default)
                .UseInMemoryBroker(b => b.CreateQueue("orders"))
                .AddSqsPublisher<OrderPlaced>("orders"))
            .BuildServiceProvider();
        var broker = provider.GetRequiredService<Missive.InMemory.InMemoryBroker>();

        await DeliveryOptions.PublishLaterWithATenant(provider.GetRequiredService<Missive.Bus.IMessagePublisher>(), new OrderPlaced("ORD-8", 5m));

        Assert.Empty(await broker.ReceiveAsync("orders", 1, TimeSpan.Zero));
        time.Advance(TimeSpan.FromSeconds(30));
        SqsMessage received = Assert.Single(await broker.ReceiveAsync("orders", 1, TimeSpan.Zero));
        Assert.Equal("acme", received.MessageAttributes["tenant"].StringValue);

        int failed = await PublishingMany.PublishMany(provider.GetRequiredService<Missive.Bus.IMessagePublisher>(), [new OrderPlaced("ORD-9", 1m), new OrderPlaced("ORD-10", 2m)]);

        Assert.Equal(0, failed);
        Assert.Equal(2, (await broker.ReceiveAsync("orders", 10, TimeSpan.Zero)).Count);
    }

    [Fact]
    public async Task TheReadingSnippet_ReadsAnEventBridgeEvent_WithTheDetailReadInPlace()
    {
        await using ServiceProvider provider = new ServiceCollection()
            .AddMessageBus(bus => bus
                .AddMessageType<OrderPlaced>("Orders.OrderPlaced")
                .ConfigureSerialization(o => o.JsonSerializerContext = AppJsonContext.Default)
                .EnableExperimentalFeatures()
                .AddEventBridgePublisher<OrderPlaced>("orders-bus")
                .UseInMemoryBroker(b =>
                {
                    b.CreateEventBus("orders-bus");
                    b.CreateQueue("audit");
                    b.AddRule("orders-bus", "audit");
                }))
            .BuildServiceProvider();
        await provider.GetRequiredService<Missive.Bus.IMessagePublisher>().PublishAsync(new OrderPlaced("ORD-11", 3m));
        SqsMessage received = Assert.Single(await provider.GetRequiredService<Missive.InMemory.InMemoryBroker>().ReceiveAsync("audit", 1, TimeSpan.Zero));

        var read = Assert.IsType<MessageEnvelope<OrderPlaced>>(ReadingReceivedMessages.Read(provider, received));

        Assert.Equal("ORD-11", read.Message.OrderId);
        Assert.NotNull(read.EventBridgeMetadata);
    }

    [Fact]
    public async Task TheNativeMessagesSnippet_HandlesS3sNotificationAndEc2sEvent_AndPublishesAnOrderWithoutAnEnvelope()
    {
        HostApplicationBuilder builder = Host.CreateApplicationBuilder();
        builder.Logging.ClearProviders();
        builder.AddUploadsBus();
        using IHost host = builder.Build();
        Missive.InMemory.InMemoryBroker broker = host.Services.GetRequiredService<Missive.InMemory.InMemoryBroker>();
        await broker.SendAsync(new SqsSendRequest { QueueName = "inbox", Body = Native.AwsEvents.Body("s3-object-created-put.json") });
        await broker.SendAsync(new SqsSendRequest { QueueName = "inbox", Body = Native.AwsEvents.Body("eventbridge-ec2-state-change.json") });

        await host.StartAsync();
        await BusTestHost.WaitUntil(() => { lock (UploadHandler.Keys) { lock (InstanceHandler.States) { return UploadHandler.Keys.Count == 1 && InstanceHandler.States.Count == 1; } } });
        await host.StopAsync();

        Assert.Equal("amzn-s3-demo-bucket/HappyFace.jpg", UploadHandler.Keys.Single());
        Assert.Equal("i-abcd1111 pending", InstanceHandler.States.Single());

        HostApplicationBuilder publishing = Host.CreateApplicationBuilder();
        publishing.AddLegacyOrdersPublisher();
        using IHost publisher = publishing.Build();
        await publisher.Services.GetRequiredService<Missive.Bus.IMessagePublisher>().PublishAsync(new OrderPlaced("ORD-12", 4m));
        SqsMessage sent = Assert.Single(await publisher.Services.GetRequiredService<Missive.InMemory.InMemoryBroker>().ReceiveAsync("legacy-orders", 1, TimeSpan.Zero));
        Assert.Equal("{\"OrderId\":\"ORD-12\",\"Total\":4}", sent.Body);
        Assert.Equal("Orders.OrderPlaced", sent.MessageAttributes["MessageType"].StringValue);
    }

    [Fact]
    public async Task TheMassTransitSnippet_HandlesWhatMassTransitsOwnSerializerWrote_UnderTheSalesContractsUrn()
    {
        HostApplicationBuilder builder = Host.CreateApplicationBuilder();
        builder.Logging.ClearProviders();
        builder.AddBillingBus();
        using IHost host = builder.Build();
        var orderId = Guid.NewGuid();
        Guid conversation = Guid.NewGuid();
        // The MassTransit side declares the type as Sales.Contracts.OrderSubmitted: its URN, as MassTransit writes it.
        string body = System.Text.Encoding.UTF8.GetString(Interop.MassTransitBodies.Serialize(new OrderSubmitted(orderId, "ada", 42.50m), c => c.ConversationId = conversation))
            .Replace("urn:message:Missive.Tests.Readme:OrderSubmitted", "urn:message:Sales.Contracts:OrderSubmitted", StringComparison.Ordinal);
        await host.Services.GetRequiredService<Missive.InMemory.InMemoryBroker>().SendAsync(new SqsSendRequest { QueueName = "billing", Body = body });

        string printed = await ConsoleCapture.RunAsync(async () =>
        {
            await host.StartAsync();
            await BusTestHost.WaitUntil(() => host.Services.GetRequiredService<Missive.InMemory.InMemoryBroker>().GetQueue("billing").Count == 0);
            await host.StopAsync();
        });

        Assert.Contains($"{orderId}: 42.50 (conversation {conversation})", printed, StringComparison.Ordinal);
    }

    [Fact]
    public async Task TheMassTransitPublishingSnippet_PublishesWhatMassTransitsDeserializerReads_OnItsTopic()
    {
        HostApplicationBuilder builder = Host.CreateApplicationBuilder();
        builder.Logging.ClearProviders();
        builder.AddOrdersForMassTransit();
        using IHost host = builder.Build();

        await host.Services.GetRequiredService<Missive.Bus.IMessagePublisher>().PublishAsync(new OrderPlaced("ORD-13", 7.25m));
        SqsMessage sent = Assert.Single(await host.Services.GetRequiredService<Missive.InMemory.InMemoryBroker>().ReceiveAsync("masstransit-billing", 1, TimeSpan.Zero));

        MassTransit.SerializerContext context = new MassTransit.Serialization.SystemTextJsonMessageSerializer()
            .Deserialize(new MassTransit.BytesMessageBody(sent.Utf8Body.ToArray()), MassTransit.Serialization.EmptyHeaders.Instance);
        Assert.Equal(["urn:message:Shop.Orders:OrderPlaced"], context.SupportedMessageTypes);
        Assert.True(context.TryGetMessage(out Shop.Orders.OrderPlaced? order)); // the MassTransit side's own type
        Assert.False(context.TryGetMessage(out OrderPlaced? _)); // MassTransit goes by the URN: another type's is not read
        Assert.Equal(("ORD-13", 7.25m), (order!.OrderId, order.Total));
    }

    [Fact]
    public async Task TheNServiceBusSnippet_HandlesTheWrappedTransportMessage_UnderItsBillingMessagesName()
    {
        HostApplicationBuilder builder = Host.CreateApplicationBuilder();
        builder.Logging.ClearProviders();
        builder.AddShippingBus();
        using IHost host = builder.Build();
        var orderId = Guid.NewGuid();
        string message = $"{{\"OrderId\":\"{orderId}\",\"Amount\":12.5}}";
        string headers = "{\"NServiceBus.EnclosedMessageTypes\":\"Billing.Messages.OrderBilled, Billing.Messages, Version=1.0.0.0, Culture=neutral, PublicKeyToken=null\",\"NServiceBus.MessageId\":\"nsb-1\",\"NServiceBus.OriginatingEndpoint\":\"Billing\"}";
        string body = $"{{\"Body\":\"{Convert.ToBase64String(System.Text.Encoding.UTF8.GetBytes(message))}\",\"S3BodyKey\":null,\"Headers\":{headers}}}";
        await host.Services.GetRequiredService<Missive.InMemory.InMemoryBroker>().SendAsync(new SqsSendRequest { QueueName = "shipping", Body = body });

        string printed = await ConsoleCapture.RunAsync(async () =>
        {
            await host.StartAsync();
            await BusTestHost.WaitUntil(() => host.Services.GetRequiredService<Missive.InMemory.InMemoryBroker>().GetQueue("shipping").Count == 0);
            await host.StopAsync();
        });

        Assert.Contains($"{orderId} billed 12.5 by Billing", printed, StringComparison.Ordinal);
    }

    [Fact]
    public async Task TheLargeMessagesSnippet_CarriesAFiveMiBDocument_OnTheInMemoryBroker()
    {
        HostApplicationBuilder builder = Host.CreateApplicationBuilder();
        builder.Logging.ClearProviders();
        builder.Services.AddDocuments();
        using IHost host = builder.Build();
        Missive.Offload.IPayloadStore store = host.Services.GetRequiredService<Missive.Offload.IPayloadStore>();
        var document = new ScannedDocument("DOC-1", new byte[5 * 1024 * 1024]);

        string printed = await ConsoleCapture.RunAsync(async () =>
        {
            await host.StartAsync();
            await host.Services.GetRequiredService<Missive.Bus.IMessagePublisher>().PublishAsync(document);
            await BusTestHost.WaitUntil(() => ((Missive.Offload.InMemoryPayloadStore)store).Count == 1 && host.Services.GetRequiredService<Missive.InMemory.InMemoryBroker>().GetQueue("documents").Count == 0); // deleted once handled
            await host.StopAsync();
        });

        Assert.Contains("DOC-1: 5242880 bytes of pages", printed, StringComparison.Ordinal);
    }

    [Fact]
    public void TheLargeMessagesSnippet_OnAws_UsesTheS3Store()
    {
        IConfiguration configuration = new ConfigurationBuilder().AddInMemoryCollection(new Dictionary<string, string?> { ["Missive:Aws:Region"] = "eu-west-1" }).Build();
        IServiceCollection services = new ServiceCollection().AddDocumentsOnAws(configuration);
        services.Configure<AwsTransportOptions>(o => o.Credentials = new BasicAWSCredentials("AKIDEXAMPLE", "secret"));
        using ServiceProvider provider = services.BuildServiceProvider();

        Assert.Equal("documents-payloads", Assert.IsType<S3PayloadStore>(provider.GetRequiredService<Missive.Offload.IPayloadStore>()).Bucket);
    }

    [Fact]
    public void TheSerializerSnippets_RoundTripOneEnvelopeAndABatch_WithWhatDependencyInjectionHandsOut()
    {
        foreach (bool experimental in new[] { false, true })
        {
            var services = new ServiceCollection();
            services.AddMessageBus(bus =>
            {
                bus.AddMessageType<OrderPlaced>("Orders.OrderPlaced").ConfigureSerialization(o => o.JsonSerializerContext = AppJsonContext.Default);
                if (experimental)
                {
                    bus.EnableExperimentalFeatures();
                }
            });
            using ServiceProvider provider = services.BuildServiceProvider();
            var order = new OrderPlaced("ORD-3", 10m);

            MessageEnvelope read = EnvelopeRoundTrip.SerializeAndRead(provider, order);
            var batch = new List<MessageEnvelope> { read, read };
            IReadOnlyList<MessageEnvelope> readBatch = EnvelopeRoundTrip.SerializeAndReadBatch(provider, batch);

            Assert.Equal(order, ((MessageEnvelope<OrderPlaced>)read).Message);
            Assert.Equal(2, readBatch.Count);
            EnvelopeAssert.Equal(batch, readBatch);
        }
    }

    [Fact]
    public void TheAwsSnippet_BindsItsSection_AndRunsOnAws()
    {
        IConfiguration configuration = new ConfigurationBuilder().AddInMemoryCollection(new Dictionary<string, string?>
        {
            ["AWS:Region"] = "eu-west-1", // the application's own AWS settings, where a host finds them
            ["Missive:Aws:VerifyResourcesAtStartup"] = "true",
            ["Missive:Aws:TopicArns:orders"] = "arn:aws:sns:eu-west-1:123456789012:orders",
        }).Build();
        IServiceCollection services = new ServiceCollection().AddSingleton(configuration).AddOrdersBus(configuration);
        services.Configure<AwsTransportOptions>(o => o.Credentials = new BasicAWSCredentials("AKIDEXAMPLE", "secret")); // none on a test machine
        using ServiceProvider provider = services.BuildServiceProvider();

        var transport = Assert.IsType<AwsTransport>(provider.GetRequiredService<IMessageTransport>());
        Assert.Null(provider.GetRequiredService<IOptions<AwsTransportOptions>>().Value.Region);
        Assert.Equal("eu-west-1", transport.Region); // from the "AWS" section
        Assert.True(provider.GetRequiredService<IOptions<AwsTransportOptions>>().Value.VerifyResourcesAtStartup);
    }

    [Theory]
    [MemberData(nameof(Pages))]
    public void EveryRelativeLink_NamesAFileOfTheRepository_AndEveryAnchorAHeadingOfIt(string path)
    {
        string page = File.ReadAllText(Path.Combine(RepositoryPaths.Root, path));
        string directory = Path.GetDirectoryName(Path.Combine(RepositoryPaths.Root, path))!;
        int links = 0;
        foreach (Match link in MarkdownLink().Matches(FencedBlock().Replace(page, string.Empty)))
        {
            string target = link.Groups[1].Value;
            if (target.StartsWith("https://", StringComparison.Ordinal) || target.StartsWith("http://", StringComparison.Ordinal))
            {
                continue;
            }

            links++;
            string[] parts = target.Split('#', 2);
            string file = parts[0].Length == 0 ? Path.Combine(RepositoryPaths.Root, path) : Path.GetFullPath(Path.Combine(directory, parts[0]));
            Assert.True(File.Exists(file) || Directory.Exists(file), $"{path}: the link '{target}' names nothing in the repository");
            if (parts.Length == 2)
            {
                Assert.True(File.Exists(file), $"{path}: the link '{target}' has an anchor but names no file");
                Assert.Contains(parts[1], Anchors(File.ReadAllText(file)));
            }
        }

        Assert.True(path.StartsWith("src/", StringComparison.Ordinal) || links > 0, $"{path} links to nothing: a page of docs/ leads somewhere");
    }

    [Fact]
    public void TheReadme_IsShort_AndReachesEveryPageOfDocs()
    {
        string readme = File.ReadAllText(Path.Combine(RepositoryPaths.Root, "README.md"));

        Assert.InRange(readme.Split('\n').Length, 1, 250);
        foreach (string page in Directory.GetFiles(Path.Combine(RepositoryPaths.Root, "docs"), "*.md"))
        {
            Assert.Contains($"](docs/{Path.GetFileName(page)})", readme, StringComparison.Ordinal);
        }
    }

    /// <summary>The anchors GitHub gives a page's headings: lower case, punctuation but hyphens dropped, spaces as hyphens.</summary>
    private static List<string> Anchors(string page)
    {
        var anchors = new List<string>();
        foreach (string line in FencedBlock().Replace(page.ReplaceLineEndings("\n"), string.Empty).Split('\n'))
        {
            if (line.StartsWith('#'))
            {
                string heading = line.TrimStart('#').Trim().ToLowerInvariant();
                anchors.Add(new string(heading.Where(c => char.IsLetterOrDigit(c) || c is '-' or ' ' or '_').ToArray()).Replace(' ', '-'));
            }
        }

        return anchors;
    }

    [Theory]
    [InlineData("src/Missive/README.md")]
    [InlineData("src/Missive.Aws/README.md")]
    public void ThePackageReadmes_WorkOnAPackagePage(string path)
    {
        // A package page shows the README alone: no file of the repository can be linked, shown or run from it.
        string readme = File.ReadAllText(Path.Combine(RepositoryPaths.Root, path));

        foreach (Match link in MarkdownLink().Matches(readme))
        {
            string target = link.Groups[1].Value;
            Assert.True(target.StartsWith("https://", StringComparison.Ordinal) || target.StartsWith('#'), $"{path}: the link '{target}' is relative");
        }

        Assert.DoesNotMatch(@"!\[", readme); // no images
        Assert.DoesNotContain("--project samples", readme, StringComparison.Ordinal);
        Assert.DoesNotContain(".slnx", readme, StringComparison.Ordinal);
        Assert.DoesNotContain("](src/", readme, StringComparison.Ordinal);
    }

    [GeneratedRegex(@"\]\(([^)\s]+)\)")]
    private static partial Regex MarkdownLink();

    [GeneratedRegex("```.*?```", RegexOptions.Singleline)]
    private static partial Regex FencedBlock();
}
