using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Missive.Bus;
using Missive.Transport;

namespace Missive.Aws;

/// <summary>
/// The opt-in startup verification of <see cref="AwsTransportOptions.VerifyResourcesAtStartup"/>: every queue, topic and
/// event bus the bus uses, asked about once, together; each failure or misfit is one problem (event buses first, then
/// queues, then topics, each kind in the order configured).
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
        // Each resource once, in the order configured, with the publishers to it that give no deduplication id.
        var queues = new Dictionary<string, List<Type>>(StringComparer.Ordinal);
        var topics = new Dictionary<string, List<Type>>(StringComparer.Ordinal);
        var buses = new HashSet<string>(StringComparer.Ordinal);
        var checks = new List<Task<string?>>();
        foreach (string queue in bus.PolledQueues)
        {
            Note(queues, queue, null);
        }

        foreach (string queue in bus.DeadLetterQueues)
        {
            Note(queues, queue, null);
        }

        foreach (MessageBusDestination destination in bus.Publishers)
        {
            Type? withoutIds = destination.HasDeduplicationIds ? null : destination.MessageType;
            switch (destination.Kind)
            {
                case MessageBusDestinationKind.Queue:
                    Note(queues, destination.Name, withoutIds);
                    break;
                case MessageBusDestinationKind.Topic:
                    Note(topics, destination.Name, withoutIds);
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

        foreach ((string queue, List<Type> withoutIds) in queues)
        {
            checks.Add(CheckAsync("queue", queue, async () =>
            {
                (bool fifo, bool contentBased) = await aws.Sqs.GetFifoAttributesAsync(queue, cancellationToken).ConfigureAwait(false);
                return Fit(fifo, contentBased, "queue", queue, withoutIds);
            }));
        }

        foreach ((string topic, List<Type> withoutIds) in topics)
        {
            checks.Add(CheckAsync("topic", topic, async () =>
            {
                (bool fifo, bool contentBased) = await aws.Sns.GetFifoAttributesAsync(topic, cancellationToken).ConfigureAwait(false);
                return Fit(fifo, contentBased, "topic", topic, withoutIds);
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

    private static void Note(Dictionary<string, List<Type>> resources, string name, Type? publishedWithoutIds)
    {
        if (!resources.TryGetValue(name, out List<Type>? withoutIds))
        {
            resources[name] = withoutIds = [];
        }

        if (publishedWithoutIds is not null)
        {
            withoutIds.Add(publishedWithoutIds);
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

    /// <summary>What AWS said against what the publishers need: a FIFO destination deduplicating only by id needs ids from every publisher.</summary>
    private static string? Fit(bool fifo, bool contentBased, string what, string name, List<Type> withoutIds)
    {
        if (!fifo || contentBased || withoutIds.Count == 0)
        {
            return null;
        }

        Type type = withoutIds[0];
        return $"{type.FullName} is published to the FIFO {what} '{name}', which AWS says does not deduplicate by content, and AddFifoIds<{type.Name}> gives no deduplication id: every publish would be refused. Give one (AddFifoIds<{type.Name}>(m => groupId, m => deduplicationId); PublishOptions.MessageDeduplicationId still wins when set), or turn on the {what}'s content-based deduplication (ContentBasedDeduplication).";
    }
}
