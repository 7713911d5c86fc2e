using System;
using Amazon.Runtime;

namespace Missive.Aws.Protocol;

/// <summary>
/// Where an application's AWS SDK client sends and what region it signs for, read off its configuration as the SDK
/// decides them, and what chose them: for the startup line, for errors, and to compare with the bus's own calls.
/// </summary>
/// <param name="Endpoint">The endpoint its requests go to.</param>
/// <param name="Region">The region its requests are signed for.</param>
/// <param name="Choice">What chose the two, in words (for example <c>its ServiceURL, signing for AuthenticationRegion</c>).</param>
internal readonly record struct SdkClientSite(Uri Endpoint, string Region, string Choice)
{
    /// <summary>The region the SDK signs for when nothing says one: its default for an endpoint outside AWS.</summary>
    private const string DefaultSigningRegion = "us-east-1";

    /// <summary>
    /// Reads a client's configuration (<paramref name="prefix"/> is the service's endpoint prefix, <c>sqs</c> or
    /// <c>s3</c>): with a <c>ServiceURL</c>, the SDK sends there and signs for <c>AuthenticationRegion</c>, else for the
    /// region an AWS host names (<c>sqs.eu-west-1.amazonaws.com</c>), else for us-east-1 (a <c>RegionEndpoint</c> set
    /// before the <c>ServiceURL</c> is dropped by it); without one, it sends to and signs for its <c>RegionEndpoint</c>.
    /// </summary>
    public static SdkClientSite Of(IClientConfig config, string prefix)
    {
        ArgumentNullException.ThrowIfNull(config);
        if (config.ServiceURL is { Length: > 0 } url && Uri.TryCreate(url, UriKind.Absolute, out Uri? endpoint))
        {
            return config.AuthenticationRegion is { Length: > 0 } signing ? new(endpoint, signing, "its ServiceURL, signing for its AuthenticationRegion")
                : RegionOfAwsHost(endpoint, prefix) is { } named ? new(endpoint, named, "its ServiceURL, signing for the region its host names")
                : config.RegionEndpoint is { } region ? new(endpoint, region.SystemName, "its ServiceURL, signing for its RegionEndpoint")
                : new(endpoint, DefaultSigningRegion, "its ServiceURL without AuthenticationRegion, so the SDK signs for us-east-1");
        }

        string name = config.AuthenticationRegion is { Length: > 0 } authentication ? authentication : config.RegionEndpoint?.SystemName ?? DefaultSigningRegion;
        string suffix = config.RegionEndpoint?.PartitionDnsSuffix ?? "amazonaws.com";
        return new(new Uri($"https://{prefix}.{config.RegionEndpoint?.SystemName ?? name}.{suffix}/"), name, config.RegionEndpoint is null ? "no RegionEndpoint, so the SDK's default" : "its RegionEndpoint");
    }

    /// <summary>The region in an AWS endpoint's host (<c>{prefix}.{region}.amazonaws.com</c>, or <c>.amazonaws.com.cn</c>), or <c>null</c>.</summary>
    private static string? RegionOfAwsHost(Uri endpoint, string prefix)
    {
        string[] labels = endpoint.Host.Split('.');
        return labels.Length >= 4 && labels[0] == prefix && endpoint.Host.Contains(".amazonaws.com", StringComparison.Ordinal) ? labels[1] : null;
    }
}
