// With Orders.cs of the README's quick start.
using System.Collections.Generic;
using System.Text.Json.Serialization;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Missive;
using Missive.Bus;
using Missive.Transport;

namespace Missive.Tests.Readme;

/// <summary>One queue, three kinds of message: S3's notifications, EC2's events through EventBridge and the application's orders.</summary>
public static class NativeMessages
{
    public static void AddUploadsBus(this HostApplicationBuilder builder)
    {
        builder.Services.AddMessageBus(bus => bus
            .AddMessageType<OrderPlaced>("Orders.OrderPlaced")
            .AddMessageType<S3Notification>("aws.s3.notification")
            .AddMessageType<InstanceStateChange>("aws.ec2.state-change")
            .AddHandler<OrderPlaced, OrderPlacedHandler>()
            .AddHandler<S3Notification, UploadHandler>()
            .AddHandler<InstanceStateChange, InstanceHandler>()
            .AddQueuePoller("inbox", o => o.NativeMessages
                .WhenS3Notification<S3Notification>("ObjectCreated:")
                .WhenEventBridgeEvent<InstanceStateChange>("aws.ec2", "EC2 Instance State-change Notification"))
            .UseInMemoryBroker(broker => broker.CreateQueue("inbox")));
    }
}

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
    public S3Detail S3 { get; set; } = new();
}

public sealed class S3Detail
{
    [JsonPropertyName("bucket")]
    public S3Named Bucket { get; set; } = new();

    [JsonPropertyName("object")]
    public S3Key Object { get; set; } = new();
}

public sealed class S3Named
{
    [JsonPropertyName("name")]
    public string Name { get; set; } = "";
}

public sealed class S3Key
{
    [JsonPropertyName("key")]
    public string Key { get; set; } = "";
}

/// <summary>The <c>detail</c> of EC2's state-change event.</summary>
public sealed class InstanceStateChange
{
    [JsonPropertyName("instance-id")]
    public string InstanceId { get; set; } = "";

    [JsonPropertyName("state")]
    public string State { get; set; } = "";
}

public sealed class UploadHandler : IMessageHandler<S3Notification>
{
    public static readonly List<string> Keys = [];

    public Task HandleAsync(MessageEnvelope<S3Notification> envelope, CancellationToken cancellationToken)
    {
        // envelope.IsNative is true; envelope.Id is the SQS message id, envelope.Time its SentTimestamp.
        foreach (S3Record record in envelope.Message.Records)
        {
            lock (Keys)
            {
                Keys.Add($"{record.S3.Bucket.Name}/{record.S3.Object.Key}");
            }
        }

        return Task.CompletedTask;
    }
}

public sealed class InstanceHandler : IMessageHandler<InstanceStateChange>
{
    public static readonly List<string> States = [];

    public Task HandleAsync(MessageEnvelope<InstanceStateChange> envelope, CancellationToken cancellationToken)
    {
        // envelope.Id, Source ("aws.ec2") and Time are the event's; envelope.EventBridgeMetadata has the rest.
        lock (States)
        {
            States.Add($"{envelope.Message.InstanceId} {envelope.Message.State}");
        }

        return Task.CompletedTask;
    }
}
