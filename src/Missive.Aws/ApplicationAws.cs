using System;
using Amazon.Extensions.NETCore.Setup;
using Amazon.Runtime;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;

namespace Missive.Aws;

/// <summary>
/// The AWS settings the application configured for its own AWS clients, as AWSSDK.Extensions.NETCore.Setup holds them:
/// the <see cref="AWSOptions"/> registered in DI (<c>AddDefaultAWSOptions</c>), else the <c>AWS</c> configuration
/// section (<c>configuration.GetAWSOptions()</c>) when it is there. Every call the bus makes takes the region, the
/// credentials and the endpoint from here, unless the Missive.Aws options set them; where both set one differently, the
/// host does not start.
/// </summary>
internal sealed class ApplicationAws
{
    /// <summary>The configuration section the AWS SDK reads by default.</summary>
    public const string SectionName = "AWS";

    private ApplicationAws(AWSOptions options, string source)
    {
        Options = options;
        Source = source;
        Region = options.DefaultClientConfig.AuthenticationRegion is { Length: > 0 } signing ? signing : options.Region?.SystemName;
        ServiceUrl = options.DefaultClientConfig.ServiceURL is { Length: > 0 } url ? new Uri(url) : null;
    }

    /// <summary>Gets the options as the application gave them.</summary>
    public AWSOptions Options { get; }

    /// <summary>Gets where they come from, for messages (for example <c>the "AWS" configuration section</c>).</summary>
    public string Source { get; }

    /// <summary>Gets the region they sign for: <c>AuthenticationRegion</c> when set (a custom endpoint), else <c>Region</c>; or <c>null</c>.</summary>
    public string? Region { get; }

    /// <summary>Gets the endpoint they set for every service (<c>ServiceURL</c>), or <c>null</c>.</summary>
    public Uri? ServiceUrl { get; }

    /// <summary>Gets the profile they name, or <c>null</c>.</summary>
    public string? Profile => Options.Profile is { Length: > 0 } profile ? profile : null;

    /// <summary>Gets whether they say where credentials come from (credentials, a profile, or a role to assume).</summary>
    public bool HasCredentials => Options.Credentials is not null || Profile is not null || !string.IsNullOrEmpty(Options.SessionRoleArn);

    /// <summary>The credentials they describe, resolved as the SDK resolves them for a client it creates from them.</summary>
    public AWSCredentials Credentials() => Options.GetCredentials();

    /// <summary>Describes where credentials come from (never the credentials).</summary>
    public string CredentialSource
        => Options.Credentials is { } given ? $"{Source}: Credentials ({given.GetType().Name})"
            : Profile is { } profile ? $"{Source}: the profile '{profile}'{(string.IsNullOrEmpty(Options.SessionRoleArn) ? string.Empty : $", assuming {Options.SessionRoleArn}")}"
            : $"{Source}: the role {Options.SessionRoleArn}";

    /// <summary>
    /// The application's AWS settings, or <c>null</c> when it has none: <see cref="AWSOptions"/> in DI, else a non-empty
    /// <c>AWS</c> section in the application's configuration.
    /// </summary>
    /// <exception cref="MessageBusConfigurationException">The <c>AWS</c> section holds a value the SDK cannot read.</exception>
    public static ApplicationAws? From(IServiceProvider services)
    {
        ArgumentNullException.ThrowIfNull(services);
        if (services.GetService<AWSOptions>() is { } registered)
        {
            return new ApplicationAws(registered, "the application's AWSOptions (AddDefaultAWSOptions)");
        }

        if (services.GetService<IConfiguration>() is { } configuration && configuration.GetSection(SectionName) is { } section && section.Exists())
        {
            try
            {
                return new ApplicationAws(configuration.GetAWSOptions(SectionName), $"the \"{SectionName}\" configuration section");
            }
            catch (Exception e) when (e is ConfigurationException or ArgumentException or FormatException or InvalidOperationException)
            {
                throw new MessageBusConfigurationException($"The application's \"{SectionName}\" configuration section, which the bus takes its AWS settings from, cannot be read: {e.Message}", e);
            }
        }

        return null;
    }
}
