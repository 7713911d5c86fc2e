using System;
using System.Collections.Generic;
using System.Threading;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;
using Missive.Bus;
using Missive.Offload;
using Missive.InMemory;
using Missive.Lambda;
using Missive.Serialization;
using Missive.Transport;

namespace Missive;

/// <summary>
/// Finds, once, everything about the bus's configuration that can be known before the first message, and throws one
/// <see cref="MessageBusConfigurationException"/> listing every problem with what to write instead.
/// </summary>
/// <remarks>
/// <list type="bullet">
/// <item>What it checks: what the builder noted, the serialization options and every message type with them, the
/// publishers, handlers and FIFO ids, the transport (that there is one where it is needed, that it can be created),
/// the in-memory broker's queues, topics and buses against those the bus uses (and FIFO deduplication), and every
/// <see cref="IMessageBusConfigurationCheck"/>, the AWS transport's among them.</item>
/// <item>When: when the host starts, and before the first publisher, pump or Lambda processor is created, so an
/// application without a generic host gets the same exception.</item>
/// <item>A check that resolves the bus while the bus is checked fails at once (<see cref="EnsureValid"/>), rather
/// than waiting for itself.</item>
/// </list>
/// </remarks>
internal sealed class MessageBusValidator
{
    private readonly IServiceProvider _services;
    private readonly BusConfiguration _bus;
    private readonly IReadOnlyList<Action<MessageTypeMap>> _registrations;
    private readonly Func<Type, bool> _isRegistered;
    private readonly EnvelopeFormat _publishFormat;
    private readonly bool _protobufWritable;
    private readonly object _gate = new();
    private IReadOnlyList<string>? _problems;

    /// <summary>Whether this flow of execution is checking a configuration: it follows a DI resolution the container moves to another thread.</summary>
    private static readonly AsyncLocal<bool> s_checking = new();

    public MessageBusValidator(IServiceProvider services, BusConfiguration bus, IReadOnlyList<Action<MessageTypeMap>> registrations, Func<Type, bool> isRegistered, EnvelopeFormat publishFormat, bool protobufWritable)
    {
        _services = services;
        _bus = bus;
        _registrations = registrations;
        _isRegistered = isRegistered;
        _publishFormat = publishFormat;
        _protobufWritable = protobufWritable;
    }

    /// <summary>Checks the configuration (the first time) and throws when anything is wrong (every time).</summary>
    /// <exception cref="MessageBusConfigurationException">What is wrong, all of it.</exception>
    public void EnsureValid()
    {
        if (s_checking.Value)
        {
            // A configuration check (or what it resolves) asked for the bus while the bus is being checked: waiting for
            // the check to end would never return, and checking again would recurse.
            throw new MessageBusConfigurationException("A configuration check resolved the bus (IMessagePublisher, the pump or the Lambda processor) while the bus's configuration was being checked: a check must not use the bus it checks. Resolve what the check needs from MessageBusDescription.Services, other than the bus's own services.");
        }

        IReadOnlyList<string> problems;
        lock (_gate)
        {
            if (_problems is null)
            {
                s_checking.Value = true;
                try
                {
                    _problems = FindProblems();
                }
                finally
                {
                    s_checking.Value = false;
                }
            }

            problems = _problems;
        }

        if (problems.Count > 0)
        {
            throw new MessageBusConfigurationException(problems);
        }
    }

    private List<string> FindProblems()
    {
        var problems = new UniqueList();
        foreach (string problem in _bus.Problems)
        {
            problems.Add(problem);
        }

        CheckSerialization(problems);
        CheckRoutesAndHandlers(problems);
        CheckTransport(problems);
        MessageBusDescription description = Describe();
        foreach (IMessageBusConfigurationCheck check in _services.GetServices<IMessageBusConfigurationCheck>())
        {
            try
            {
                check.Check(description, problems);
            }
            catch (Exception e) when (e is not OutOfMemoryException)
            {
                problems.Add($"The configuration check {check.GetType().Name} failed: {e.GetType().Name}: {e.Message}");
            }
        }

        return problems.Items;
    }

