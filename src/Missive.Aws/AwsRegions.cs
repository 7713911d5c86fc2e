using System;

namespace Missive.Aws;

/// <summary>
/// The regions AWS lists (the commercial partition, China, GovCloud, the European Sovereign Cloud and the isolated
/// partitions), to catch a misspelt region at startup. AWSSDK.Core's own list cannot serve: it grows with every name it
/// is asked for. A region newer than this list is taken with <see cref="AwsTransportOptions.AllowUnlistedRegion"/>.
/// </summary>
internal static class AwsRegions
{
    private static readonly string[] Listed =
    [
        "us-east-1", "us-east-2", "us-west-1", "us-west-2",
        "af-south-1",
        "ap-east-1", "ap-east-2", "ap-south-1", "ap-south-2",
        "ap-southeast-1", "ap-southeast-2", "ap-southeast-3", "ap-southeast-4", "ap-southeast-5", "ap-southeast-6", "ap-southeast-7",
        "ap-northeast-1", "ap-northeast-2", "ap-northeast-3",
        "ca-central-1", "ca-west-1",
        "eu-central-1", "eu-central-2", "eu-west-1", "eu-west-2", "eu-west-3", "eu-south-1", "eu-south-2", "eu-north-1",
        "il-central-1", "me-south-1", "me-central-1", "mx-central-1", "sa-east-1",
        "cn-north-1", "cn-northwest-1",
        "us-gov-east-1", "us-gov-west-1",
        "eusc-de-east-1",
        "us-iso-east-1", "us-iso-west-1", "us-isob-east-1", "us-isof-south-1", "us-isof-east-1", "eu-isoe-west-1",
    ];

    public static bool IsListed(string region) => Array.IndexOf(Listed, region) >= 0;

    /// <summary>The listed region a near miss (at most two edits) most likely meant, or an empty string.</summary>
    public static string Closest(string region) => ConfigurationNames.Nearest(region, Listed, maxDistance: 2, ignoreCase: false) ?? string.Empty;
}
