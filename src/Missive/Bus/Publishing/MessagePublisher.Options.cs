using System;
using System.Collections.Generic;
using Missive.Transport;

namespace Missive.Bus;

/// <content>What a publish's options may ask of its destination, checked before anything is written, and carried into its request.</content>
internal sealed partial class MessagePublisher
{
    /// <summary>FIFO ids the caller gives must be ones SQS and SNS take.</summary>
    private static void CheckIds(PublishOptions? options)
    {
        if (options is null)
        {
            return;
        }

        if (SqsRules.FifoIdProblem(options.MessageGroupId) is { } group)
        {
            throw new ArgumentException($"PublishOptions.MessageGroupId {group}.", nameof(options));
        }

        if (SqsRules.FifoIdProblem(options.MessageDeduplicationId) is { } deduplication)
        {
            throw new ArgumentException($"PublishOptions.MessageDeduplicationId {deduplication}.", nameof(options));
        }
    }

    /// <summary>Refuses a delay or message attributes the route's service does not take, before anything is written or sent.</summary>
    private static void CheckDeliveryOptions(PublishOptions? options, MessageRoute route)
    {
        if (options?.Delay is { } delay)
        {
            if (route.Kind != RouteKind.Sqs)
            {
                throw new ArgumentException($"PublishOptions.Delay is for SQS queues; '{route.Target}' is {(route.Kind == RouteKind.Sns ? "an SNS topic" : "an EventBridge bus")}, which delays nothing (set a delivery delay on the subscribed queue).", nameof(options));
            }

            if (route.IsFifo && delay > TimeSpan.Zero)
            {
                throw new ArgumentException($"PublishOptions.Delay is refused by the FIFO queue '{route.Target}': SQS takes no per-message delay on FIFO queues (set the queue's DelaySeconds).", nameof(options));
            }

            if (delay < TimeSpan.Zero || delay > TimeSpan.FromMinutes(15))
            {
                throw new ArgumentOutOfRangeException(nameof(options), delay, "PublishOptions.Delay must be from zero to 15 minutes (SQS's DelaySeconds).");
            }
        }

        if (options?.SnsSubject is not null && route.Kind != RouteKind.Sns)
        {
            throw new ArgumentException($"PublishOptions.SnsSubject is the Subject of an SNS message; '{route.Target}' is {(route.Kind == RouteKind.Sqs ? "an SQS queue" : "an EventBridge bus")}, which has none (for the envelope's CloudEvents subject, use PublishOptions.ConfigureEnvelope).", nameof(options));
        }

        if (options?.MessageAttributes is not null && route.Kind == RouteKind.EventBridge)
        {
            throw new ArgumentException($"PublishOptions.MessageAttributes are for SQS and SNS; the EventBridge bus '{route.Target}' carries none (put the values in the envelope's extension attributes).", nameof(options));
        }
    }

    /// <summary>The request with the options' delay and message attributes, or the request itself when it has none.</summary>
    private static SqsSendRequest WithOptions(SqsSendRequest request, PublishOptions? options)
    {
        if (options is null || (options.Delay is null && options.MessageAttributes is null))
        {
            return request;
        }

        return new SqsSendRequest
        {
            QueueName = request.QueueName,
            GivenBody = request.GivenBody,
            RentedBody = request.RentedBody,
            MessageAttributes = Attributes(request.MessageAttributes, options, SqsRules.MaxMessageAttributes),
            MessageGroupId = request.MessageGroupId,
            MessageDeduplicationId = request.MessageDeduplicationId,
            Delay = options.Delay ?? TimeSpan.Zero,
        };
    }

    private static SnsPublishRequest WithOptions(SnsPublishRequest request, PublishOptions? options)
    {
        if (options is null || options.MessageAttributes is null)
        {
            return request;
        }

        return new SnsPublishRequest
        {
            TopicArn = request.TopicArn,
            Message = request.Message,
            Subject = request.Subject,
            MessageAttributes = Attributes(request.MessageAttributes, options, int.MaxValue),
            MessageGroupId = request.MessageGroupId,
            MessageDeduplicationId = request.MessageDeduplicationId,
        };
    }

    /// <summary>Missive's own attributes and the caller's, checked against the SQS rules (a topic delivers them to queues).</summary>
    private static Dictionary<string, MessageAttributeValue> Attributes(IReadOnlyDictionary<string, MessageAttributeValue> own, PublishOptions options, int max)
    {
        var merged = new Dictionary<string, MessageAttributeValue>(own, StringComparer.Ordinal);
        if (options.MessageAttributes is { } caller)
        {
            foreach ((string name, MessageAttributeValue value) in caller)
            {
                if (value is null)
                {
                    throw new ArgumentException($"The message attribute '{name}' in PublishOptions.MessageAttributes has no value.", nameof(options));
                }

                if (string.Equals(name, ContentTypeAttribute.Name, StringComparison.Ordinal))
                {
                    throw new ArgumentException($"PublishOptions.MessageAttributes names '{ContentTypeAttribute.Name}', which Missive sets to tell a protobuf body: use another name.", nameof(options));
                }

                if (SqsRules.ValidateAttributeName(name) is { } problem)
                {
                    throw new ArgumentException($"The message attribute name '{name}' {problem} (SQS's rules).", nameof(options));
                }

                merged[name] = value;
            }
        }

        return merged.Count <= max ? merged : throw new ArgumentException($"The message carries {merged.Count} message attributes; an SQS queue takes at most {max} (contentType counted when the body is protobuf).", nameof(options));
    }
}
