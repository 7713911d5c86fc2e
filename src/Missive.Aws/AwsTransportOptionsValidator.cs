using System;
using System.Collections.Generic;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;
using Missive.Bus;
using Missive.Transport;

namespace Missive.Aws;

/// <summary>
/// Checks the AWS transport's configuration with the bus's own checks when the host starts: every option out of range,
/// that the Missive.Aws options and the application's AWS options (<see cref="ApplicationAws"/>) do not disagree, that
/// together they resolve to a region, credentials and endpoints, and that every SNS publisher's topic has an ARN (SNS
/// names topics by ARN only). Each problem says what to write instead.
/// </summary>
internal sealed class AwsTransportOptionsValidator : IMessageBusConfigurationCheck
{
    private readonly Func<string, string?> _environment;

    public AwsTransportOptionsValidator(Func<string, string?> environment) => _environment = environment;

    public void Check(MessageBusDescription bus, ICollection<string> problems)
    {
        AwsTransportOptions options;
        try
        {
            options = bus.Services.GetRequiredService<IOptions<AwsTransportOptions>>().Value;
        }
        catch (MessageBusConfigurationException e)
        {
            problems.Add(e.Message); // a configuration value that does not parse
            return;
        }

        int before = problems.Count;
        FindProblems(options, problems);
        ApplicationAws? application = null;
        try
        {
            application = ApplicationAws.From(bus.Services);
        }
        catch (MessageBusConfigurationException e)
        {
            problems.Add(e.Message);
        }

        if (application is not null)
        {
            AwsSettings.FindConflicts(options, application, problems);
        }

        if (problems.Count == before)
        {
            try
            {
                AwsSettings settings = AwsSettings.Resolve(options, _environment, application: application);
                FindRegionProblems(options, settings.Region.SystemName, bus, problems);
            }
            catch (MessageBusConfigurationException e)
            {
                problems.Add(e.Message);
            }
        }

        foreach (MessageBusDestination destination in bus.Publishers)
        {
            if (destination.Kind == MessageBusDestinationKind.Topic && !destination.Name.StartsWith("arn:", StringComparison.Ordinal) && !options.TopicArns.ContainsKey(destination.Name))
            {
                problems.Add($"{destination.MessageType.FullName} is published to the SNS topic '{destination.Name}', which has no ARN (SNS names topics by ARN): add TopicArns:{destination.Name} = arn:aws:sns:<region>:<account>:{destination.Name} to the Missive.Aws options, or name the topic by its ARN in AddSnsPublisher.");
            }
        }
    }

    /// <summary>
    /// A region AWSSDK.Core does not list (unless <see cref="AwsTransportOptions.AllowUnlistedRegion"/>), and every
    /// configured topic ARN or AWS queue URL in another region than the transport's: SNS and SQS answer only in their
    /// own region, so such a resource is not found there.
    /// </summary>
    internal static void FindRegionProblems(AwsTransportOptions options, string region, MessageBusDescription? bus, ICollection<string> problems)
    {
        if (!options.AllowUnlistedRegion && !AwsRegions.IsListed(region))
        {
            string closest = AwsRegions.Closest(region);
            problems.Add($"Missive.Aws Region '{region}' is not a region AWS lists{(closest.Length > 0 ? $" (did you mean '{closest}'?)" : string.Empty)}: correct it (Region, AWS_REGION or the profile), or set AllowUnlistedRegion for a region newer than this AWS SDK.");
        }

        foreach ((string topic, string arn) in options.TopicArns)
        {
            AddIfOtherRegion($"TopicArns:{topic}", arn, ArnRegion(arn), region, problems);
        }

        if (bus is not null)
        {
            foreach (MessageBusDestination destination in bus.Publishers)
            {
                if (destination.Name.StartsWith("arn:", StringComparison.Ordinal))
                {
                    AddIfOtherRegion($"The publisher of {destination.MessageType.Name}", destination.Name, ArnRegion(destination.Name), region, problems);
                }
            }
        }

        foreach ((string queue, Uri url) in options.QueueUrls)
        {
            AddIfOtherRegion($"QueueUrls:{queue}", url.ToString(), QueueUrlRegion(url), region, problems);
        }
    }

    private static void AddIfOtherRegion(string what, string resource, string? resourceRegion, string region, ICollection<string> problems)
    {
        if (resourceRegion is { Length: > 0 } && !string.Equals(resourceRegion, region, StringComparison.Ordinal))
        {
            problems.Add($"Missive.Aws {what} ({resource}) is in {resourceRegion}, but the transport's region is {region}: the service answers only in its own region. Set Region to {resourceRegion}, or name the resource of {region}.");
        }
    }

