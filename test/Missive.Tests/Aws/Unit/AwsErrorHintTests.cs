using System;
using System.Collections.Generic;
using System.Net;
using System.Threading.Tasks;
using Missive.Aws;
using Missive.Transport;

namespace Missive.Tests.Aws.Unit;

/// <summary>
/// Errors that say what to check: every failure of the AWS transport names the operation, the resource as configured and
/// as resolved, the endpoint and the signing region; the codes no retry clears are marked persistent and carry a hint
/// (the queue, the region and QueueUrls; the credentials' source; the IAM action; the KMS key), never a secret.
/// </summary>
public sealed class AwsErrorHintTests
{
    private const string QueueUrl = "https://sqs.eu-west-1.amazonaws.com/123456789012/";

    private static AwsTransport Transport(RecordingHandler handler, Action<AwsTransportOptions>? configure = null)
        => RecordingHandler.Transport(handler, o =>
        {
            o.QueueUrls["billing"] = new Uri(QueueUrl + "billing-prod");
            o.MaxBackoff = TimeSpan.FromMilliseconds(5);
            configure?.Invoke(o);
        });

    private static (string Name, string Value) QueryError(string code) => ("x-amzn-query-error", code + ";Sender");

    [Fact]
    public async Task AMissingQueue_NamesTheQueueAsConfiguredAndResolved_TheEndpointAndRegion_AndWhatToCheck()
    {
        var handler = new RecordingHandler { Default = _ => RecordingHandler.Json(HttpStatusCode.BadRequest, "{\"__type\":\"com.amazonaws.sqs#QueueDoesNotExist\",\"message\":\"The specified queue does not exist.\"}", QueryError("AWS.SimpleQueueService.NonExistentQueue")) };
        using AwsTransport transport = Transport(handler);

        var error = await Assert.ThrowsAsync<MessageTransportException>(() => transport.ReceiveAsync("billing", 10, TimeSpan.Zero));

        Assert.True(error.IsPersistent);
        Assert.False(error.IsTransient);
        Assert.Contains("SQS ReceiveMessage on queue 'billing' (" + QueueUrl + "billing-prod)", error.Message, StringComparison.Ordinal);
        Assert.Contains("Endpoint https://sqs.eu-west-1.amazonaws.com/, signing region eu-west-1.", error.Message, StringComparison.Ordinal);
        Assert.Contains("QueueUrls", error.Message, StringComparison.Ordinal);
        Assert.Contains("the region", error.Message, StringComparison.Ordinal);
        Assert.Single(handler.Requests); // not retried
    }

    [Fact]
    public async Task AQueueNameThatDoesNotResolve_SaysSoAtGetQueueUrl()
    {
        var handler = new RecordingHandler { Default = _ => RecordingHandler.Json(HttpStatusCode.BadRequest, "{\"__type\":\"com.amazonaws.sqs#QueueDoesNotExist\",\"message\":\"The specified queue does not exist.\"}", QueryError("AWS.SimpleQueueService.NonExistentQueue")) };
        using AwsTransport transport = Transport(handler);

        var error = await Assert.ThrowsAsync<MessageTransportException>(() => transport.SendAsync(new SqsSendRequest { QueueName = "bilings", Body = "{}" }));

        Assert.StartsWith("SQS GetQueueUrl on queue 'bilings' failed", error.Message, StringComparison.Ordinal);
        Assert.True(error.IsPersistent);
    }

    [Theory]
    [InlineData("SignatureDoesNotMatch", "does not belong to the access key")]
    [InlineData("InvalidClientTokenId", "does not know the access key")]
    [InlineData("ExpiredToken", "session token has expired")]
    public async Task RefusedCredentials_NameWhereTheCredentialsCameFrom_NeverTheSecret(string code, string hint)
    {
        var handler = new RecordingHandler { Default = _ => RecordingHandler.Json(HttpStatusCode.Forbidden, "{\"__type\":\"com.amazon.coral.service#" + code + "\",\"message\":\"refused\"}") };
        using AwsTransport transport = Transport(handler);

        var error = await Assert.ThrowsAsync<MessageTransportException>(() => transport.ReceiveAsync(QueueUrl + "billing-prod", 10, TimeSpan.Zero));

        Assert.True(error.IsPersistent);
        Assert.Contains(hint, error.Message, StringComparison.Ordinal);
        Assert.Contains("credentials from AwsTransportOptions.Credentials (BasicAWSCredentials)", error.Message, StringComparison.Ordinal);
        Assert.DoesNotContain(AwsEmulator.Credentials.GetCredentials().SecretKey, error.Message, StringComparison.Ordinal);
        Assert.DoesNotContain(AwsEmulator.Credentials.GetCredentials().AccessKey, error.Message, StringComparison.Ordinal);
        Assert.Equal("AwsTransportOptions.Credentials (BasicAWSCredentials)", transport.CredentialSource);
    }

