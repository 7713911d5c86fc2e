using System;
using System.Collections.Generic;
using System.Linq;
using Missive.Serialization;

namespace Missive.Transport;

/// <summary>Tells whether a native message is of a rule's type, from its body's UTF-8 JSON and its message attributes.</summary>
/// <param name="utf8Body">The native message's JSON (the SNS <c>Message</c> or EventBridge <c>detail</c> when it came wrapped).</param>
/// <param name="messageAttributes">The SQS message attributes, or the SNS notification's when it came wrapped and has some.</param>
/// <returns>Whether the rule's type reads the message.</returns>
public delegate bool NativeMessagePredicate(ReadOnlySpan<byte> utf8Body, IReadOnlyDictionary<string, MessageAttributeValue> messageAttributes);

/// <summary>
/// How a queue's bodies that are not CloudEvents envelopes are read (native messages: AWS service events such as S3
/// notifications and EventBridge events of <c>aws.*</c> sources, other services' SNS notifications, plain JSON from
/// producers that do not speak CloudEvents). Set on <see cref="Bus.PollerOptions.NativeMessages"/> or
/// <see cref="Lambda.SqsEventProcessorOptions.NativeMessages"/>; empty (the default), every body must be an envelope.
/// </summary>
/// <remarks>
/// <para>A body that is a CloudEvents envelope (a JSON object with a <c>specversion</c> member, or base64 protobuf) is
/// read as one, so envelopes and native messages can share a queue. Wrappers are taken off first as for envelopes: an
/// SNS notification's <c>Message</c> and an EventBridge event's <c>detail</c> are the native message, and the wrapper's
/// metadata stays on the envelope (<see cref="MessageEnvelope.SnsMetadata"/>, <see cref="MessageEnvelope.EventBridgeMetadata"/>).</para>
/// <para>The rules are tried in the order they were added; the first that matches names the type, whose registration
/// (<c>AddMessageType</c>) reads the message's JSON as the whole message. The host does not start when a rule names a
/// type nobody registered. A body no rule matches goes to the fallback handler when one is registered (as
/// <see cref="UnregisteredMessage"/>), else it is unreadable (<see cref="InvalidEnvelopeReason.NoNativeRuleMatched"/>):
/// retried, then dead-lettered as received.</para>
/// <para>Rules read what the message already carries with the project's scanning code: attributes without touching
/// the body, the EventBridge <c>source</c> and <c>detail-type</c> as the wrapper is read, an S3 notification's first
/// record's <c>eventSource</c> and <c>eventName</c> from the start of the body. Only the predicate of
/// <see cref="When{T}"/> is the application's code.</para>
/// </remarks>
public sealed class NativeMessageRules
{
    private readonly List<NativeMessageRule> _rules = [];
    private bool _frozen;

    /// <summary>Gets whether no rule was added (every body must then be an envelope).</summary>
    public bool IsEmpty => _rules.Count == 0;

    /// <summary>Gets the rules in the order they are tried, each described as the log line of an unmatched body names it.</summary>
    public IReadOnlyList<string> Descriptions => [.. _rules.Select(r => r.Description)];

    internal IReadOnlyList<NativeMessageRule> Rules => _rules;

    /// <summary>
    /// The attribute rule that SQS message attributes match when only attribute rules come before it, or <c>null</c>. A
    /// body that came with message attributes of its own was sent to the queue as it is (S3, EventBridge and SNS without
    /// raw delivery send none), so such a match reads the body as the message without looking for a wrapper in it (the
    /// caller still reads an envelope as one). Another kind of rule before it may match first: the rules in order decide.
    /// </summary>
    internal NativeMessageRule? LeadingAttributeRule(IReadOnlyDictionary<string, MessageAttributeValue> attributes)
    {
        if (attributes.Count == 0)
        {
            return null;
        }

        foreach (NativeMessageRule rule in _rules)
        {
            if (rule.Attribute is not (string name, string value))
            {
                return null;
            }

            if (HasString(attributes, name, value))
            {
                return rule;
            }
        }

        return null;
    }