    /// <summary>The region of an ARN (<c>arn:partition:service:region:account:resource</c>), or <c>null</c>.</summary>
    internal static string? ArnRegion(string arn)
    {
        string[] parts = arn.Split(':', 6);
        return parts.Length == 6 ? parts[3] : null;
    }

    /// <summary>The region of an AWS SQS queue URL (<c>https://sqs.{region}.amazonaws.com/…</c>), or <c>null</c> for any other host (a local endpoint).</summary>
    internal static string? QueueUrlRegion(Uri url)
    {
        string[] labels = url.Host.Split('.');
        return labels.Length >= 4 && labels[0] == "sqs" && url.Host.EndsWith(".amazonaws.com", StringComparison.Ordinal) ? labels[1] : null;
    }

    /// <summary>Every option out of range, with what to set instead.</summary>
    internal static void FindProblems(AwsTransportOptions options, ICollection<string> problems)
    {
        if (options.MaxAttempts is < 1 or > 20)
        {
            problems.Add($"Missive.Aws MaxAttempts is {options.MaxAttempts}: it counts every attempt, the first included; set it to 1 to 20 (AWS standard mode uses 3).");
        }

        if (options.MaxBackoff <= TimeSpan.Zero || options.MaxBackoff > TimeSpan.FromMinutes(5))
        {
            problems.Add($"Missive.Aws MaxBackoff is {options.MaxBackoff}: set it above zero and at most 5 minutes (AWS standard mode uses 20 seconds).");
        }

        if (options.AttemptTimeout < TimeSpan.FromSeconds(1))
        {
            problems.Add($"Missive.Aws AttemptTimeout is {options.AttemptTimeout}: set it to at least 1 second.");
        }

        foreach ((string name, int size) in (ReadOnlySpan<(string, int)>)[("MaxSqsMessageSize", options.MaxSqsMessageSize), ("MaxSnsMessageSize", options.MaxSnsMessageSize), ("MaxEventBridgeEntrySize", options.MaxEventBridgeEntrySize)])
        {
            if (size < 1024)
            {
                problems.Add($"Missive.Aws {name} is {size}: set it to the service's limit in bytes, at least 1024 (the default, 1048576, is AWS's limit).");
            }
        }

        foreach ((string queue, Uri url) in options.QueueUrls)
        {
            if (!url.IsAbsoluteUri || (url.Scheme != Uri.UriSchemeHttps && url.Scheme != Uri.UriSchemeHttp))
            {
                problems.Add($"Missive.Aws QueueUrls:{queue} is not an absolute http or https URL: write the queue's URL (https://sqs.<region>.amazonaws.com/<account>/{queue}).");
            }
            else if (FifoRule.IsFifo(url.AbsolutePath.TrimEnd('/')) != FifoRule.IsFifo(queue))
            {
                problems.Add(FifoRule.IsFifo(queue)
                    ? $"Missive.Aws QueueUrls:{queue} names a FIFO queue, but its URL {url} is not one (a FIFO queue's name ends in .fifo): write the FIFO queue's URL, or drop .fifo from the name."
                    : $"Missive.Aws QueueUrls:{queue} is a FIFO queue (its URL ends in .fifo) under a name without .fifo, so the bus would not give it FIFO handling (a group's messages one at a time, group ids on publish): name it '{queue}.fifo' here and in the bus's publishers and pollers.");
            }
        }

        foreach ((string topic, string arn) in options.TopicArns)
        {
            if (!arn.StartsWith("arn:", StringComparison.Ordinal) || !arn.Contains(":sns:", StringComparison.Ordinal))
            {
                problems.Add($"Missive.Aws TopicArns:{topic} is not an SNS topic ARN: write arn:aws:sns:<region>:<account>:{topic}.");
            }
            else if (FifoRule.IsFifo(arn) != FifoRule.IsFifo(topic))
            {
                problems.Add(FifoRule.IsFifo(topic)
                    ? $"Missive.Aws TopicArns:{topic} names a FIFO topic, but its ARN {arn} is not one (a FIFO topic's name ends in .fifo): write the FIFO topic's ARN, or drop .fifo from the name."
                    : $"Missive.Aws TopicArns:{topic} is a FIFO topic (its ARN ends in .fifo) under a name without .fifo, so the bus would not give it FIFO handling (group ids on publish): name it '{topic}.fifo' here and in AddSnsPublisher.");
            }
        }
    }
}
