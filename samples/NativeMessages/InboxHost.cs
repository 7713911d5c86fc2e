using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Linq;
using System.Text.Json.Serialization;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Missive.Bus;
using Missive.Transport;

namespace Missive.Samples.NativeMessages;

/// <summary>The sample's host: one poller whose queue carries S3 notifications, EC2 events and orders, each to its handler.</summary>
public static class InboxHost
{
    /// <summary>An S3 event notification as S3 sends it to a queue (Amazon S3 User Guide, "Event message structure").</summary>
    public const string S3ObjectCreated = """
        {"Records":[{"eventVersion":"2.1","eventSource":"aws:s3","awsRegion":"eu-west-1","eventTime":"2026-11-28T09:30:00.000Z",
        "eventName":"ObjectCreated:Put","userIdentity":{"principalId":"AIDAJDPLRKLG7UEXAMPLE"},"requestParameters":{"sourceIPAddress":"172.16.0.1"},
        "responseElements":{"x-amz-request-id":"C3D13FE58DE4C810","x-amz-id-2":"FMyUVURIY8/IgAtTv8xRjskZQpcIZ9KG4V5Wp6S7S/JRWeUWerMUE5JgHvANOjpD"},
        "s3":{"s3SchemaVersion":"1.0","configurationId":"invoices","bucket":{"name":"amzn-s3-demo-bucket","ownerIdentity":{"principalId":"A3NL1KOZZKExample"},"arn":"arn:aws:s3:::amzn-s3-demo-bucket"},
        "object":{"key":"invoices/2026/11/ORD-000001.pdf","size":18342,"eTag":"d41d8cd98f00b204e9800998ecf8427e","sequencer":"0055AED6DCD90281E5"}}}]}
        """;

    /// <summary>EC2's state change as EventBridge delivers it to a queue (Amazon EC2 User Guide, instance state-change events).</summary>
    public const string InstanceStopped = """
        {"version":"0","id":"7bf73129-1428-4cd3-a780-95db273d1602","detail-type":"EC2 Instance State-change Notification","source":"aws.ec2",
        "account":"123456789012","time":"2026-11-28T09:31:00Z","region":"eu-west-1","resources":["arn:aws:ec2:eu-west-1:123456789012:instance/i-abcd1111"],
        "detail":{"instance-id":"i-abcd1111","state":"stopped"}}
        """;

    /// <summary>Builds the host from the command line (configuration keys as <c>--Missive:Transport=Aws</c>).</summary>
    public static IHost Build(string[] args)
    {
        HostApplicationBuilder builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { Args = args, ContentRootPath = AppContext.BaseDirectory });
        IConfigurationSection missive = builder.Configuration.GetSection("Missive");
        string queue = missive["Queue"] ?? "inbox";
        builder.Services.AddSingleton<Inbox>();
        builder.Services.AddMessageBus(bus =>
        {
            bus.AddMessageType<OrderPlaced>("Orders.OrderPlaced")
                .AddMessageType<S3Notification>("aws.s3.notification")
                .AddMessageType<InstanceStateChange>("aws.ec2.state-change")
                .ConfigureSerialization(o => o.JsonSerializerContext = InboxJsonContext.Default)
                .UseMessageSource(missive["Source"] ?? "/samples/native-messages")
                .AddSqsPublisher<OrderPlaced>(queue)
                .AddHandler<OrderPlaced, OrderHandler>()
                .AddHandler<S3Notification, UploadHandler>()
                .AddHandler<InstanceStateChange, InstanceHandler>()
                .AddQueuePoller(queue, o =>
                {
                    missive.GetSection("Poller").Bind(o);
                    o.NativeMessages
                        .WhenS3Notification<S3Notification>("ObjectCreated:")
                        .WhenEventBridgeEvent<InstanceStateChange>("aws.ec2", "EC2 Instance State-change Notification");
                });
            if (string.Equals(missive["Transport"], "Aws", StringComparison.OrdinalIgnoreCase))
            {
                // The application's AWS settings (the AWS section, AWS_REGION, AWS_ENDPOINT_URL, the credential chain); the
                // queue exists: on AWS, or on the local endpoint started from local-aws.json.
                bus.UseAws();
            }
            else
            {
                bus.UseInMemoryBroker(broker =>
                {
                    broker.CreateQueue(queue + "-dlq");
                    broker.CreateQueue(queue, o => { o.DeadLetterQueue = queue + "-dlq"; o.MaxReceiveCount = 3; });
                });
            }
        });
        return builder.Build();
    }

    /// <summary>Runs the host until the three messages are handled (or 30 seconds pass), and returns what the handlers got.</summary>
    public static async Task<IReadOnlyList<string>> RunOnceAsync(string[] args)
    {
        using IHost host = Build(args);
        string queue = host.Services.GetRequiredService<IConfiguration>()["Missive:Queue"] ?? "inbox";
        await host.StartAsync().ConfigureAwait(false);
        IMessageTransport transport = host.Services.GetRequiredService<IMessageTransport>();
        await transport.SendAsync(new SqsSendRequest { QueueName = queue, Body = S3ObjectCreated }).ConfigureAwait(false);
        await transport.SendAsync(new SqsSendRequest { QueueName = queue, Body = InstanceStopped }).ConfigureAwait(false);
        await host.Services.GetRequiredService<IMessagePublisher>().PublishAsync(new OrderPlaced("ORD-000001", 42.5m)).ConfigureAwait(false);
        Inbox inbox = host.Services.GetRequiredService<Inbox>();
        using (var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(30)))
        {
            while (inbox.Lines.Count < 3 && !timeout.IsCancellationRequested)
            {
                await Task.Delay(50, CancellationToken.None).ConfigureAwait(false);
            }
        }

        await host.StopAsync().ConfigureAwait(false);
        return [.. inbox.Lines.Order(StringComparer.Ordinal)];
    }
}

