using System;
using System.Collections.Generic;
using Amazon.Runtime;

namespace Missive.Aws;

/// <summary>
/// How <see cref="AwsTransport"/> reaches Amazon SQS, SNS and EventBridge. Every setting has a default
/// that works on AWS: credentials and region from AWSSDK.Core's default chains, endpoints from the
/// region's partition, AWS standard-mode retries.
/// </summary>
/// <remarks>
/// <para>Endpoints, in order of precedence: <see cref="SqsServiceUrl"/> (likewise SNS, EventBridge),
/// <see cref="ServiceUrl"/>, the environment variables <c>AWS_ENDPOINT_URL_SQS</c>, <c>AWS_ENDPOINT_URL_SNS</c>,
/// <c>AWS_ENDPOINT_URL_EVENTBRIDGE</c>, then <c>AWS_ENDPOINT_URL</c> (both ignored when
/// <c>AWS_IGNORE_CONFIGURED_ENDPOINT_URLS</c> is <c>true</c>), then <c>https://sqs.{region}.{partition DNS suffix}</c>
/// (<c>sns.</c>, <c>events.</c>).</para>
/// <para>From configuration (<c>UseAws(configuration.GetSection("Missive:Aws"))</c>), every property but
/// <see cref="Credentials"/> binds by name; TimeSpans as <c>hh:mm:ss</c>; <see cref="QueueUrls"/> and
/// <see cref="TopicArns"/> as sections of name/value pairs.</para>
/// </remarks>
public sealed class AwsTransportOptions
{
    /// <summary>
    /// Gets or sets whether a <see cref="Region"/> that AWSSDK.Core does not list is taken (a region newer than the SDK
    /// in use). Default <c>false</c>: such a region stops the host at startup, as a misspelt one (<c>eu-wset-1</c>) would
    /// otherwise send every call to a host that does not exist.
    /// </summary>
    public bool AllowUnlistedRegion { get; set; }

    /// <summary>Gets or sets the region (for example <c>eu-west-1</c>), or <c>null</c> for AWSSDK.Core's chain (<c>AWS_REGION</c>, the profile, instance metadata).</summary>
    public string? Region { get; set; }

    /// <summary>Gets or sets an endpoint for every service (for example a local emulator), or <c>null</c>.</summary>
    public Uri? ServiceUrl { get; set; }

    /// <summary>Gets or sets the SQS endpoint, or <c>null</c>.</summary>
    public Uri? SqsServiceUrl { get; set; }

    /// <summary>Gets or sets the SNS endpoint, or <c>null</c>.</summary>
    public Uri? SnsServiceUrl { get; set; }

    /// <summary>Gets or sets the EventBridge endpoint, or <c>null</c>.</summary>
    public Uri? EventBridgeServiceUrl { get; set; }

    /// <summary>Gets or sets the credentials, or <c>null</c> for <see cref="Profile"/> or AWSSDK.Core's default chain (environment, profiles, web identity, container, instance metadata).</summary>
    public AWSCredentials? Credentials { get; set; }

    /// <summary>Gets or sets the shared-credentials profile to sign with, or <c>null</c> for the default chain.</summary>
    public string? Profile { get; set; }

    /// <summary>
    /// Gets queue URLs by queue name, for queues that <c>GetQueueUrl</c> should not be asked for (another
    /// account's queue, or a caller without <c>sqs:GetQueueUrl</c>). Other names are resolved once and cached.
    /// </summary>
    public IDictionary<string, Uri> QueueUrls { get; } = new Dictionary<string, Uri>(StringComparer.Ordinal);

    /// <summary>
    /// Gets topic ARNs by topic name. SNS names topics by ARN only: a publisher configured with a name
    /// needs an entry here (a publisher configured with an ARN does not).
    /// </summary>
    public IDictionary<string, string> TopicArns { get; } = new Dictionary<string, string>(StringComparer.Ordinal);

    /// <summary>Gets or sets how many times a call is tried in all, the first attempt included (AWS standard mode: 3).</summary>
    public int MaxAttempts { get; set; } = 3;

    /// <summary>Gets or sets the longest wait between attempts (AWS standard mode: 20 seconds).</summary>
    public TimeSpan MaxBackoff { get; set; } = TimeSpan.FromSeconds(20);

    /// <summary>Gets or sets how long one attempt may take before it is abandoned and retried; a long poll gets its wait time on top. Default 30 seconds.</summary>
    public TimeSpan AttemptTimeout { get; set; } = TimeSpan.FromSeconds(30);

