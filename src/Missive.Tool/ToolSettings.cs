using System;
using System.Collections.Generic;
using Amazon;
using Amazon.Runtime;
using Amazon.Runtime.CredentialManagement;
using Amazon.Runtime.Credentials;
using Amazon.S3;
using Amazon.SQS;
using Missive.Aws;

namespace Missive.Tool;

/// <summary>Where the tool's calls go: the SDK's own chain (environment, profiles, <c>AWS_ENDPOINT_URL</c>) unless the options say otherwise.</summary>
internal sealed class ToolSettings
{
    public string? EndpointUrl { get; init; }

    /// <summary>Gets S3's own endpoint, when it is not <see cref="EndpointUrl"/> (a local S3 beside a local SQS).</summary>
    public string? S3EndpointUrl { get; init; }

    public string? Region { get; init; }

    public string? Profile { get; init; }

    public bool Verbose { get; init; }

    public bool Json { get; init; }

    /// <summary>The official SQS client, configured as the options and the SDK's chain say.</summary>
    public AmazonSQSClient CreateSqs()
    {
        var config = new AmazonSQSConfig();
        Configure(config);
        return Credentials() is { } credentials ? new AmazonSQSClient(credentials, config) : new AmazonSQSClient(config);
    }

    /// <summary>The official S3 client, configured as the options and the SDK's chain say (path-style against a given endpoint).</summary>
    public AmazonS3Client CreateS3()
    {
        var config = new AmazonS3Config { ForcePathStyle = (S3EndpointUrl ?? EndpointUrl) is not null };
        Configure(config, S3EndpointUrl);
        return Credentials() is { } credentials ? new AmazonS3Client(credentials, config) : new AmazonS3Client(config);
    }

    /// <summary>Missive's transport over the SQS client (SNS and EventBridge through Missive's own clients, with the same region, endpoint and credentials).</summary>
    public AwsTransport CreateTransport(AmazonSQSClient sqs, IReadOnlyDictionary<string, Uri> queueUrls)
    {
        var options = new AwsTransportOptions
        {
            SqsClient = sqs,
            Region = sqs.Config.RegionEndpoint?.SystemName ?? sqs.Config.AuthenticationRegion,
            Credentials = ResolveCredentials(),
        };
        if (EndpointUrl is not null)
        {
            options.ServiceUrl = new Uri(EndpointUrl);
        }

        foreach ((string name, Uri url) in queueUrls)
        {
            options.QueueUrls[name] = url;
        }

        return new AwsTransport(options);
    }

    /// <summary>The credentials every call signs with: the profile's, or the SDK's default chain.</summary>
    public AWSCredentials ResolveCredentials() => Credentials() ?? DefaultCredentials();

    /// <summary>The region the SQS client signs for, which every other call of the tool uses too.</summary>
    public static RegionEndpoint RegionOf(AmazonSQSClient sqs)
        => sqs.Config.RegionEndpoint ?? (sqs.Config.AuthenticationRegion is { Length: > 0 } name ? RegionEndpoint.GetBySystemName(name) : throw new ToolException("No AWS region: set AWS_REGION, the profile's region or --region."));

    /// <summary>
    /// CloudWatch's endpoint as the SDK would choose it: <c>--endpoint-url</c>, else <c>AWS_ENDPOINT_URL_CLOUDWATCH</c>, else
    /// <c>AWS_ENDPOINT_URL</c>; <c>null</c> for the region's own.
    /// </summary>
    public Uri? CloudWatchEndpoint
        => (EndpointUrl ?? Environment.GetEnvironmentVariable("AWS_ENDPOINT_URL_CLOUDWATCH") ?? Environment.GetEnvironmentVariable("AWS_ENDPOINT_URL")) is { Length: > 0 } url ? new Uri(url) : null;

    private static AWSCredentials DefaultCredentials()
    {
        try
        {
            return DefaultAWSCredentialsIdentityResolver.GetCredentials(null);
        }
        catch (AmazonClientException e)
        {
            throw new ToolException("No AWS credentials found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE or --profile, or run where a role provides them.", e);
        }
    }

    private void Configure(ClientConfig config, string? endpointUrl = null)
    {
        endpointUrl ??= EndpointUrl;
        if (Region is not null)
        {
            config.RegionEndpoint = RegionEndpoint.GetBySystemName(Region);
        }

        if (endpointUrl is not null)
        {
            config.ServiceURL = endpointUrl;
            config.AuthenticationRegion = Region ?? config.RegionEndpoint?.SystemName ?? FallbackRegionFactory.GetRegionEndpoint()?.SystemName;
        }

        config.MaxErrorRetry = 2;
        config.Timeout = TimeSpan.FromSeconds(30);
    }

    private AWSCredentials? Credentials()
    {
        if (Profile is null)
        {
            return null;
        }

        return new CredentialProfileStoreChain().TryGetAWSCredentials(Profile, out AWSCredentials? credentials)
            ? credentials
            : throw new ToolException($"No AWS profile named '{Profile}' in the shared config or credentials files: check --profile (or AWS_PROFILE) and ~/.aws/config.");
    }
}

/// <summary>A failure the tool reports as one line (with its stack only under <c>--verbose</c>) and exit code 1.</summary>
internal sealed class ToolException(string message, Exception? inner = null) : Exception(message, inner);
