using System;
using System.Text.Json.Serialization;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Missive.Bus;
using Missive.Serialization;

namespace Missive.Samples.WorkerService;

/// <summary>
/// Builds the worker's host: the bus configured from the "Missive" section, a publishing worker and a handler.
/// "Missive:Transport" chooses where the bus runs: "InMemory" (the default) or "Aws", configured from
/// "Missive:Aws" (region, endpoints, topic ARNs; credentials from the AWS default chain).
/// </summary>
public static class WorkerHost
{
    /// <param name="args">The command line (configuration keys as <c>--Missive:Transport=Aws</c>).</param>
    /// <param name="configure">More services before the bus (for example the application's own AWS SDK clients), or <c>null</c>.</param>
    /// <param name="contentRoot">The folder that holds appsettings.json, or <c>null</c> for the program's own folder.</param>
    public static IHost Build(string[] args, Action<HostApplicationBuilder>? configure = null, string? contentRoot = null)
    {
        HostApplicationBuilder builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { Args = args, ContentRootPath = contentRoot ?? AppContext.BaseDirectory });
        configure?.Invoke(builder);
        IConfigurationSection missive = builder.Configuration.GetSection("Missive");
        string topic = missive["Topic"] ?? "orders";
        string queue = missive["Queue"] ?? "orders-worker";
        string deadLetters = missive["DeadLetterQueue"] ?? queue + "-dlq";
        int maxReceiveCount = missive.GetValue("MaxReceiveCount", 5);
        EnvelopeFormat format = missive.GetValue("PublishFormat", EnvelopeFormat.Json);

        builder.Services.AddSingleton<OrderStatistics>();
        builder.Services.Configure<WorkerOptions>(builder.Configuration.GetSection("Worker"));
        builder.Services.AddHostedService<OrderWorker>();
        builder.Services.AddMessageBus(bus =>
        {
            bus.AddMessageType<OrderPlaced>("Orders.OrderPlaced");
            bus.UseMessageSource(missive["Source"] ?? "/samples/worker-service");
            bus.ConfigureSerialization(options =>
            {
                // The settings read by name (no reflection), so that the worker publishes with NativeAOT too.
                IConfigurationSection serialization = missive.GetSection("Serialization");
                options.CleanRentedBuffers = serialization.GetValue("CleanRentedBuffers", options.CleanRentedBuffers);
                options.InitialBufferSize = serialization.GetValue("InitialBufferSize", options.InitialBufferSize);
                options.MaxEnvelopeSize = serialization.GetValue("MaxEnvelopeSize", options.MaxEnvelopeSize);
                options.LogMessageContent = serialization.GetValue("LogMessageContent", options.LogMessageContent);
                options.JsonSerializerContext = WorkerJsonContext.Default;
            });
            bus.EnableExperimentalFeatures(x => x.PublishFormat = format);
            bus.AddSnsPublisher<OrderPlaced>(topic);
            bus.AddHandler<OrderPlaced, OrderPlacedHandler>();
            bus.AddQueuePoller(queue, missive.GetSection("Poller")); // a key that is no setting stops the host, naming the nearest
            if (string.Equals(missive["Transport"], "Aws", StringComparison.OrdinalIgnoreCase))
            {
                // The topic, the queue, its subscription and redrive policy exist already: on AWS, or on the local endpoint
                // that tools/local-aws/local.mjs starts from local-aws.json (the README, "A local endpoint").
                bus.UseAws(missive.GetSection("Aws"));
            }
            else
            {
                bus.UseInMemoryBroker(broker =>
                {
                    broker.CreateQueue(deadLetters);
                    broker.CreateQueue(queue, o => { o.DeadLetterQueue = deadLetters; o.MaxReceiveCount = maxReceiveCount; });
                    broker.CreateTopic(topic);
                    broker.Subscribe(topic, queue);
                });
            }
        });
        return builder.Build();
    }
}

/// <summary>The worker's own settings ("Worker" section).</summary>
public sealed class WorkerOptions
{
    public TimeSpan PublishInterval { get; set; } = TimeSpan.FromSeconds(1);
}

/// <summary>An order was placed.</summary>
public sealed record OrderPlaced(string OrderId, decimal Total);

[JsonSerializable(typeof(OrderPlaced))]
internal sealed partial class WorkerJsonContext : JsonSerializerContext
{
}

/// <summary>What the handler has seen.</summary>
public sealed class OrderStatistics
{
    private int _handled;

    public int Handled => Volatile.Read(ref _handled);

    public void Add() => Interlocked.Increment(ref _handled);
}

/// <summary>Publishes an order every <see cref="WorkerOptions.PublishInterval"/>.</summary>
internal sealed partial class OrderWorker(IMessagePublisher publisher, Microsoft.Extensions.Options.IOptions<WorkerOptions> options, ILogger<OrderWorker> logger) : BackgroundService
{
    protected override async Task ExecuteAsync(CancellationToken stoppingToken)
    {
        int number = 0;
        using var timer = new PeriodicTimer(options.Value.PublishInterval);
        while (await timer.WaitForNextTickAsync(stoppingToken).ConfigureAwait(false))
        {
            MessageEnvelope<OrderPlaced> sent = await publisher.PublishAsync(new OrderPlaced($"ORD-{++number:D6}", 10m + number), cancellationToken: stoppingToken).ConfigureAwait(false);
            Published(logger, sent.Id);
        }
    }

    [LoggerMessage(Level = LogLevel.Debug, Message = "Published envelope {Id}")]
    private static partial void Published(ILogger logger, string id);
}

/// <summary>Handles the orders the worker published, through SNS and SQS.</summary>
internal sealed partial class OrderPlacedHandler(OrderStatistics statistics, ILogger<OrderPlacedHandler> logger) : IMessageHandler<OrderPlaced>
{
    public Task HandleAsync(MessageEnvelope<OrderPlaced> envelope, CancellationToken cancellationToken)
    {
        statistics.Add();
        Handled(logger, envelope.Message.OrderId, envelope.SnsMetadata?.TopicArn ?? "-", statistics.Handled);
        return Task.CompletedTask;
    }

    [LoggerMessage(Level = LogLevel.Information, Message = "Handled {OrderId} from {TopicArn} ({Count} so far)")]
    private static partial void Handled(ILogger logger, string orderId, string topicArn, int count);
}