/// <summary>An order was placed (the application's own message, in a CloudEvents envelope).</summary>
public sealed record OrderPlaced(string OrderId, decimal Total);

/// <summary>The parts of S3's event notification the application reads.</summary>
public sealed class S3Notification
{
    public List<S3Record> Records { get; set; } = [];
}

public sealed class S3Record
{
    [JsonPropertyName("eventName")]
    public string EventName { get; set; } = "";

    [JsonPropertyName("s3")]
    public S3Entity S3 { get; set; } = new();
}

public sealed class S3Entity
{
    [JsonPropertyName("bucket")]
    public S3Bucket Bucket { get; set; } = new();

    [JsonPropertyName("object")]
    public S3Object StoredObject { get; set; } = new();
}

public sealed class S3Bucket
{
    [JsonPropertyName("name")]
    public string Name { get; set; } = "";
}

public sealed class S3Object
{
    [JsonPropertyName("key")]
    public string Key { get; set; } = "";

    [JsonPropertyName("size")]
    public long Size { get; set; }
}

/// <summary>The <c>detail</c> of EC2's state-change event.</summary>
public sealed class InstanceStateChange
{
    [JsonPropertyName("instance-id")]
    public string InstanceId { get; set; } = "";

    [JsonPropertyName("state")]
    public string State { get; set; } = "";
}

[JsonSerializable(typeof(OrderPlaced))]
[JsonSerializable(typeof(S3Notification))]
[JsonSerializable(typeof(InstanceStateChange))]
internal sealed partial class InboxJsonContext : JsonSerializerContext
{
}

/// <summary>What the handlers got, one line each.</summary>
public sealed class Inbox
{
    public ConcurrentQueue<string> Lines { get; } = new();
}

internal sealed class OrderHandler(Inbox inbox) : IMessageHandler<OrderPlaced>
{
    public Task HandleAsync(MessageEnvelope<OrderPlaced> envelope, CancellationToken cancellationToken)
    {
        inbox.Lines.Enqueue($"order {envelope.Message.OrderId} ({envelope.Message.Total}), an envelope from {envelope.Source}");
        return Task.CompletedTask;
    }
}

internal sealed class UploadHandler(Inbox inbox) : IMessageHandler<S3Notification>
{
    public Task HandleAsync(MessageEnvelope<S3Notification> envelope, CancellationToken cancellationToken)
    {
        foreach (S3Record record in envelope.Message.Records)
        {
            inbox.Lines.Enqueue($"s3 {record.EventName} {record.S3.Bucket.Name}/{record.S3.StoredObject.Key} ({record.S3.StoredObject.Size} bytes), native: {envelope.IsNative}");
        }

        return Task.CompletedTask;
    }
}

internal sealed class InstanceHandler(Inbox inbox) : IMessageHandler<InstanceStateChange>
{
    public Task HandleAsync(MessageEnvelope<InstanceStateChange> envelope, CancellationToken cancellationToken)
    {
        inbox.Lines.Enqueue($"ec2 {envelope.Message.InstanceId} {envelope.Message.State} (event {envelope.Id} from {envelope.Source}), native: {envelope.IsNative}");
        return Task.CompletedTask;
    }
}
