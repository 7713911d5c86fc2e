using System;
using System.Text.RegularExpressions;
using Amazon;
using Amazon.Runtime;
using Amazon.Runtime.CredentialManagement;
using Amazon.Runtime.Credentials;
using Missive.Aws.Protocol;

namespace Missive.Aws;

/// <summary>What <see cref="AwsTransportOptions"/> resolve to: one region, one set of credentials, one endpoint per service.</summary>
internal sealed partial class AwsSettings
{
    /// <summary>The SigV4 signing names of the services (the service part of the credential scope).</summary>
    public const string SqsSigningName = "sqs";
    public const string SnsSigningName = "sns";
    public const string EventBridgeSigningName = "events";

    private readonly SigV4Signer _sqsSigner;
    private readonly SigV4Signer _snsSigner;
    private readonly SigV4Signer _eventBridgeSigner;

    private AwsSettings(RegionEndpoint region, AWSCredentials credentials, string credentialSource, Uri sqs, Uri sns, Uri eventBridge, TimeProvider clock)
    {
        CredentialSource = credentialSource;
        Region = region;
        Credentials = credentials;
        SqsEndpoint = sqs;
        SnsEndpoint = sns;
        EventBridgeEndpoint = eventBridge;
        _sqsSigner = new SigV4Signer(credentials, region.SystemName, SqsSigningName, clock);
        _snsSigner = new SigV4Signer(credentials, region.SystemName, SnsSigningName, clock);
        _eventBridgeSigner = new SigV4Signer(credentials, region.SystemName, EventBridgeSigningName, clock);
    }

    public RegionEndpoint Region { get; }

    public AWSCredentials Credentials { get; }

    /// <summary>Gets where the credentials came from, for errors and logs (never the credentials themselves).</summary>
    public string CredentialSource { get; }

    public Uri SqsEndpoint { get; }

    public Uri SnsEndpoint { get; }

    public Uri EventBridgeEndpoint { get; }

    /// <summary>
    /// Gets the signer of a service (by signing name): one per service for the life of the settings, so that the signing
    /// key and a clock correction are shared by every handler the HTTP client factory builds for it.
    /// </summary>
    public SigV4Signer SignerFor(string signingName) => signingName switch
    {
        SqsSigningName => _sqsSigner,
        SnsSigningName => _snsSigner,
        EventBridgeSigningName => _eventBridgeSigner,
        _ => throw new ArgumentOutOfRangeException(nameof(signingName), signingName, "Not a service of the transport."),
    };

    /// <summary>Resolves the options; <paramref name="environment"/> reads environment variables and <paramref name="clock"/> signs requests (both injectable for tests).</summary>
    /// <exception cref="MessageBusConfigurationException">A setting is missing or invalid; the message says how to fix it.</exception>
    public static AwsSettings Resolve(AwsTransportOptions options, Func<string, string?> environment, TimeProvider? clock = null)
    {
        ArgumentNullException.ThrowIfNull(options);
        RegionEndpoint region = ResolveRegion(options.Region);
        (AWSCredentials credentials, string credentialSource) = ResolveCredentials(options);
        bool ignoreEnvironment = string.Equals(environment("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS"), "true", StringComparison.OrdinalIgnoreCase);
        string? global = ignoreEnvironment ? null : environment("AWS_ENDPOINT_URL");
        return new AwsSettings(
            region,
            credentials,
            credentialSource,
            ResolveEndpoint("sqs", options.SqsServiceUrl ?? options.ServiceUrl, ignoreEnvironment ? null : environment("AWS_ENDPOINT_URL_SQS") ?? global, region),
            ResolveEndpoint("sns", options.SnsServiceUrl ?? options.ServiceUrl, ignoreEnvironment ? null : environment("AWS_ENDPOINT_URL_SNS") ?? global, region),
            ResolveEndpoint("events", options.EventBridgeServiceUrl ?? options.ServiceUrl, ignoreEnvironment ? null : environment("AWS_ENDPOINT_URL_EVENTBRIDGE") ?? global, region),
            clock ?? TimeProvider.System);
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

    private static (AWSCredentials Credentials, string Source) ResolveCredentials(AwsTransportOptions options)
    {
        if (options.Credentials is { } given)
        {
            return (given, $"AwsTransportOptions.Credentials ({given.GetType().Name})");
        }

        if (options.Profile is { } profile)
        {
            return new CredentialProfileStoreChain().TryGetAWSCredentials(profile, out AWSCredentials? fromProfile)
                ? (fromProfile, $"the profile '{profile}' (AwsTransportOptions.Profile)")
                : throw new MessageBusConfigurationException($"The AWS profile '{profile}' was not found or holds no credentials (shared credentials and config files).");
        }

        try
        {
            AWSCredentials found = DefaultAWSCredentialsIdentityResolver.GetCredentials(null);
            return (found, "AWSSDK.Core's default chain: " + Describe(found));
        }
        catch (AmazonClientException e)
        {
            throw new MessageBusConfigurationException("No AWS credentials were found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE, run where a role is available (ECS, EKS, EC2), or set Credentials or Profile in the Missive.Aws options.", e);
        }
    }

    /// <summary>Where credentials the default chain found come from, by their kind (never their values).</summary>
    private static string Describe(AWSCredentials credentials)
        => credentials.GetType().Name switch
        {
            "EnvironmentVariablesAWSCredentials" => "the environment (AWS_ACCESS_KEY_ID)",
            "InstanceProfileAWSCredentials" or "DefaultInstanceProfileAWSCredentials" => "the EC2 instance's role (instance metadata)",
            "ECSTaskCredentials" or "GenericContainerCredentials" => "the container's role (ECS or EKS Pod Identity)",
            "AssumeRoleWithWebIdentityCredentials" => "a web identity token (AWS_WEB_IDENTITY_TOKEN_FILE, AWS_ROLE_ARN)",
            "SSOAWSCredentials" => "AWS IAM Identity Center (SSO) through the profile",
            { } other => $"the profile or provider of type {other} (AWS_PROFILE: {Environment.GetEnvironmentVariable("AWS_PROFILE") ?? "default"})",
        };

    internal static Uri ResolveEndpoint(string endpointPrefix, Uri? configured, string? fromEnvironment, RegionEndpoint region)
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
