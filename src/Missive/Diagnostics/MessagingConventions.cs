namespace Missive.Diagnostics;

/// <summary>
/// Attribute names and values of the OpenTelemetry semantic conventions that Missive's spans and instruments use
/// (https://opentelemetry.io/docs/specs/semconv/messaging/), and those of the CloudEvents conventions
/// (https://opentelemetry.io/docs/specs/semconv/cloudevents/).
/// </summary>
internal static class MessagingConventions
{
    public const string System = "messaging.system";
    public const string OperationName = "messaging.operation.name";
    public const string OperationType = "messaging.operation.type";
    public const string DestinationName = "messaging.destination.name";
    public const string MessageId = "messaging.message.id";
    public const string ErrorType = "error.type";
    public const string CloudEventId = "cloudevents.event_id";
    public const string CloudEventSource = "cloudevents.event_source";
    public const string CloudEventType = "cloudevents.event_type";
    public const string CloudEventSpecVersion = "cloudevents.event_spec_version";

    /// <summary>The well-known <c>messaging.system</c> value for SQS.</summary>
    public const string AwsSqs = "aws_sqs";

    /// <summary>The <c>messaging.system</c> value for SNS.</summary>
    public const string AwsSns = "aws.sns";

    /// <summary>The <c>messaging.system</c> value for EventBridge, which the conventions do not name (a system-specific value, as they allow).</summary>
    public const string AwsEventBridge = "aws.eventbridge";

    /// <summary>The operation types the conventions define that Missive reports (<c>messaging.operation.type</c>).</summary>
    public const string Send = "send";
    public const string Receive = "receive";
    public const string Process = "process";

    /// <summary>The operation names (<c>messaging.operation.name</c>, system-specific) of the publishes: SQS, SNS, EventBridge.</summary>
    public const string SendName = "send";
    public const string PublishName = "publish";
    public const string PutEventsName = "put_events";

    /// <summary>
    /// The bucket boundaries, in seconds, the conventions ask for on <c>messaging.client.operation.duration</c> and
    /// <c>messaging.process.duration</c>.
    /// </summary>
    public static readonly double[] DurationBuckets = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];
}
