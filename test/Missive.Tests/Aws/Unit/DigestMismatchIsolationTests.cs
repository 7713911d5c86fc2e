using System;
using System.Collections.Concurrent;
using System.Linq;
using System.Net.Http;
using System.Threading;
using System.Threading.Tasks;
using Amazon;
using Amazon.SQS;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Time.Testing;
using Missive.Aws;
using Missive.Bus;
using Missive.Serialization;
using Missive.Tests.Infrastructure;
using Missive.Transport;

namespace Missive.Tests.Aws.Unit;

/// <summary>
/// One message whose MD5 digest does not match, among thirty healthy ones, on a queue with a redrive policy: on either
/// SQS client it fails alone and goes to the dead-letter queue, and no healthy neighbour does (on the SDK's client, whose
/// digest check fails its whole receive and has no switch, receives take one message at a time for a while).
/// </summary>
public sealed class DigestMismatchIsolationTests
{
    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public async Task AMessageWhoseDigestIsWrong_FailsAlone_AndNoHealthyNeighbourIsDeadLettered(bool sdkClient)
    {
        var clock = new FakeTimeProvider();
        var queue = new SqsQueueModel(clock, maxReceiveCount: 3);
        var handled = new ConcurrentBag<string>();
        var logs = new CapturingLoggerProvider();
        using IHost host = Host(queue, clock, handled, logs, sdkClient);
        IEnvelopeFactory factory = host.Services.GetRequiredService<IEnvelopeFactory>();
        IEnvelopeSerializer serializer = host.Services.GetRequiredService<IEnvelopeSerializer>();
        for (int i = 0; i < 31; i++)
        {
            Order order = Orders.Create(1);
            order.OrderId = i == 4 ? "BAD" : "ORD-" + i;
            queue.Add(order.OrderId, serializer.SerializeToString(factory.CreateEnvelope(order)), wrongDigest: i == 4);
        }

        await host.StartAsync();
        for (int step = 0; queue.Remaining > 0; step++)
        {
            Assert.True(step < 2_000, $"not done: {queue.Remaining} left, handled {handled.Count}, dead-lettered [{string.Join(",", queue.DeadLettered)}]");
            clock.Advance(TimeSpan.FromMilliseconds(250));
            await Task.Delay(1);
        }

        await host.StopAsync();

        Assert.Equal(["BAD"], queue.DeadLettered); // the message that does not match, alone
        Assert.Equal(30, handled.Distinct().Count());
        Assert.DoesNotContain("BAD", handled);
        Assert.Contains(logs.Entries, e => e.EventId == 3001 && e.Text.Contains("BAD", StringComparison.Ordinal));
        if (sdkClient)
        {
            Assert.Contains(1, queue.Asked); // receives took one message at a time for a while
        }
    }

    private static IHost Host(SqsQueueModel queue, TimeProvider clock, ConcurrentBag<string> handled, CapturingLoggerProvider logs, bool sdkClient)
    {
        var options = new AwsTransportOptions { Region = "eu-west-1", Credentials = AwsEmulator.Credentials, MaxAttempts = 1 };
        options.QueueUrls["orders"] = new Uri(SqsQueueModel.QueueUrl);
        AwsSettings settings = AwsSettings.Resolve(options, static _ => null);
        IAmazonSQS? sdk = sdkClient ? new AmazonSQSClient(AwsEmulator.Credentials, new AmazonSQSConfig { RegionEndpoint = RegionEndpoint.EUWest1, MaxErrorRetry = 0, HttpClientFactory = new SdkHttpClients(queue) }) : null;
        HostApplicationBuilder builder = Microsoft.Extensions.Hosting.Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        builder.Logging.ClearProviders();
        builder.Logging.AddProvider(logs);
        builder.Services.AddSingleton(clock);
        builder.Services.AddSingleton(handled);
        builder.Services.AddSingleton<IMessageTransport>(sp => new AwsTransport(
            options,
            settings,
            service => new HttpClient(AwsTransport.CreateSigningHandler(settings, service, queue), disposeHandler: false) { Timeout = Timeout.InfiniteTimeSpan },
            clock,
            sp.GetRequiredService<ILoggerFactory>().CreateLogger<AwsTransport>(),
            sdk));
        builder.Services.AddMessageBus(bus => bus
            .AddMessageType<Order>(TestSerializers.OrderType)
            .ConfigureSerialization(o => o.JsonSerializerContext = TestJsonContext.Default)
            .AddHandler<Order, CollectingHandler>()
            .AddQueuePoller("orders", o =>
            {
                o.WaitTime = TimeSpan.FromSeconds(1);
                o.VisibilityTimeout = TimeSpan.FromSeconds(10);
                o.ReceiveErrorDelay = TimeSpan.FromMilliseconds(100);
                o.MaxReceiveErrorDelay = TimeSpan.FromMilliseconds(100);
            }));
        return builder.Build();
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
