using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Missive.Bus;
using Missive.Transport;

namespace Missive.Aws;

/// <summary>
/// The opt-in startup verification of <see cref="AwsTransportOptions.VerifyResourcesAtStartup"/>: every queue, topic and
/// event bus the bus uses, asked about once, together; each failure is one problem (event buses first, then queues,
/// then topics, each kind in the order configured). A FIFO queue or topic that deduplicates only by id is not one, even
/// for a type whose <c>AddFifoIds</c> gives no deduplication id: its publishes may give one in <c>PublishOptions</c>, and
/// one that does not is refused by the service, with what to set.
/// </summary>
internal sealed class AwsResourceCheck(AwsTransportOptions options, Func<AwsTransport> transport) : IMessageBusResourceCheck
{
    public async Task CheckAsync(MessageBusDescription bus, ICollection<string> problems, CancellationToken cancellationToken)
    {
        if (!options.VerifyResourcesAtStartup)
        {
            return;
        }

        AwsTransport aws = transport();
        // Each resource once, in the order configured.
        var queues = new List<string>();
        var topics = new List<string>();
        var buses = new HashSet<string>(StringComparer.Ordinal);
        var checks = new List<Task<string?>>();
        foreach (string queue in bus.PolledQueues)
        {
            Note(queues, queue);
        }

        foreach (string queue in bus.DeadLetterQueues)
        {
            Note(queues, queue);
        }

        foreach (MessageBusDestination destination in bus.Publishers)
        {
            switch (destination.Kind)
            {
                case MessageBusDestinationKind.Queue:
                    Note(queues, destination.Name);
                    break;
                case MessageBusDestinationKind.Topic:
                    Note(topics, destination.Name);
                    break;
                default:
                    if (buses.Add(destination.Name))
                    {
                        string eventBus = destination.Name;
                        checks.Add(CheckAsync("event bus", eventBus, async () =>
                        {
                            await aws.EventBridge.DescribeEventBusAsync(eventBus, cancellationToken).ConfigureAwait(false);
                            return null;
                        }));
                    }

                    break;
            }
        }

        foreach (string queue in queues)
        {
            checks.Add(CheckAsync("queue", queue, async () =>
            {
                await aws.Sqs.GetFifoAttributesAsync(queue, cancellationToken).ConfigureAwait(false); // it exists, and may be asked about
                return null;
            }));
        }

        foreach (string topic in topics)
        {
            checks.Add(CheckAsync("topic", topic, async () =>
            {
                await aws.Sns.GetFifoAttributesAsync(topic, cancellationToken).ConfigureAwait(false);
                return null;
            }));
        }

        foreach (string? problem in await Task.WhenAll(checks).ConfigureAwait(false))
        {
            if (problem is not null)
            {
                problems.Add(problem);
            }
        }
    }

    private static void Note(List<string> resources, string name)
    {
        if (!resources.Contains(name, StringComparer.Ordinal))
        {
            resources.Add(name);
        }
    }

    /// <summary>Asks about one resource: its call's failure, or what it answered against the publishers' needs, is the problem (or <c>null</c>).</summary>
    private static async Task<string?> CheckAsync(string what, string name, Func<Task<string?>> ask)
    {
        try
        {
            return await ask().ConfigureAwait(false);
        }
        catch (MessageTransportException e)
        {
            return $"The {what} '{name}' could not be verified: {e.Message}";
        }
    }
}
