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
