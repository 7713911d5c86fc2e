using System;
using System.Collections.Generic;
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

    /// <summary>What chose an endpoint that is the region's own (no endpoint configured).</summary>
    public const string RegionEndpointSource = "the region";

    private readonly SigV4Signer _sqsSigner;
    private readonly SigV4Signer _snsSigner;
    private readonly SigV4Signer _eventBridgeSigner;

    private AwsSettings(RegionEndpoint region, string regionSource, AWSCredentials credentials, string credentialSource, (Uri Uri, string Source) sqs, (Uri Uri, string Source) sns, (Uri Uri, string Source) eventBridge, TimeProvider clock, ApplicationAws? application)
    {
        Application = application;
        CredentialSource = credentialSource;
        RegionSource = regionSource;
        Region = region;
        Credentials = credentials;
        (SqsEndpoint, SqsEndpointSource) = sqs;
        (SnsEndpoint, SnsEndpointSource) = sns;
        (EventBridgeEndpoint, EventBridgeEndpointSource) = eventBridge;
        _sqsSigner = new SigV4Signer(credentials, region.SystemName, SqsSigningName, clock);
        _snsSigner = new SigV4Signer(credentials, region.SystemName, SnsSigningName, clock);
        _eventBridgeSigner = new SigV4Signer(credentials, region.SystemName, EventBridgeSigningName, clock);
    }

    public RegionEndpoint Region { get; }

    /// <summary>Gets the application's AWS options the settings took what they did not set from, or <c>null</c>.</summary>
    public ApplicationAws? Application { get; }

    /// <summary>Gets what chose the region, for errors and the startup line.</summary>
    public string RegionSource { get; }

    public AWSCredentials Credentials { get; }

    /// <summary>Gets where the credentials came from, for errors and logs (never the credentials themselves).</summary>
    public string CredentialSource { get; }

    public Uri SqsEndpoint { get; }

    public Uri SnsEndpoint { get; }

    public Uri EventBridgeEndpoint { get; }

    /// <summary>Gets what chose the SQS endpoint (an option, the application's AWS options, a variable, the region), for errors.</summary>
    public string SqsEndpointSource { get; }

    /// <summary>Gets what chose the SNS endpoint, for errors.</summary>
    public string SnsEndpointSource { get; }

    /// <summary>Gets what chose the EventBridge endpoint, for errors.</summary>
    public string EventBridgeEndpointSource { get; }

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

    /// <summary>
    /// Resolves the options: each of the region, the credentials and the endpoints from the Missive.Aws options where they
    /// set it, else from the application's AWS options (<paramref name="application"/>), else from the environment and
    /// the SDK's default chains. <paramref name="environment"/> reads environment variables and <paramref name="clock"/>
    /// signs requests (both injectable for tests). Where the two configurations disagree is the startup check's to say
    /// (<see cref="FindConflicts"/>).
    /// </summary>
    /// <exception cref="MessageBusConfigurationException">A setting is missing or invalid; the message says how to fix it.</exception>
    public static AwsSettings Resolve(AwsTransportOptions options, Func<string, string?> environment, TimeProvider? clock = null, ApplicationAws? application = null)
    {
        ArgumentNullException.ThrowIfNull(options);
        (RegionEndpoint region, string regionSource) = ResolveRegion(options.Region, application);
        (AWSCredentials credentials, string credentialSource) = ResolveCredentials(options, application);
        bool ignoreEnvironment = string.Equals(environment("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS"), "true", StringComparison.OrdinalIgnoreCase);
        (Uri Uri, string Source) Endpoint(string prefix, Uri? own, string ownName, string variable)
            => ResolveEndpoint(prefix, own ?? options.ServiceUrl, own is not null ? ownName : "ServiceUrl", application, ignoreEnvironment ? null : (environment(variable), variable), ignoreEnvironment ? null : (environment("AWS_ENDPOINT_URL"), "AWS_ENDPOINT_URL"), region);
        return new AwsSettings(
            region,
            regionSource,
            credentials,
            credentialSource,
            Endpoint("sqs", options.SqsServiceUrl, "SqsServiceUrl", "AWS_ENDPOINT_URL_SQS"),
            Endpoint("sns", options.SnsServiceUrl, "SnsServiceUrl", "AWS_ENDPOINT_URL_SNS"),
            Endpoint("events", options.EventBridgeServiceUrl, "EventBridgeServiceUrl", "AWS_ENDPOINT_URL_EVENTBRIDGE"),
            clock ?? TimeProvider.System,
            application);
    }

    /// <summary>
    /// Where the Missive.Aws options and the application's AWS options both set the region, the credentials or the
    /// endpoint, and differently: the bus would sign or send its calls apart from the application's own clients. Each
    /// problem names both values and where they come from.
    /// </summary>
    public static void FindConflicts(AwsTransportOptions options, ApplicationAws application, ICollection<string> problems)
    {
        if (options.Region is { } region && application.Region is { } theirs && !string.Equals(region, theirs, StringComparison.Ordinal))
        {
            problems.Add($"Two AWS configurations disagree on the region: the Missive.Aws options say '{region}' (Region), {application.Source} says '{theirs}' (Region, or AuthenticationRegion with a ServiceURL). Set it in one place: drop Region from the Missive.Aws options to take the application's, or make the two equal.");
        }

        if (options.Profile is { } profile && application.Profile is { } theirProfile && !string.Equals(profile, theirProfile, StringComparison.Ordinal))
        {
            problems.Add($"Two AWS configurations disagree on the credentials: the Missive.Aws options name the profile '{profile}', {application.Source} the profile '{theirProfile}' (the bus would call SNS and EventBridge as one identity and the application's clients as another). Drop Profile from the Missive.Aws options to take the application's.");
        }
        else if ((options.Credentials is not null || options.Profile is not null) && application.HasCredentials && !ReferenceEquals(options.Credentials, application.Options.Credentials) && options.Profile != application.Profile)
        {
            problems.Add($"Two AWS configurations both say where credentials come from: the Missive.Aws options ({(options.Credentials is { } own ? $"Credentials, {own.GetType().Name}" : $"the profile '{options.Profile}'")}) and {application.CredentialSource}. Set them in one place: drop Credentials or Profile from the Missive.Aws options to take the application's.");
        }

        if (application.ServiceUrl is { } endpoint)
        {
            foreach ((string name, Uri? own) in (ReadOnlySpan<(string, Uri?)>)[("ServiceUrl", options.ServiceUrl), ("SqsServiceUrl", options.SqsServiceUrl), ("SnsServiceUrl", options.SnsServiceUrl), ("EventBridgeServiceUrl", options.EventBridgeServiceUrl)])
            {
                if (own is not null && own != endpoint)
                {
                    problems.Add($"Two AWS configurations disagree on the endpoint: the Missive.Aws options say {own} ({name}), {application.Source} says {endpoint} (ServiceURL). Set it in one place: drop {name} from the Missive.Aws options to take the application's, or make the two equal.");
                }
            }
        }
    }

    private static (RegionEndpoint Region, string Source) ResolveRegion(string? configured, ApplicationAws? application)
    {
        (string? name, string source) = configured is not null ? (configured, "Region in the Missive.Aws options")
            : application?.Region is { } theirs ? (theirs, application.Source)
            : ((string?)null, string.Empty);
        if (name is null)
        {
            return (FallbackRegionFactory.GetRegionEndpoint()
                ?? throw new MessageBusConfigurationException("No AWS region is configured: set Region in the application's \"AWS\" configuration section (AddDefaultAWSOptions), or Region in the Missive.Aws options, or the AWS_REGION environment variable, or a region in the AWS profile."),
                "the SDK's region chain (AWS_REGION, the profile)");
        }

        if (!RegionName().IsMatch(name))
        {
            string closest = AwsRegions.Closest(name);
            throw new MessageBusConfigurationException($"'{name}' from {source} is not an AWS region name (for example eu-west-1){(closest.Length > 0 ? $"; did you mean '{closest}'?" : ".")}");
        }

        return (RegionEndpoint.GetBySystemName(name), source);
    }

    private static (AWSCredentials Credentials, string Source) ResolveCredentials(AwsTransportOptions options, ApplicationAws? application)
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

        if (application is { HasCredentials: true })
        {
            try
            {
                return (application.Credentials(), application.CredentialSource);
            }
            catch (AmazonClientException e)
            {
                throw new MessageBusConfigurationException($"The credentials of {application.CredentialSource} cannot be had: {e.Message}", e);
            }
        }

        try
        {
            AWSCredentials found = DefaultAWSCredentialsIdentityResolver.GetCredentials(null);
            return (found, "AWSSDK.Core's default chain: " + Describe(found));
        }
        catch (AmazonClientException e)
        {
            throw new MessageBusConfigurationException("No AWS credentials were found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE, run where a role is available (ECS, EKS, EC2), or set Profile in the application's \"AWS\" configuration section (or Credentials or Profile in the Missive.Aws options).", e);
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

    /// <summary>
    /// A service's endpoint, most specific first: the Missive.Aws option (<paramref name="configured"/>, named
    /// <paramref name="optionName"/>), the application's <c>ServiceURL</c>, the service's variable, <c>AWS_ENDPOINT_URL</c>
    /// (both <c>null</c> when configured endpoints are ignored), then the region's own; and what chose it.
    /// </summary>
    internal static (Uri Uri, string Source) ResolveEndpoint(string endpointPrefix, Uri? configured, string optionName, ApplicationAws? application, (string? Value, string Name)? serviceVariable, (string? Value, string Name)? globalVariable, RegionEndpoint region)
    {
        if (configured is not null)
        {
            return (CheckEndpoint(configured, "the Missive.Aws options"), $"{optionName} in the Missive.Aws options");
        }

        if (application?.ServiceUrl is { } theirs)
        {
            return (CheckEndpoint(theirs, application.Source), $"ServiceURL of {application.Source}");
        }

        foreach ((string? Value, string Name)? variable in (ReadOnlySpan<(string? Value, string Name)?>)[serviceVariable, globalVariable])
        {
            if (variable is { Value: { Length: > 0 } value, Name: var name })
            {
                return Uri.TryCreate(value, UriKind.Absolute, out Uri? uri)
                    ? (CheckEndpoint(uri, $"the {name} environment variable"), $"the {name} environment variable")
                    : throw new MessageBusConfigurationException($"The endpoint '{value}' from the {name} environment variable is not an absolute URL.");
            }
        }

        var builder = new UriBuilder(Uri.UriSchemeHttps, $"{endpointPrefix}.{region.SystemName}.{region.PartitionDnsSuffix}");
        return (builder.Uri, RegionEndpointSource);
    }

    private static Uri CheckEndpoint(Uri endpoint, string source)
        => endpoint.IsAbsoluteUri && (endpoint.Scheme == Uri.UriSchemeHttps || endpoint.Scheme == Uri.UriSchemeHttp) && string.IsNullOrEmpty(endpoint.Query)
            ? endpoint
            : throw new MessageBusConfigurationException($"The endpoint '{endpoint}' from {source} must be an absolute http or https URL without a query.");

    [GeneratedRegex("^[a-z]{2}(-[a-z]+)+-[0-9]+$")]
    private static partial Regex RegionName();
}
