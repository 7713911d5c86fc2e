using System;
using System.Collections.Generic;
using System.Linq;
using System.Net;
using System.Threading.Tasks;
using Amazon.SQS;
using Missive.Aws;
using Missive.Transport;

namespace Missive.Tests.Aws.Unit;

/// <summary>
/// The transport on the AWS SDK's <see cref="AmazonSQSClient"/> against a scripted endpoint that answers as the SQS API
/// reference documents (AWS JSON 1.0, <c>x-amzn-RequestId</c> on every answer): the SDK's failures as the bus's.
/// </summary>
public sealed class SdkSqsClientTests
{
    private const string QueueUrl = "https://sqs.eu-west-1.amazonaws.com/123456789012/orders";

    [Fact]
    public async Task AServiceError_IsAMessageTransportException_WithTheCodeRequestIdAndWhatToCheck()
    {
        var handler = new RecordingHandler().Then(HttpStatusCode.BadRequest, "{\"__type\":\"com.amazonaws.sqs#AccessDeniedException\",\"message\":\"not authorized\"}", ("x-amzn-RequestId", "req-403"));
        using AwsTransport transport = Transport(handler, maxErrorRetry: 0);

        var error = await Assert.ThrowsAsync<MessageTransportException>(() => transport.SendAsync(new SqsSendRequest { QueueName = "orders", Body = "secret body" }));

        Assert.Equal("req-403", error.RequestId);
        Assert.Equal(400, error.StatusCode);
        Assert.Equal("AccessDeniedException", error.ErrorCode);
        Assert.True(error.IsPersistent);
        Assert.False(error.IsTransient);
        Assert.Contains("sqs:SendMessage", error.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("secret body", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task AMissingQueue_OnTheSdkClient_NamesTheEndpointAndRegionTheClientUsed_AndWhatChoseThem()
    {
        var handler = new RecordingHandler().Then(HttpStatusCode.BadRequest, "{\"__type\":\"com.amazonaws.sqs#QueueDoesNotExist\",\"message\":\"The specified queue does not exist.\"}", ("x-amzn-RequestId", "req-404"));
        var sdk = new AmazonSQSClient(AwsEmulator.Credentials, new AmazonSQSConfig { ServiceURL = "http://127.0.0.1:4566", AuthenticationRegion = "eu-west-1", MaxErrorRetry = 0, HttpClientFactory = new SdkHttpClients(handler) });
        var options = new AwsTransportOptions { Region = "eu-west-1", Credentials = AwsEmulator.Credentials, SqsClient = sdk };
        options.QueueUrls["orders"] = new Uri("http://127.0.0.1:4566/000000000000/orders");
        using var transport = new AwsTransport(options);

        var error = await Assert.ThrowsAsync<MessageTransportException>(() => transport.SendAsync(new SqsSendRequest { QueueName = "orders", Body = "b" }));

        Assert.Contains("Endpoint http://127.0.0.1:4566, signing region eu-west-1", error.Message, StringComparison.Ordinal);
        Assert.Contains("the application's IAmazonSQS: its ServiceURL, signing for its AuthenticationRegion", error.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("(the client's)", error.Message, StringComparison.Ordinal);
        Assert.Contains("the SQS endpoint", transport.Description.Replace("http://127.0.0.1:4566, signing region eu-west-1", "the SQS endpoint", StringComparison.Ordinal), StringComparison.Ordinal); // the startup line names it too
    }

    [Fact]
    public async Task AThrottledCall_IsTransient_AfterTheSdksOwnRetries()
    {
        var handler = new RecordingHandler { Default = _ => RecordingHandler.Json(HttpStatusCode.BadRequest, "{\"__type\":\"com.amazonaws.sqs#ThrottlingException\",\"message\":\"slow down\"}", ("x-amzn-RequestId", "req-429")) };
        using AwsTransport transport = Transport(handler, maxErrorRetry: 1);

        var error = await Assert.ThrowsAsync<MessageTransportException>(() => transport.SendAsync(new SqsSendRequest { QueueName = "orders", Body = "b" }));

        Assert.True(error.IsTransient);
        Assert.False(error.IsPersistent);
        Assert.Equal(2, handler.Requests.Count); // the SDK's retry, then the failure
    }

    [Fact]
    public async Task ABatchAnswer_GivesEachEntryItsOwnOutcome_AndAnEntryNotMentionedMayHaveBeenTaken()
    {
        var handler = new RecordingHandler().Then(HttpStatusCode.OK,
            "{\"Successful\":[{\"Id\":\"0\",\"MessageId\":\"m-0\",\"MD5OfMessageBody\":\"" + Md5("b0") + "\"}],"
            + "\"Failed\":[{\"Id\":\"1\",\"SenderFault\":true,\"Code\":\"InvalidParameterValue\",\"Message\":\"refused\"}]}",
            ("x-amzn-RequestId", "req-batch"));
        using AwsTransport transport = Transport(handler, maxErrorRetry: 0);

        IReadOnlyList<BatchEntryResult> results = await transport.SendBatchAsync([.. Enumerable.Range(0, 3).Select(i => new SqsSendRequest { QueueName = "orders", Body = "b" + i })]);

        Assert.Equal(BatchEntryOutcome.Succeeded, results[0].Outcome);
        Assert.Equal("m-0", results[0].MessageId);
        Assert.Equal(BatchEntryOutcome.Refused, results[1].Outcome);
        Assert.Equal(BatchEntryOutcome.Unknown, results[2].Outcome);
        Assert.Single(handler.Requests); // nothing sent again: a refusal and an unknown are not retried
    }

    [Fact]
    public async Task AStaleReceipt_IsFalse_NotAnError()
    {
        var handler = new RecordingHandler().Then(HttpStatusCode.BadRequest, "{\"__type\":\"com.amazonaws.sqs#ReceiptHandleIsInvalid\",\"message\":\"The input receipt handle is invalid.\"}", ("x-amzn-RequestId", "req-stale"));
        using AwsTransport transport = Transport(handler, maxErrorRetry: 0);

        Assert.False(await transport.DeleteAsync("orders", "gone"));
    }

#pragma warning disable CA5351 // SQS digests bodies with MD5; nothing here is secured by it
    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task CredentialsWhoseRefreshFails_AreATransientFailure_NamingTheirSource_NotAConfigurationError(bool imds)
    {
        // The credentials were there when the host started: a provider that fails now (an expired SSO session, the
        // instance metadata service out of reach) may recover, and must not mark the destination as misconfigured.
        var handler = new RecordingHandler();
        var sdk = new AmazonSQSClient(new FailingCredentials(imds), new AmazonSQSConfig { RegionEndpoint = Amazon.RegionEndpoint.EUWest1, MaxErrorRetry = 0, HttpClientFactory = new SdkHttpClients(handler) });
        var options = new AwsTransportOptions { Region = "eu-west-1", Credentials = AwsEmulator.Credentials, SqsClient = sdk };
        options.QueueUrls["orders"] = new Uri(QueueUrl);
        using var transport = new AwsTransport(options);

        var error = await Assert.ThrowsAsync<MessageTransportException>(() => transport.SendAsync(new SqsSendRequest { QueueName = "orders", Body = "b" }));

        Assert.Equal("CredentialsUnavailable", error.ErrorCode);
        Assert.Equal(TransportFailureKind.Transient, error.FailureKind);
        Assert.Contains("credentials could not be had", error.Message, StringComparison.Ordinal);
        Assert.Contains("signing region eu-west-1", error.Message, StringComparison.Ordinal);
        Assert.Empty(handler.Requests); // nothing was sent
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task OnTheBuiltInClient_CredentialsWhoseRefreshFails_AreTheSameTransientFailure(bool imds)
    {
        var handler = new RecordingHandler();
        using AwsTransport transport = RecordingHandler.Transport(handler, o =>
        {
            o.Credentials = new FailingCredentials(imds);
            o.MaxAttempts = 2;
            o.MaxBackoff = TimeSpan.FromMilliseconds(1);
            o.QueueUrls["orders"] = new Uri(QueueUrl);
        });

        var error = await Assert.ThrowsAsync<MessageTransportException>(() => transport.SendAsync(new SqsSendRequest { QueueName = "orders", Body = "b" }));

        Assert.Equal("CredentialsUnavailable", error.ErrorCode);
        Assert.Equal(TransportFailureKind.Transient, error.FailureKind);
        Assert.Contains("after 2 attempts", error.Message, StringComparison.Ordinal); // retried, as a refresh may succeed
        Assert.Contains("Credentials come from", error.Message, StringComparison.Ordinal);
        Assert.Empty(handler.Requests);
    }

    private static string Md5(string text) => Convert.ToHexStringLower(System.Security.Cryptography.MD5.HashData(System.Text.Encoding.UTF8.GetBytes(text)));
#pragma warning restore CA5351

    private static AwsTransport Transport(RecordingHandler handler, int maxErrorRetry)
        => SdkHttpClients.SqsTransport(handler, "orders", QueueUrl, maxErrorRetry);

    /// <summary>
    /// Credentials whose provider fails to refresh, as the SDK's own do: SSO's with an <see cref="Amazon.Runtime.AmazonClientException"/>, the
    /// instance metadata provider's with an <see cref="Amazon.Runtime.AmazonServiceException"/> without code or status
    /// (aws-sdk-net, DefaultInstanceProfileAWSCredentials.cs).
    /// </summary>
    internal sealed class FailingCredentials(bool imds) : Amazon.Runtime.AWSCredentials
    {
        public override Amazon.Runtime.ImmutableCredentials GetCredentials()
            => throw (imds ? new Amazon.Runtime.AmazonServiceException("Failed to retrieve credentials from EC2 Instance Metadata Service.") : new Amazon.Runtime.AmazonClientException("Failed to resolve AWS credentials: the SSO session has expired."));

        public override Task<Amazon.Runtime.ImmutableCredentials> GetCredentialsAsync() => Task.FromResult(GetCredentials());
    }
}
