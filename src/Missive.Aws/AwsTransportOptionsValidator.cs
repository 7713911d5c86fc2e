using System;
using System.Collections.Generic;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;
using Missive.Bus;
using Missive.Transport;

namespace Missive.Aws;

/// <summary>
/// Checks the AWS transport's configuration with the bus's own checks when the host starts: every option out of range,
/// that the options resolve to a region, credentials and endpoints, and that every SNS publisher's topic has an ARN
/// (SNS names topics by ARN only). Each problem says what to write instead.
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
        if (problems.Count == before)
        {
            try
            {
                _ = AwsSettings.Resolve(options, _environment);
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