    private void CheckSerialization(UniqueList problems)
    {
        SerializationOptions options;
        try
        {
            options = _services.GetRequiredService<IOptions<SerializationOptions>>().Value;
        }
        catch (Exception e) when (e is not OutOfMemoryException)
        {
            problems.Add($"The serialization options could not be read: {e.GetType().Name}: {e.Message}");
            return;
        }

        bool valid = true;
        foreach ((_, string problem) in options.Problems())
        {
            problems.Add(problem);
            valid = false;
        }

        if (!valid)
        {
            return; // the message types are set up with the options: they are checked once these are right
        }

        // Every registration on its own, so that each type that cannot be set up is named.
        foreach (Action<MessageTypeMap> register in _registrations)
        {
            try
            {
                register(new MessageTypeMap(options));
            }
            catch (Exception e) when (e is MessageBusConfigurationException or ArgumentException or InvalidOperationException or NotSupportedException)
            {
                problems.Add(e.Message);
            }
        }

        try
        {
            var all = new MessageTypeMap(options);
            foreach (Action<MessageTypeMap> register in _registrations)
            {
                register(all);
            }
        }
        catch (Exception e) when (e is MessageBusConfigurationException or ArgumentException or InvalidOperationException or NotSupportedException)
        {
            problems.Add(e.Message); // a conflict between registrations (the same type with two serializers)
        }
    }

    private void CheckRoutesAndHandlers(UniqueList problems)
    {
        if (!Enum.IsDefined(_publishFormat))
        {
            problems.Add($"EnableExperimentalFeatures(x => x.PublishFormat = …) names no format ({(int)_publishFormat}): use EnvelopeFormat.Json or EnvelopeFormat.Protobuf.");
        }

        foreach (MessageRoute route in _bus.Routes.Values)
        {
            string name = route.MessageType.Name;
            if (!_isRegistered(route.MessageType))
            {
                problems.Add($"{route.MessageType.FullName} has a publisher but is not a registered message type: add AddMessageType<{name}>(\"its.type.identifier\").");
            }

            if (route.Format is { } format && EnvelopeSerializerProvider.WriteRefusal(format, _protobufWritable) is { } refusal)
            {
                problems.Add($"The publisher of {route.MessageType.FullName}: {refusal}");
            }

            if (route.IsFifo && !_bus.FifoIds.ContainsKey(route.MessageType))
            {
                problems.Add($"{route.MessageType.FullName} is published to the FIFO destination '{route.Target}', where every message needs a message group id: add AddFifoIds<{name}>(message => groupId) (PublishOptions.MessageGroupId still wins when set).");
            }
        }

        foreach (Type handled in _bus.Handlers.Keys)
        {
            if (!_isRegistered(handled))
            {
                problems.Add($"{handled.FullName} has a handler but is not a registered message type: add AddMessageType<{handled.Name}>(\"its.type.identifier\").");
            }
        }

        foreach (Type native in _bus.PublishedWithoutEnvelope)
        {
            if (!_bus.Routes.ContainsKey(native))
            {
                problems.Add($"PublishWithoutEnvelope<{native.Name}>() is set but {native.FullName} has no publisher: add AddSqsPublisher<{native.Name}>(…), AddSnsPublisher or AddEventBridgePublisher.");
            }
        }

        CheckForeignShape(_bus.PublishedAsMassTransit.Keys, "PublishAsMassTransit", "MassTransit", problems);
        CheckForeignShape(_bus.PublishedAsNServiceBus.Keys, "PublishAsNServiceBus", "NServiceBus's SQS transport", problems);
        foreach (Type published in _bus.Routes.Keys)
        {
            var shapes = new List<string>(3);
            if (_bus.PublishedWithoutEnvelope.Contains(published))
            {
                shapes.Add("PublishWithoutEnvelope");
            }

            if (_bus.PublishedAsMassTransit.ContainsKey(published))
            {
                shapes.Add("PublishAsMassTransit");
            }

            if (_bus.PublishedAsNServiceBus.ContainsKey(published))
            {
                shapes.Add("PublishAsNServiceBus");
            }

            if (shapes.Count > 1)
            {
                problems.Add($"{published.FullName} is set to {string.Join(" and to ", shapes)}: a type is published in one shape; choose one.");
            }
        }

        foreach ((string queue, PollerOptions options) in _bus.Pollers)
        {
            CheckNativeRules(options.NativeMessages, $"The poller of '{queue}'", problems);
        }

        if (_services.GetService<SqsEventProcessorOptions>() is { } lambda)
        {
            CheckNativeRules(lambda.NativeMessages, "The Lambda processor", problems);
        }
    }