    /// <summary>
    /// The EventBridge rule that an event of this <c>source</c> and <c>detail-type</c> (where they lie in
    /// <paramref name="document"/>) matches when only EventBridge rules that it does not match, and attribute rules that
    /// <paramref name="attributes"/> do not match, come before it: the detail can then be read as that rule's type where it
    /// lies. <c>null</c> when no rule matches or another kind of rule comes first (the rules in order decide). The caller
    /// knows that no attribute of an SNS notification is around the event (EventBridge sets none).
    /// </summary>
    internal NativeMessageRule? LeadingEventBridgeRule(ReadOnlySpan<byte> document, in WrapperMember source, in WrapperMember detailType, IReadOnlyDictionary<string, MessageAttributeValue> attributes)
    {
        foreach (NativeMessageRule rule in _rules)
        {
            switch (LeadingEventBridgeStep(rule, attributes))
            {
                case Step.Stop:
                    return null;
                case Step.Test when source.IsStringEqualTo(document, rule.EventBridge!.SourceUtf8) && (rule.EventBridge.DetailTypeUtf8 is not { } detail || detailType.IsStringEqualTo(document, detail)):
                    return rule;
            }
        }

        return null;
    }

    /// <summary>As the overload over the document, for an event whose metadata was read.</summary>
    internal NativeMessageRule? LeadingEventBridgeRule(EventBridgeMetadata metadata, IReadOnlyDictionary<string, MessageAttributeValue> attributes)
    {
        foreach (NativeMessageRule rule in _rules)
        {
            switch (LeadingEventBridgeStep(rule, attributes))
            {
                case Step.Stop:
                    return null;
                case Step.Test when metadata.Source == rule.EventBridge!.Source && (rule.EventBridge.DetailType is not { } detail || metadata.DetailType == detail):
                    return rule;
            }
        }

        return null;
    }

    /// <summary>What the search for a leading EventBridge rule does at <paramref name="rule"/>: the one rule both overloads follow.</summary>
    private static Step LeadingEventBridgeStep(NativeMessageRule rule, IReadOnlyDictionary<string, MessageAttributeValue> attributes)
        => rule.EventBridge is not null ? Step.Test
            : rule.Attribute is (string name, string value) && !HasString(attributes, name, value) ? Step.Pass
            : Step.Stop;

    /// <summary>Whether <paramref name="attributes"/> hold the string attribute <paramref name="name"/> with the text <paramref name="value"/> (ordinal).</summary>
    internal static bool HasString(IReadOnlyDictionary<string, MessageAttributeValue>? attributes, string name, string value)
        => attributes is not null && attributes.TryGetValue(name, out MessageAttributeValue? attribute)
            && !attribute.IsBinary && string.Equals(attribute.StringValue, value, StringComparison.Ordinal);

    /// <summary>
    /// Reads a native message as <typeparamref name="T"/> when its message attribute <paramref name="attributeName"/>
    /// is the string <paramref name="value"/> (ordinal comparison): an SQS message attribute, or an attribute of the SNS
    /// notification the message came in (e.g. a <c>MessageType</c> attribute, or NServiceBus's
    /// <c>NServiceBus.EnclosedMessageTypes</c>).
    /// </summary>
    /// <typeparam name="T">The registered message type.</typeparam>
    /// <param name="attributeName">The attribute's name. Must not be null or empty.</param>
    /// <param name="value">The value that selects the type. Must not be null.</param>
    /// <returns>These rules.</returns>
    public NativeMessageRules WhenMessageAttribute<T>(string attributeName, string value)
    {
        ArgumentException.ThrowIfNullOrEmpty(attributeName);
        ArgumentNullException.ThrowIfNull(value);
        Add<T>($"message attribute {attributeName} = \"{value}\"", (ref NativeCandidate c) => c.AttributeEquals(attributeName, value));
        _rules[^1] = _rules[^1] with { Attribute = (attributeName, value) };
        return this;
    }

