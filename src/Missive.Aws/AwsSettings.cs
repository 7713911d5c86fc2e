using System;
using System.Text.RegularExpressions;
using Amazon;
using Amazon.Runtime;
using Amazon.Runtime.CredentialManagement;
using Amazon.Runtime.Credentials;

namespace Missive.Aws;

/// <summary>What <see cref="AwsTransportOptions"/> resolve to: one region, one set of credentials, one endpoint per service.</summary>
internal sealed partial class AwsSettings
{
    /// <summary>The SigV4 signing names of the services (the service part of the credential scope).</summary>
    public const string SqsSigningName = "sqs";
    public const string SnsSigningName = "sns";
    public const string EventBridgeSigningName = "events";

    private AwsSettings(RegionEndpoint region, AWSCredentials credentials, Uri sqs, Uri sns, Uri eventBridge)
    {
        Region = region;
        Credentials = credentials;
        SqsEndpoint = sqs;
        SnsEndpoint = sns;
        EventBridgeEndpoint = eventBridge;
    }

    public RegionEndpoint Region { get; }

    public AWSCredentials Credentials { get; }

    public Uri SqsEndpoint { get; }

    public Uri SnsEndpoint { get; }

    public Uri EventBridgeEndpoint { get; }

    /// <summary>Resolves the options; <paramref name="environment"/> reads environment variables (injectable for tests).</summary>
    /// <exception cref="MessageBusConfigurationException">A setting is missing or invalid; the message says how to fix it.</exception>
    public static AwsSettings Resolve(AwsTransportOptions options, Func<string, string?> environment)
    {
        ArgumentNullException.ThrowIfNull(options);
        RegionEndpoint region = ResolveRegion(options.Region);
        AWSCredentials credentials = ResolveCredentials(options);
        bool ignoreEnvironment = string.Equals(environment("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS"), "true", StringComparison.OrdinalIgnoreCase);
        string? global = ignoreEnvironment ? null : environment("AWS_ENDPOINT_URL");
        return new AwsSettings(
            region,
            credentials,
            ResolveEndpoint("sqs", options.SqsServiceUrl ?? options.ServiceUrl, ignoreEnvironment ? null : environment("AWS_ENDPOINT_URL_SQS") ?? global, region),
            ResolveEndpoint("sns", options.SnsServiceUrl ?? options.ServiceUrl, ignoreEnvironment ? null : environment("AWS_ENDPOINT_URL_SNS") ?? global, region),
            ResolveEndpoint("events", options.EventBridgeServiceUrl ?? options.ServiceUrl, ignoreEnvironment ? null : environment("AWS_ENDPOINT_URL_EVENTBRIDGE") ?? global, region));
    }

    private static RegionEndpoint ResolveRegion(string? configured)
    {
        if (configured is null)
        {
            return FallbackRegionFactory.GetRegionEndpoint()
                ?? throw new MessageBusConfigurationException("No AWS region is configured: set Region in the Missive.Aws options (configuration key Region), or the AWS_REGION environment variable, or a region in the AWS profile.");
        }

        if (!RegionName().IsMatch(configured))
        {
            throw new MessageBusConfigurationException($"'{configured}' is not an AWS region name (for example eu-west-1).");
        }

        return RegionEndpoint.GetBySystemName(configured);
    }

    private static AWSCredentials ResolveCredentials(AwsTransportOptions options)
    {
        if (options.Credentials is { } given)
        {
            return given;
        }

        if (options.Profile is { } profile)
        {
            return new CredentialProfileStoreChain().TryGetAWSCredentials(profile, out AWSCredentials? fromProfile)
                ? fromProfile
                : throw new MessageBusConfigurationException($"The AWS profile '{profile}' was not found or holds no credentials (shared credentials and config files).");
        }

        try
        {
            return DefaultAWSCredentialsIdentityResolver.GetCredentials(null);
        }
        catch (AmazonClientException e)
        {
            throw new MessageBusConfigurationException("No AWS credentials were found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE, run where a role is available (ECS, EKS, EC2), or set Credentials or Profile in the Missive.Aws options.", e);
        }
    }

    private static Uri ResolveEndpoint(string endpointPrefix, Uri? configured, string? fromEnvironment, RegionEndpoint region)
    {
        if (configured is not null)
        {
            return CheckEndpoint(configured, "the Missive.Aws options");
        }

        if (!string.IsNullOrEmpty(fromEnvironment))
        {
            return Uri.TryCreate(fromEnvironment, UriKind.Absolute, out Uri? uri)
                ? CheckEndpoint(uri, "an AWS_ENDPOINT_URL environment variable")
                : throw new MessageBusConfigurationException($"The endpoint '{fromEnvironment}' from an AWS_ENDPOINT_URL environment variable is not an absolute URL.");
        }

        var builder = new UriBuilder(Uri.UriSchemeHttps, $"{endpointPrefix}.{region.SystemName}.{region.PartitionDnsSuffix}");
        return builder.Uri;
    }

    private static Uri CheckEndpoint(Uri endpoint, string source)
        => endpoint.IsAbsoluteUri && (endpoint.Scheme == Uri.UriSchemeHttps || endpoint.Scheme == Uri.UriSchemeHttp) && string.IsNullOrEmpty(endpoint.Query)
            ? endpoint
            : throw new MessageBusConfigurationException($"The endpoint '{endpoint}' from {source} must be an absolute http or https URL without a query.");

    [GeneratedRegex("^[a-z]{2}(-[a-z]+)+-[0-9]+$")]
    private static partial Regex RegionName();
}
