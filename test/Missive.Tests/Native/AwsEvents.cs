using System;
using System.Collections.Generic;
using System.IO;
using System.Text.Json.Serialization;
using Missive.Serialization;
using Missive.Tests.Infrastructure;

namespace Missive.Tests.Native;

/// <summary>The parts of AWS services' events the native message tests read, shaped as AWS documents them (Data/README.md).</summary>
public sealed class S3EventNotification
{
    public List<S3EventRecord> Records { get; set; } = [];
}

public sealed class S3EventRecord
{
    [JsonPropertyName("eventSource")]
    public string EventSource { get; set; } = string.Empty;

    [JsonPropertyName("eventName")]
    public string EventName { get; set; } = string.Empty;

    [JsonPropertyName("awsRegion")]
    public string AwsRegion { get; set; } = string.Empty;

    [JsonPropertyName("s3")]
    public S3Entity S3 { get; set; } = new();
}

public sealed class S3Entity
{
    [JsonPropertyName("bucket")]
    public S3Bucket Bucket { get; set; } = new();

    [JsonPropertyName("object")]
    public S3Object Object { get; set; } = new();
}

public sealed class S3Bucket
{
    [JsonPropertyName("name")]
    public string Name { get; set; } = string.Empty;
}

public sealed class S3Object
{
    [JsonPropertyName("key")]
    public string Key { get; set; } = string.Empty;

    [JsonPropertyName("size")]
    public long Size { get; set; }
}

/// <summary>The <c>detail</c> of S3's <c>Object Created</c> event on EventBridge.</summary>
public sealed class S3ObjectCreated
{
    [JsonPropertyName("bucket")]
    public S3Bucket Bucket { get; set; } = new();

    [JsonPropertyName("object")]
    public S3Object Object { get; set; } = new();

    [JsonPropertyName("reason")]
    public string Reason { get; set; } = string.Empty;
}

/// <summary>The <c>detail</c> of EC2's instance state-change event.</summary>
public sealed class Ec2StateChange
{
    [JsonPropertyName("instance-id")]
    public string InstanceId { get; set; } = string.Empty;

    [JsonPropertyName("state")]
    public string State { get; set; } = string.Empty;
}

public sealed class SesNotification
{
    [JsonPropertyName("notificationType")]
    public string NotificationType { get; set; } = string.Empty;

    [JsonPropertyName("bounce")]
    public SesBounce? Bounce { get; set; }
}

public sealed class SesBounce
{
    [JsonPropertyName("bounceType")]
    public string BounceType { get; set; } = string.Empty;

    [JsonPropertyName("bouncedRecipients")]
    public List<SesRecipient> BouncedRecipients { get; set; } = [];
}

public sealed class SesRecipient
{
    [JsonPropertyName("emailAddress")]
    public string EmailAddress { get; set; } = string.Empty;
}

public sealed class CloudWatchAlarm
{
    public string AlarmName { get; set; } = string.Empty;

    public string NewStateValue { get; set; } = string.Empty;

    public string OldStateValue { get; set; } = string.Empty;
}

/// <summary>The bodies of Data/ and the registrations of the types above.</summary>
public static class AwsEvents
{
    public const string S3Type = "aws.s3.notification", S3CreatedType = "aws.s3.object-created", Ec2Type = "aws.ec2.state-change", SesType = "aws.ses.notification", AlarmType = "aws.cloudwatch.alarm";

    public static string Body(string file) => File.ReadAllText(Path.Combine(RepositoryPaths.Root, "test", "Missive.Tests", "Native", "Data", file));

    public static MessageTypeMap Map()
    {
        MessageTypeMap map = TestSerializers.Map();
        map.Add<S3EventNotification>(S3Type);
        map.Add<S3ObjectCreated>(S3CreatedType);
        map.Add<Ec2StateChange>(Ec2Type);
        map.Add<SesNotification>(SesType);
        map.Add<CloudWatchAlarm>(AlarmType);
        return map;
    }

    /// <summary>An SNS notification around <paramref name="message"/>, in the shape the SNS Developer Guide documents.</summary>
    public static string InSnsNotification(string message, string topicArn = "arn:aws:sns:us-east-1:123456789012:ses-notifications", string subject = "Amazon SES Email Event Notification")
        => "{\"Type\":\"Notification\",\"MessageId\":\"22b80b92-fdea-4c2c-8f9d-bdfb0c7bf324\",\"TopicArn\":\"" + topicArn
           + "\",\"Subject\":\"" + subject + "\",\"Message\":\"" + System.Text.Json.JsonEncodedText.Encode(message, System.Text.Encodings.Web.JavaScriptEncoder.UnsafeRelaxedJsonEscaping)
           + "\",\"Timestamp\":\"2016-01-27T14:59:38.237Z\",\"SignatureVersion\":\"1\",\"Signature\":\"EXAMPLE\",\"SigningCertURL\":\"https://sns.us-east-1.amazonaws.com/SimpleNotificationService-0000000000000000000000.pem\","
           + "\"UnsubscribeURL\":\"https://sns.us-east-1.amazonaws.com/?Action=Unsubscribe&SubscriptionArn=" + topicArn + ":c9135db0-26c4-47ec-8998-413945fb5a96\"}";
}