    /// <summary>
    /// Reads the <c>detail</c> of an EventBridge event whose <c>source</c> is <paramref name="source"/> (and, when given,
    /// whose <c>detail-type</c> is <paramref name="detailType"/>) as <typeparamref name="T"/>: the events of AWS services
    /// (<c>aws.s3</c> with <c>Object Created</c>, <c>aws.ec2</c>, <c>aws.health</c>, …) and of other applications.
    /// The event's <c>id</c>, <c>source</c> and <c>time</c> become the envelope's.
    /// </summary>
    /// <typeparam name="T">The registered message type (the shape of the <c>detail</c>).</typeparam>
    /// <param name="source">The event's <c>source</c>. Must not be null or empty.</param>
    /// <param name="detailType">The event's <c>detail-type</c>, or <c>null</c> for any.</param>
    /// <returns>These rules.</returns>
    public NativeMessageRules WhenEventBridgeEvent<T>(string source, string? detailType = null)
    {
        ArgumentException.ThrowIfNullOrEmpty(source);
        Add<T>(
            detailType is null ? $"EventBridge source \"{source}\"" : $"EventBridge source \"{source}\", detail-type \"{detailType}\"",
            (ref NativeCandidate c) => c.EventBridge is { } e && e.Source == source && (detailType is null || e.DetailType == detailType));
        _rules[^1] = _rules[^1] with { EventBridge = new EventBridgeRule(source, detailType) };
        return this;
    }

    /// <summary>
    /// Reads an S3 event notification (a <c>Records</c> array whose first record's <c>eventSource</c> is <c>aws:s3</c>),
    /// sent by S3 to the queue or through an SNS topic, as <typeparamref name="T"/> (the whole notification, records and
    /// all); with <paramref name="eventNamePrefix"/>, only when the first record's <c>eventName</c> starts with it
    /// (<c>ObjectCreated:</c>, <c>ObjectRemoved:</c>, …). S3's own test event (<c>s3:TestEvent</c>, sent when a
    /// notification is configured) is recognised without a rule and skipped. S3 events that arrive through EventBridge
    /// are EventBridge events: <see cref="WhenEventBridgeEvent{T}"/> with <c>aws.s3</c>.
    /// </summary>
    /// <typeparam name="T">The registered message type.</typeparam>
    /// <param name="eventNamePrefix">The start of the <c>eventName</c>, or <c>null</c> for any S3 event.</param>
    /// <returns>These rules.</returns>
    public NativeMessageRules WhenS3Notification<T>(string? eventNamePrefix = null)
        => Add<T>(
            eventNamePrefix is null ? "S3 notification" : $"S3 notification, eventName starting \"{eventNamePrefix}\"",
            (ref NativeCandidate c) => c.S3EventName() is { } name && (eventNamePrefix is null || name.StartsWith(eventNamePrefix, StringComparison.Ordinal)));

