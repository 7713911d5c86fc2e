using System;
using System.Collections.Concurrent;
using System.IO;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Missive.Aws;
using Missive.Bus;
using Missive.Tests.Infrastructure;
using Missive.Transport;

namespace Missive.Tests.Aws;

/// <summary>
/// An application configured as AWS documents it, in its "AWS" section alone (region, a profile, ServiceURL,
/// AuthenticationRegion), with Missive given nothing but its topic: every call the bus makes (SNS, SQS through either
/// client) takes the application's settings, on the local endpoint whose proxy checks every signature.
/// </summary>
[Collection(AwsEmulatorCollection.Name)]
public sealed class AwsOneConfigurationTests(AwsEmulatorFixture fixture)
{
    [EmulatorTheory]
    [InlineData(false)]
    [InlineData(true)] // SQS through the application's IAmazonSQS (AddAWSService<IAmazonSQS>() from the same section)
    public async Task AnApplicationConfiguredOnlyByItsAwsSection_PublishesToSnsAndSqs_AndReceives(bool sdkClient)
    {
        AwsEmulator emulator = fixture.Emulator;
        string suffix = sdkClient ? "-sdk" : "-own";
        string topicArn = await emulator.CreateTopicAsync("one-config" + suffix);
        await emulator.CreateQueueAsync("one-config-orders" + suffix);
        await emulator.CreateQueueAsync("one-config-direct" + suffix);
        await emulator.SubscribeAsync(topicArn, "one-config-orders" + suffix);
        string profiles = Path.Combine(Path.GetTempPath(), $"missive-profiles-{Guid.NewGuid():N}");
        Amazon.Runtime.ImmutableCredentials keys = AwsEmulator.Credentials.GetCredentials();
        await File.WriteAllTextAsync(profiles, $"[orders-service]\naws_access_key_id = {keys.AccessKey}\naws_secret_access_key = {keys.SecretKey}\n");
        try
        {
            HostApplicationBuilder builder = Host.CreateApplicationBuilder();
            builder.Logging.ClearProviders();
            var logs = new CapturingLoggerProvider();
            builder.Logging.AddProvider(logs);
            builder.Configuration.AddInMemoryCollection(new System.Collections.Generic.Dictionary<string, string?>
            {
                ["AWS:Region"] = AwsEmulator.Region,
                ["AWS:Profile"] = "orders-service",
                ["AWS:ProfilesLocation"] = profiles,
                ["AWS:ServiceURL"] = emulator.Proxy.AbsoluteUri,
                ["AWS:AuthenticationRegion"] = AwsEmulator.Region,
            });
            if (sdkClient)
            {
                builder.Services.AddDefaultAWSOptions(builder.Configuration.GetAWSOptions());
                builder.Services.AddAWSService<Amazon.SQS.IAmazonSQS>();
            }

            var handled = new ConcurrentBag<string>();
            builder.Services.AddSingleton(handled);
            builder.Services.AddMessageBus(bus => bus
                .AddMessageType<Order>(TestSerializers.OrderType)
                .ConfigureSerialization(o => o.JsonSerializerContext = TestJsonContext.Default)
                .AddSnsPublisher<Order>("orders")
                .AddHandler<Order, CollectingHandler>()
                .AddQueuePoller("one-config-orders" + suffix, o => o.WaitTime = TimeSpan.FromSeconds(1))
                .AddQueuePoller("one-config-direct" + suffix, o => o.WaitTime = TimeSpan.FromSeconds(1))
                .UseAws(o =>
                {
                    o.TopicArns["orders"] = topicArn; // the one thing the application's AWS options cannot say
                    o.UseSdkSqsClient = sdkClient;
                }));
            using IHost host = builder.Build();
            await host.StartAsync();
            IMessagePublisher publisher = host.Services.GetRequiredService<IMessagePublisher>();
            Order viaTopic = Orders.Create(1), direct = Orders.Create(1);
            viaTopic.OrderId = "VIA-SNS" + suffix;
            direct.OrderId = "VIA-SQS" + suffix;
            await publisher.PublishAsync(viaTopic);
            var transport = Assert.IsType<AwsTransport>(host.Services.GetRequiredService<IMessageTransport>());
            await transport.SendAsync(host.Services.GetRequiredService<OutboundMessageWriter>().ToSqs(host.Services.GetRequiredService<Missive.Serialization.IEnvelopeFactory>().CreateEnvelope(direct), "one-config-direct" + suffix));

            await BusTestHost.WaitUntil(() => handled.Contains(viaTopic.OrderId) && handled.Contains(direct.OrderId));
            await host.StopAsync();

            Assert.Equal(sdkClient, transport.UsesSdkSqsClient);
            Assert.Equal(AwsEmulator.Region, transport.Region);
            Assert.Equal(emulator.Proxy.Authority, transport.SnsEndpoint.Authority); // the application's ServiceURL
            string startup = Assert.Single(logs.Entries, e => e.EventId == 2026).Text;
            Assert.Contains(sdkClient ? "AddDefaultAWSOptions" : "the \"AWS\" configuration section", startup, StringComparison.Ordinal); // what chose the region, endpoint and credentials
            Assert.Contains("the profile 'orders-service'", startup, StringComparison.Ordinal);
            Assert.Equal(0, (await emulator.StatsAsync()).Rejected); // every request signed as the application's own clients sign
        }
        finally
        {
            File.Delete(profiles);
        }
    }