    /// <summary>Every type a native message rule names is registered and handled: else each message it matches could only be retried.</summary>
    /// <summary>Each type published in another bus's shape needs a queue or topic publisher: those buses read SQS and SNS, not EventBridge.</summary>
    private void CheckForeignShape(IEnumerable<Type> types, string method, string reader, UniqueList problems)
    {
        foreach (Type published in types)
        {
            if (!_bus.Routes.TryGetValue(published, out MessageRoute? route))
            {
                problems.Add($"{method}<{published.Name}>() is set but {published.FullName} has no publisher: add AddSqsPublisher<{published.Name}>(…) or AddSnsPublisher.");
            }
            else if (route.Kind == RouteKind.EventBridge)
            {
                problems.Add($"{method}<{published.Name}>() is set but {published.FullName} is published to the event bus '{route.Target}': {reader} reads SQS and SNS, not EventBridge. Publish it to a queue or a topic.");
            }
        }
    }

    private void CheckNativeRules(NativeMessageRules rules, string reader, UniqueList problems)
    {
        foreach (NativeMessageRule rule in rules.Rules)
        {
            Type type = rule.MessageType;
            if (!_isRegistered(type))
            {
                problems.Add($"{reader} reads native messages as {type.FullName} ({rule.Description}), which is not a registered message type: add AddMessageType<{type.Name}>(\"its.type.identifier\").");
            }
            else if (!_bus.Handlers.ContainsKey(type))
            {
                problems.Add($"{reader} reads native messages as {type.FullName} ({rule.Description}), which has no handler: add AddHandler<{type.Name}, TheHandler>().");
            }
        }
    }

    private void CheckTransport(UniqueList problems)
    {
        IMessageTransport? transport;
        try
        {
            transport = _services.GetService<IMessageTransport>();
        }
        catch (MessageBusConfigurationException e)
        {
            foreach (string problem in e.Problems)
            {
                problems.Add(problem);
            }

            return;
        }
        catch (Exception e) when (e is not OutOfMemoryException)
        {
            problems.Add($"The transport could not be created: {e.GetType().Name}: {e.Message}");
            return;
        }

        if (transport is null)
        {
            if (_bus.Routes.Count > 0 || _bus.Pollers.Count > 0)
            {
                problems.Add("No transport is configured, and the bus has publishers or pollers: call UseInMemoryBroker(broker => …) for the in-memory broker, or UseAws(…) (package Missive.Aws) for Amazon SQS, SNS and EventBridge.");
            }

            return;
        }

        if (transport is InMemoryBroker broker)
        {
            CheckTopology(broker, problems);
        }

        if (_bus.PayloadOffload is { AllowInProcessStore: false } && transport.DeliversToOtherProcesses
            && _services.GetService<IPayloadStore>() is { IsSharedAcrossProcesses: false } store)
        {
            problems.Add($"UsePayloadOffload keeps payloads in {store.Description}, which only this process can read, but the transport delivers messages to other processes ({transport.GetType().Name}): their consumers, and this one after a restart, could not read a large message. Keep payloads where every consumer reads them: UseS3PayloadStore(o => o.Bucket = \"…\") (Missive.Aws), or an IPayloadStore of your own; or set PayloadOffloadOptions.AllowInProcessStore for a process that is its messages' only consumer (a test).");
        }
    }