    /// <summary>
    /// Reads a MassTransit envelope (<c>application/vnd.masstransit+json</c>, as MassTransit's SQS transport sends it and
    /// its SNS topics deliver it, raw or wrapped) whose <c>messageType</c> names <paramref name="messageUrn"/>: its
    /// <c>message</c> as <typeparamref name="T"/> as MassTransit reads it (numbers also from strings, as it writes
    /// <c>decimal</c>; member names in any case, as it writes camelCase), its
    /// <c>messageId</c>, <c>sentTime</c> and <c>sourceAddress</c> as the envelope's <see cref="MessageEnvelope.Id"/>,
    /// <see cref="MessageEnvelope.Time"/> and <see cref="MessageEnvelope.Source"/>, the rest in
    /// <see cref="MessageEnvelope.MassTransitMetadata"/>, and the trace context of its <c>MT-Activity-Id</c> attribute
    /// continued as the envelope's <c>traceparent</c>. A message MassTransit sent with its raw JSON serializer (the message
    /// alone, its URNs in the <c>MT-MessageType</c> attribute) is read by the same rule.
    /// </summary>
    /// <typeparam name="T">The registered message type.</typeparam>
    /// <param name="messageUrn">
    /// The URN to match, or <c>null</c> for the one MassTransit's convention gives <typeparamref name="T"/>
    /// (<c>urn:message:</c>, its namespace, <c>:</c>, its name; nested <c>Outer+Inner</c>; generic
    /// <c>Name[[Namespace:Argument]]</c>). Give it when the MassTransit side names its type differently (another
    /// namespace, or <c>[MessageUrn]</c>).
    /// </param>
    /// <returns>These rules.</returns>
    /// <exception cref="InvalidOperationException">The URN is already matched by a rule for another type, or the type by a rule for another URN.</exception>
    public NativeMessageRules WhenMassTransit<T>(string? messageUrn = null)
    {
        string urn = MassTransitEnvelope.CheckedUrn<T>(messageUrn);
        CheckOneNamePerType<T>(urn, static rule => rule.MassTransitUrn, "MassTransit message URN");
        Add<T>($"MassTransit message {urn}", (ref NativeCandidate c) => c.MassTransitMessageTypes() is { } urns && Array.IndexOf(urns, urn) >= 0);
        _rules[^1] = _rules[^1] with { MassTransitUrn = urn };
        return this;
    }

    /// <summary>
    /// Reads a message an NServiceBus endpoint sent through its SQS transport whose message types
    /// (<c>NServiceBus.EnclosedMessageTypes</c>, or the <c>MessageTypeFullName</c> attribute of a native message) name
    /// <paramref name="messageTypeFullName"/>, in any of the transport's shapes: the wrapped transport message (its
    /// <c>Body</c> in base64), the body with its headers in the <c>NServiceBus.AmazonSQS.Headers</c> attribute, or a
    /// native message with <c>MessageTypeFullName</c>. The body's JSON is read as <typeparamref name="T"/> (numbers also
    /// from strings, member names in any case); the message id (<c>NServiceBus.MessageId</c>), <c>NServiceBus.TimeSent</c>
    /// and <c>NServiceBus.OriginatingEndpoint</c> become the envelope's <see cref="MessageEnvelope.Id"/>,
    /// <see cref="MessageEnvelope.Time"/> and <see cref="MessageEnvelope.Source"/>, the headers
    /// <see cref="MessageEnvelope.NServiceBusMetadata"/>. A body NServiceBus put in S3 (<c>S3BodyKey</c>) is fetched
    /// from <see cref="Offload.PayloadOffloadOptions.NServiceBusBucket"/> by the payload offload; without it, the message
    /// is unreadable (<see cref="InvalidEnvelopeReason.PayloadUnavailable"/>).
    /// </summary>
    /// <typeparam name="T">The registered message type.</typeparam>
    /// <param name="messageTypeFullName">
    /// The .NET full name the NServiceBus side gives the type (without its assembly: entries are matched up to their
    /// first comma outside brackets), or <c>null</c> for <typeparamref name="T"/>'s own full name.
    /// </param>
    /// <returns>These rules.</returns>
    /// <exception cref="InvalidOperationException">The name is already matched by a rule for another type, or the type by a rule for another name.</exception>
    public NativeMessageRules WhenNServiceBus<T>(string? messageTypeFullName = null)
    {
        string name = NServiceBusMessage.CheckedName<T>(messageTypeFullName);
        CheckOneNamePerType<T>(name, static rule => rule.NServiceBusTypeName, "NServiceBus message type");
        Add<T>($"NServiceBus message {name}", (ref NativeCandidate c) => c.NServiceBus() is { } message && Array.IndexOf(message.EnclosedTypeNames, name) >= 0);
        _rules[^1] = _rules[^1] with { NServiceBusTypeName = name };
        return this;
    }