    [Fact]
    public async Task AccessDenied_NamesTheIamActionAndTheResource()
    {
        var handler = new RecordingHandler { Default = _ => RecordingHandler.Json(HttpStatusCode.BadRequest, "{\"__type\":\"com.amazon.coral.service#AccessDeniedException\",\"message\":\"not authorized\"}", QueryError("AccessDenied")) };
        using AwsTransport transport = Transport(handler);

        IReadOnlyList<BatchEntryResult> results = await transport.SendBatchAsync([new SqsSendRequest { QueueName = "billing", Body = "{}" }]);

        Assert.Contains("sqs:SendMessage on queue 'billing'", results[0].ErrorMessage, StringComparison.Ordinal);
        Assert.True(results[0].SenderFault);
    }

    [Theory]
    [InlineData("KmsDisabled")]
    [InlineData("KMS.DisabledException")]
    public async Task AKmsKeyRefused_SaysToCheckTheKeyAndItsPermissions(string code)
    {
        var handler = new RecordingHandler { Default = _ => RecordingHandler.Json(HttpStatusCode.BadRequest, "{\"__type\":\"com.amazonaws.sqs#" + code + "\",\"message\":\"key disabled\"}") };
        using AwsTransport transport = Transport(handler);

        var error = await Assert.ThrowsAsync<MessageTransportException>(() => transport.ReceiveAsync("billing", 10, TimeSpan.Zero));

        Assert.True(error.IsPersistent);
        Assert.Contains("kms:GenerateDataKey", error.Message, StringComparison.Ordinal);
        Assert.Contains("kms:Decrypt", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task AMissingTopic_NamesTheTopicAsConfiguredAndItsArn()
    {
        var handler = new RecordingHandler { Default = _ => RecordingHandler.Answer(HttpStatusCode.NotFound, "<ErrorResponse><Error><Type>Sender</Type><Code>NotFound</Code><Message>Topic does not exist</Message></Error><RequestId>r-1</RequestId></ErrorResponse>") };
        using AwsTransport transport = Transport(handler, o => o.TopicArns["orders"] = "arn:aws:sns:eu-west-1:123456789012:orders-prod");

        var error = await Assert.ThrowsAsync<MessageTransportException>(() => transport.PublishAsync(new SnsPublishRequest { TopicArn = "orders", Message = "{}" }));

        Assert.True(error.IsPersistent);
        Assert.Contains("SNS Publish on topic 'orders' (arn:aws:sns:eu-west-1:123456789012:orders-prod)", error.Message, StringComparison.Ordinal);
        Assert.Contains("TopicArns", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task AServerError_IsTransient_NotPersistent_AndCarriesNoHint()
    {
        var handler = new RecordingHandler { Default = _ => RecordingHandler.Json(HttpStatusCode.InternalServerError, "{\"__type\":\"com.amazonaws.sqs#InternalError\",\"message\":\"try again\"}") };
        using AwsTransport transport = Transport(handler, o => o.MaxAttempts = 2);

        var error = await Assert.ThrowsAsync<MessageTransportException>(() => transport.ReceiveAsync("billing", 10, TimeSpan.Zero));

        Assert.True(error.IsTransient);
        Assert.False(error.IsPersistent);
        Assert.DoesNotContain("Check that", error.Message, StringComparison.Ordinal);
        Assert.Equal(2, handler.Requests.Count);
    }

    [Theory]
    [InlineData("built-in", HttpStatusCode.BadRequest, "com.amazonaws.sqs#QueueDoesNotExist", "AWS.SimpleQueueService.NonExistentQueue", TransportFailureKind.Persistent)]
    [InlineData("built-in", HttpStatusCode.ServiceUnavailable, "com.amazonaws.sqs#ServiceUnavailable", "ServiceUnavailable", TransportFailureKind.Transient)]
    [InlineData("built-in", HttpStatusCode.BadRequest, "com.amazonaws.sqs#InvalidParameterValue", "InvalidParameterValue", TransportFailureKind.Refused)]
    [InlineData("sdk", HttpStatusCode.BadRequest, "com.amazonaws.sqs#QueueDoesNotExist", "AWS.SimpleQueueService.NonExistentQueue", TransportFailureKind.Persistent)]
    [InlineData("sdk", HttpStatusCode.ServiceUnavailable, "com.amazonaws.sqs#ServiceUnavailable", "ServiceUnavailable", TransportFailureKind.Transient)]
    [InlineData("sdk", HttpStatusCode.BadRequest, "com.amazonaws.sqs#InvalidParameterValue", "InvalidParameterValue", TransportFailureKind.Refused)]
    public async Task EveryFailure_HasOneKind_AndTheFlagsReadIt(string client, HttpStatusCode status, string type, string queryCode, TransportFailureKind expected)
    {
        var handler = new RecordingHandler { Default = _ => RecordingHandler.Json(status, $"{{\"__type\":\"{type}\",\"message\":\"refused\"}}", QueryError(queryCode)) };
        using AwsTransport transport = client == "built-in"
            ? Transport(handler, o => o.MaxAttempts = 1)
            : SdkHttpClients.SqsTransport(handler, "billing", QueueUrl + "billing-prod");

        var error = await Assert.ThrowsAsync<MessageTransportException>(() => transport.SendAsync(new SqsSendRequest { QueueName = "billing", Body = "{}" }));

        Assert.Equal(expected, error.FailureKind);
        Assert.Equal(expected == TransportFailureKind.Transient, error.IsTransient);
        Assert.Equal(expected == TransportFailureKind.Persistent, error.IsPersistent);
    }
}