    /// <summary>Every queue, topic and bus the bus uses exists on the in-memory broker (else the pump fails every poll, forever).</summary>
    private void CheckTopology(InMemoryBroker broker, UniqueList problems)
    {
        foreach (MessageRoute route in _bus.Routes.Values)
        {
            (bool exists, string what, string create) = route.Kind switch
            {
                RouteKind.Sqs => (broker.HasQueue(route.Target), "queue", $"broker.CreateQueue(\"{route.Target}\")"),
                RouteKind.Sns => (broker.HasTopic(route.Target), "topic", $"broker.CreateTopic(\"{route.Target}\")"),
                _ => (broker.HasEventBus(route.Target), "event bus", $"broker.CreateEventBus(\"{route.Target}\")"),
            };
            // A FIFO destination that deduplicates only by id is no problem here, even when AddFifoIds gives none: a
            // publish may give one in PublishOptions, and one that does not is refused, saying what to set.
            if (!exists)
            {
                problems.Add($"{route.MessageType.FullName} is published to the {what} '{route.Target}', which the in-memory broker does not have: add {create} in UseInMemoryBroker(broker => …).");
            }
        }

        foreach ((string queue, PollerOptions options) in _bus.Pollers)
        {
            if (!broker.HasQueue(queue))
            {
                problems.Add($"A poller receives from the queue '{queue}', which the in-memory broker does not have: add broker.CreateQueue(\"{queue}\") (or subscribe it to a topic) in UseInMemoryBroker(broker => …).");
            }

            if (options.DeadLetterQueue is { } deadLetters && !broker.HasQueue(deadLetters))
            {
                problems.Add($"The poller of '{queue}' dead-letters to the queue '{deadLetters}', which the in-memory broker does not have: add broker.CreateQueue(\"{deadLetters}\") in UseInMemoryBroker(broker => …).");
            }
        }

        if (_services.GetService<SqsEventProcessorOptions>()?.DeadLetterQueue is { } lambdaDeadLetters && !broker.HasQueue(lambdaDeadLetters))
        {
            problems.Add($"The Lambda processor dead-letters to the queue '{lambdaDeadLetters}', which the in-memory broker does not have: add broker.CreateQueue(\"{lambdaDeadLetters}\") in UseInMemoryBroker(broker => …).");
        }
    }

    /// <summary>What the bus was configured with, for the transports' and the application's checks.</summary>
    public MessageBusDescription Describe()
    {
        var destinations = new List<MessageBusDestination>(_bus.Routes.Count);
        foreach (MessageRoute route in _bus.Routes.Values)
        {
            MessageBusDestinationKind kind = route.Kind switch
            {
                RouteKind.Sqs => MessageBusDestinationKind.Queue,
                RouteKind.Sns => MessageBusDestinationKind.Topic,
                _ => MessageBusDestinationKind.EventBus,
            };
            destinations.Add(new MessageBusDestination(route.MessageType, kind, route.Target) { HasDeduplicationIds = HasDeduplicationIds(route) });
        }

        var queues = new List<string>(_bus.Pollers.Count);
        var deadLetterQueues = new List<string>();
        foreach ((string queue, PollerOptions options) in _bus.Pollers)
        {
            queues.Add(queue);
            if (options.DeadLetterQueue is { } deadLetters && !deadLetterQueues.Contains(deadLetters))
            {
                deadLetterQueues.Add(deadLetters);
            }
        }

        if (_services.GetService<SqsEventProcessorOptions>()?.DeadLetterQueue is { } lambdaDeadLetters && !deadLetterQueues.Contains(lambdaDeadLetters))
        {
            deadLetterQueues.Add(lambdaDeadLetters);
        }

        return new MessageBusDescription(_services, destinations, queues, deadLetterQueues);
    }

    private bool HasDeduplicationIds(MessageRoute route)
        => _bus.FifoIds.TryGetValue(route.MessageType, out FifoIdSelector? selector) && selector.HasDeduplicationIds;

    /// <summary>The problems in the order found, each once (a transport's own check and its creation may say the same).</summary>
    private sealed class UniqueList : ICollection<string>
    {
        private readonly HashSet<string> _seen = new(StringComparer.Ordinal);

        public List<string> Items { get; } = [];

        public int Count => Items.Count;

        public bool IsReadOnly => false;

        public void Add(string item)
        {
            if (_seen.Add(item))
            {
                Items.Add(item);
            }
        }

        public void Clear()
        {
            _seen.Clear();
            Items.Clear();
        }

        public bool Contains(string item) => _seen.Contains(item);

        public void CopyTo(string[] array, int arrayIndex) => Items.CopyTo(array, arrayIndex);

        public bool Remove(string item) => _seen.Remove(item) && Items.Remove(item);

        public IEnumerator<string> GetEnumerator() => Items.GetEnumerator();

        System.Collections.IEnumerator System.Collections.IEnumerable.GetEnumerator() => GetEnumerator();
    }
}