    /// <summary>
    /// Gets or sets the AWS SDK's SQS client every SQS call goes through (queue URLs, sends, receives, deletes,
    /// visibility changes, the startup verification) instead of the built-in client, or <c>null</c>. The client's own
    /// region, credentials, endpoint and retry settings apply to those calls; SNS and EventBridge keep the built-in
    /// client. Not bound from configuration. See also <see cref="UseSdkSqsClient"/>.
    /// </summary>
    public Amazon.SQS.IAmazonSQS? SqsClient { get; set; }

    /// <summary>
    /// Gets or sets whether SQS calls go through the <c>IAmazonSQS</c> registered in DI (as
    /// <c>AddAWSService&lt;IAmazonSQS&gt;()</c> registers it) when <see cref="SqsClient"/> is not set; the host fails to
    /// start when none is registered. Default <c>false</c>: the built-in client. Configuration key <c>UseSdkSqsClient</c>.
    /// </summary>
    public bool UseSdkSqsClient { get; set; }

    /// <summary>
    /// Gets or sets whether the MD5 digests SQS returns for message bodies and attributes are checked
    /// (on send and on receive). Default <c>true</c>; a mismatch is a <see cref="MessageTransportException"/>.
    /// </summary>
    public bool VerifyMessageDigests { get; set; } = true;

    /// <summary>
    /// Gets or sets whether the host, when it starts, asks AWS about every queue, topic and event bus the bus uses, and
    /// fails to start when one is missing or does not fit. Default <c>false</c>.
    /// </summary>
    /// <remarks>
    /// <list type="bullet">
    /// <item>Queues (polled, dead-letter and published to): the URL resolved (<c>GetQueueUrl</c>, needs
    /// <c>sqs:GetQueueUrl</c>) and the FIFO attributes read (<c>GetQueueAttributes</c>, needs <c>sqs:GetQueueAttributes</c>).</item>
    /// <item>Topics: <c>GetTopicAttributes</c> (needs <c>sns:GetTopicAttributes</c>). Event buses: <c>DescribeEventBus</c>
    /// (needs <c>events:DescribeEventBus</c>).</item>
    /// <item>A FIFO queue or topic without content-based deduplication is not a problem, even for a type whose
    /// <c>AddFifoIds</c> gives no deduplication id: a publish may give one in <c>PublishOptions</c>, and one that gives
    /// none is refused by the service, with what to set.</item>
    /// <item>A call that fails (after the usual retries) is a problem with the error's hint; the problems are lines of
    /// one <see cref="MessageBusConfigurationException"/>. The calls run together, each within the usual
    /// <see cref="AttemptTimeout"/> and <see cref="MaxAttempts"/>. Without a generic host the check does not run.</item>
    /// </list>
    /// </remarks>
    public bool VerifyResourcesAtStartup { get; set; }

    /// <summary>
    /// Gets or sets the largest SQS message, body and message attributes in UTF-8 bytes, that is sent: a larger one is
    /// refused before any call (<c>EntryTooLarge</c>; in a batch it fails alone and the others are sent). Default 1 MiB,
    /// SQS's limit since August 2025; lower it for a partition or an endpoint that takes less.
    /// </summary>
    public int MaxSqsMessageSize { get; set; } = 1024 * 1024;

    /// <summary>
    /// Gets or sets the largest SNS message, body and message attributes in UTF-8 bytes, that is published: a larger
    /// one is refused before any call (<c>EntryTooLarge</c>; in a batch it fails alone). Default 262,144 bytes (256 KiB),
    /// SNS's limit in its FAQ and quotas (the raise to 1 MB announced in January 2026 covers SQS, EventBridge and Lambda's
    /// asynchronous invocations, not SNS).
    /// </summary>
    public int MaxSnsMessageSize { get; set; } = 256 * 1024;

    /// <summary>
    /// Gets or sets the largest EventBridge entry, as EventBridge counts a <c>PutEvents</c> entry, that is put: a larger
    /// one is refused before any call (<c>EntryTooLarge</c>; in a batch it fails alone). Default 1 MiB, EventBridge's
    /// limit since January 2026; lower it for a partition or an endpoint that takes less.
    /// </summary>
    public int MaxEventBridgeEntrySize { get; set; } = 1024 * 1024;
}
