using System;
using System.Net.Http;
using Amazon.Runtime;
using Amazon.SQS;
using Missive.Aws;

namespace Missive.Tests.Aws.Unit;

/// <summary>Makes an AWS SDK client send through a given handler (a recording or scripted endpoint in process).</summary>
public sealed class SdkHttpClients(HttpMessageHandler handler) : HttpClientFactory
{
    public override HttpClient CreateHttpClient(IClientConfig clientConfig) => new(handler, disposeHandler: false);

    /// <summary>A transport whose SQS calls go through an <see cref="AmazonSQSClient"/> in eu-west-1 ending in <paramref name="handler"/>, with one queue's URL configured.</summary>
    public static AwsTransport SqsTransport(HttpMessageHandler handler, string queueName, string queueUrl, int maxErrorRetry = 0)
    {
        var sdk = new AmazonSQSClient(AwsEmulator.Credentials, new AmazonSQSConfig { RegionEndpoint = Amazon.RegionEndpoint.EUWest1, MaxErrorRetry = maxErrorRetry, HttpClientFactory = new SdkHttpClients(handler) });
        var options = new AwsTransportOptions { Region = "eu-west-1", Credentials = AwsEmulator.Credentials, SqsClient = sdk };
        options.QueueUrls[queueName] = new Uri(queueUrl);
        return new AwsTransport(options);
    }
}