    [EmulatorTheory]
    [InlineData(true)]
    [InlineData(false)] // without AuthenticationRegion the SDK signs for us-east-1, where the queue is not: refused at startup
    public async Task TheSdkClientSnippetOfTheAwsPage_PublishesOnTheLocalEndpoint_AsItsCommentSays(bool authenticationRegion)
    {
        AwsEmulator emulator = fixture.Emulator;
        string url = await emulator.CreateQueueAsync("orders");
        string profiles = Path.Combine(Path.GetTempPath(), $"missive-profiles-{Guid.NewGuid():N}");
        Amazon.Runtime.ImmutableCredentials keys = AwsEmulator.Credentials.GetCredentials();
        await File.WriteAllTextAsync(profiles, $"[default]\naws_access_key_id = {keys.AccessKey}\naws_secret_access_key = {keys.SecretKey}\n");
        try
        {
            HostApplicationBuilder builder = Host.CreateApplicationBuilder();
            builder.Logging.ClearProviders();
            builder.Configuration.AddInMemoryCollection(new System.Collections.Generic.Dictionary<string, string?>
            {
                ["AWS:Region"] = AwsEmulator.Region,
                ["AWS:ProfilesLocation"] = profiles,
                ["AWS:Profile"] = "default",
                ["AWS:ServiceURL"] = emulator.Proxy.AbsoluteUri,
                ["AWS:AuthenticationRegion"] = authenticationRegion ? AwsEmulator.Region : null,
            });
            Missive.Tests.Readme.SdkSqsClientWiring.AddOrdersBusOnTheSdkClient(builder);
            builder.Services.Configure<AwsTransportOptions>(o => o.QueueUrls["orders"] = new Uri(url));
            using IHost host = builder.Build();

            if (!authenticationRegion)
            {
                var refused = await Assert.ThrowsAsync<MessageBusConfigurationException>(() => host.StartAsync());
                Assert.Contains("AuthenticationRegion", refused.Message, StringComparison.Ordinal);
                return;
            }

            await host.StartAsync();
            await host.Services.GetRequiredService<IMessagePublisher>().PublishAsync(new Missive.Tests.Readme.OrderPlaced("ORD-SNIPPET", 12m));
            await host.StopAsync();

            using Amazon.SQS.AmazonSQSClient reader = emulator.CreateSqsClient();
            Amazon.SQS.Model.ReceiveMessageResponse received = await reader.ReceiveMessageAsync(new Amazon.SQS.Model.ReceiveMessageRequest { QueueUrl = url, WaitTimeSeconds = 1 });
            Assert.Contains("ORD-SNIPPET", Assert.Single(received.Messages).Body, StringComparison.Ordinal);
        }
        finally
        {
            File.Delete(profiles);
        }
    }

    public sealed class CollectingHandler(ConcurrentBag<string> handled) : IMessageHandler<Order>
    {
        public Task HandleAsync(MessageEnvelope<Order> envelope, CancellationToken cancellationToken)
        {
            handled.Add(envelope.Message.OrderId);
            return Task.CompletedTask;
        }
    }
}