    /// <summary>Throws when <paramref name="name"/> is matched by a rule of the same kind for another type, or <typeparamref name="T"/> by one for another name.</summary>
    private void CheckOneNamePerType<T>(string name, Func<NativeMessageRule, string?> nameOf, string kind)
    {
        foreach (NativeMessageRule rule in _rules)
        {
            if (nameOf(rule) is { } other && (other == name) != (rule.MessageType == typeof(T)))
            {
                throw new InvalidOperationException(other == name
                    ? $"The {kind} '{name}' is matched by a rule for {rule.MessageType.FullName} already: it cannot name {typeof(T).FullName} too."
                    : $"{typeof(T).FullName} is read as the {kind} '{other}' already: a second name, '{name}', for the same type is a conflict. Keep one.");
            }
        }
    }

    /// <summary>
    /// Reads a native message that came in a notification of the SNS topic <paramref name="topic"/> as
    /// <typeparamref name="T"/>: two topics of untyped messages feeding one queue are told apart by the topic ARN of
    /// the notification around each. Only a subscription without raw message delivery carries the topic; with raw
    /// delivery the body arrives alone, and an attribute (<see cref="WhenMessageAttribute{T}"/>) must tell.
    /// </summary>
    /// <typeparam name="T">The registered message type.</typeparam>
    /// <param name="topic">The topic's ARN, or its name (the ARN's last part). Must not be null or empty.</param>
    /// <returns>These rules.</returns>
    public NativeMessageRules WhenSnsTopic<T>(string topic)
    {
        ArgumentException.ThrowIfNullOrEmpty(topic);
        bool isArn = topic.StartsWith("arn:", StringComparison.Ordinal);
        return Add<T>($"SNS topic {topic}", (ref NativeCandidate c) => c.SnsTopicArn is { } arn
            && (isArn ? string.Equals(arn, topic, StringComparison.Ordinal) : arn.AsSpan(arn.LastIndexOf(':') + 1).SequenceEqual(topic)));
    }

    /// <summary>Reads a native message as <typeparamref name="T"/> when <paramref name="predicate"/> says so.</summary>
    /// <typeparam name="T">The registered message type.</typeparam>
    /// <param name="predicate">The application's test. Must not be null. An exception from it makes the message unreadable.</param>
    /// <param name="description">What the rule matches, for the log line of an unmatched body.</param>
    /// <returns>These rules.</returns>
    public NativeMessageRules When<T>(NativeMessagePredicate predicate, string? description = null)
    {
        ArgumentNullException.ThrowIfNull(predicate);
        return Add<T>(description ?? "the application's predicate", (ref NativeCandidate c) => predicate(c.Body, c.Attributes));
    }

    /// <summary>
    /// Reads every native message no earlier rule matched as <typeparamref name="T"/>: alone, one type for the whole
    /// queue. Rules added after it are never reached.
    /// </summary>
    /// <typeparam name="T">The registered message type.</typeparam>
    /// <returns>These rules.</returns>
    public NativeMessageRules Otherwise<T>() => Add<T>("any other body", static (ref NativeCandidate _) => true);

    private NativeMessageRules Add<T>(string description, NativeRuleTest test)
    {
        if (_frozen)
        {
            throw new InvalidOperationException("These native message rules belong to a bus that is built: they are read as they were then. Add rules inside the AddQueuePoller or ConfigureLambdaProcessor call that configures them.");
        }

        _rules.Add(new NativeMessageRule(typeof(T), $"{description} -> {typeof(T).Name}", test, static map => map.Get<T>()));
        return this;
    }

    /// <summary>Makes the rules read-only: the bus freezes them when it is built, as it takes its other options then.</summary>
    internal void Freeze() => _frozen = true;

    /// <summary>What the search for a leading EventBridge rule does at a rule.</summary>
    private enum Step
    {
        /// <summary>An EventBridge rule: it matches the event or not.</summary>
        Test,

        /// <summary>An attribute rule the message's attributes do not match: it cannot come first.</summary>
        Pass,

        /// <summary>Any other rule, or an attribute rule that matches: the rules in order decide.</summary>
        Stop,
    }
}
