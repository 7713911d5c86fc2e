using System;
using System.Collections.Generic;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;
using System.Diagnostics.Metrics;
using Missive.Diagnostics;
using Missive.Lambda;
using Missive.Offload;
using Microsoft.Extensions.Options;
using Missive;
using Missive.Bus;
using Missive.Transport;
using Missive.Json;
using Missive.Protobuf;
using Missive.Serialization;

namespace Microsoft.Extensions.DependencyInjection;

/// <summary>Registers the Missive message bus.</summary>
public static class MessageBusServiceCollectionExtensions
{
    /// <summary>
    /// Adds the message bus: the type map, the envelope factory and the envelope serializers.
    /// <see cref="IEnvelopeSerializer"/> is <see cref="StandardJsonEnvelopeSerializer"/>, or
    /// <see cref="Utf8JsonEnvelopeSerializer"/> after <see cref="MessageBusBuilder.EnableExperimentalFeatures"/>.
    /// With the switch, <see cref="ProtobufEnvelopeSerializer"/> is registered too. Every serializer is also
    /// registered as a keyed <see cref="IEnvelopeSerializer"/> under its content type, and
    /// <see cref="IEnvelopeSerializerProvider"/> reads every available format and picks the publish format.
    /// Services are added with <c>TryAdd</c>, so registrations made before this call win.
    /// </summary>
    /// <param name="services">The services. Must not be null.</param>
    /// <param name="configure">Configures the bus. Must not be null.</param>
    /// <returns>The services.</returns>
    /// <exception cref="MessageBusConfigurationException">The bus is added twice. Every other mistake (a type registered twice, a
    /// publisher of a type nobody registered, a queue the in-memory broker lacks, options out of range, …) is reported when the
    /// host starts, or without a generic host when the first publisher or Lambda processor is resolved: all of them, in one
    /// <see cref="MessageBusConfigurationException"/>, each with what to write instead.</exception>
    public static IServiceCollection AddMessageBus(this IServiceCollection services, Action<MessageBusBuilder> configure)
    {
        ArgumentNullException.ThrowIfNull(services);
        ArgumentNullException.ThrowIfNull(configure);
        foreach (ServiceDescriptor descriptor in services)
        {
            if (descriptor.ServiceType == typeof(MessageBusMarker))
            {
                throw new MessageBusConfigurationException("AddMessageBus was called twice; configure the bus in a single call.");
            }
        }

        var builder = new MessageBusBuilder(services);
        configure(builder);
        builder.Freeze();

        IReadOnlyList<Action<MessageTypeMap>> registrations = builder.Registrations;
        bool experimental = builder.ExperimentalFeaturesEnabled;
        string source = builder.Source;

        services.AddSingleton<MessageBusMarker>();
        services.AddOptions<SerializationOptions>();
        services.TryAddSingleton(TimeProvider.System);
        services.TryAddSingleton(builder.ExperimentalFeatures);
        services.TryAddSingleton(sp => BuildMap(sp.GetRequiredService<IOptions<SerializationOptions>>().Value, registrations));
        services.TryAddSingleton<IEnvelopeFactory>(sp => new EnvelopeFactory(sp.GetRequiredService<MessageTypeMap>(), source, sp.GetRequiredService<TimeProvider>()));
        AddSerializers(services, experimental, builder.ExperimentalFeatures.PublishFormat);
        AddBus(services, builder);
        return services;
    }

    /// <summary>
    /// The format switch, decided here alone: the JSON serializer is the fast one with experimental features and the
    /// standard one without; protobuf is always read (a publisher elsewhere may have the switch on) and written only
    /// with the switch, which the provider enforces. The fast serializer also reads an envelope inside an
    /// EventBridge <c>detail</c> where it lies, so it is the inbound reader's in-place reader.
    /// </summary>
    private static void AddSerializers(IServiceCollection services, bool experimental, EnvelopeFormat publishFormat)
    {
        services.TryAddSingleton(sp => new StandardJsonEnvelopeSerializer(sp.GetRequiredService<MessageTypeMap>(), sp.GetService<ILogger<StandardJsonEnvelopeSerializer>>()));
        services.TryAddSingleton(sp => new ProtobufEnvelopeSerializer(sp.GetRequiredService<MessageTypeMap>(), sp.GetService<ILogger<ProtobufEnvelopeSerializer>>()));
        EnvelopeSerializer Json(IServiceProvider sp) => experimental ? sp.GetRequiredService<Utf8JsonEnvelopeSerializer>() : sp.GetRequiredService<StandardJsonEnvelopeSerializer>();
        if (experimental)
        {
            services.TryAddSingleton(sp => new Utf8JsonEnvelopeSerializer(sp.GetRequiredService<MessageTypeMap>(), sp.GetService<ILogger<Utf8JsonEnvelopeSerializer>>()));
            services.TryAddKeyedSingleton<IEnvelopeSerializer>(ContentTypes.CloudEventsProtobuf, (sp, _) => sp.GetRequiredService<ProtobufEnvelopeSerializer>());
        }

        services.TryAddSingleton<IEnvelopeSerializer>(Json);
        services.TryAddSingleton<IBatchEnvelopeSerializer>(Json);
        services.TryAddKeyedSingleton<IEnvelopeSerializer>(ContentTypes.CloudEventsJson, (sp, _) => Json(sp));
        services.TryAddSingleton<IEnvelopeSerializerProvider>(sp => new EnvelopeSerializerProvider(
            Json(sp), sp.GetRequiredService<ProtobufEnvelopeSerializer>(), experimental ? publishFormat : EnvelopeFormat.Json, protobufWritable: experimental));
        services.TryAddSingleton(sp => new InboundMessageReader(
            sp.GetRequiredService<IEnvelopeSerializerProvider>(),
            sp.GetRequiredService<IOptions<SerializationOptions>>().Value,
            experimental ? sp.GetRequiredService<Utf8JsonEnvelopeSerializer>() : null));
    }

    private static void AddBus(IServiceCollection services, MessageBusBuilder builder)
    {
        BusConfiguration bus = builder.Bus;
        IReadOnlyList<Action<MessageTypeMap>> registrations = builder.Registrations;
        EnvelopeFormat publishFormat = builder.ExperimentalFeatures.PublishFormat;
        services.TryAddSingleton(sp => new MessageBusValidator(sp, bus, registrations, builder.HasMessageType, publishFormat, protobufWritable: builder.ExperimentalFeaturesEnabled));
        services.AddHostedService(sp => new MessageBusStartupCheck(sp.GetRequiredService<MessageBusValidator>(), sp));

        services.TryAddSingleton(bus);
        services.TryAddSingleton(_ => MessagePump.MessageBusHealthFor(bus));
        services.TryAddSingleton(sp => new BusTelemetry(sp.GetService<IMeterFactory>()));
        services.TryAddSingleton(builder.LambdaProcessor);
        if (bus.PayloadOffload is { } offload)
        {
            services.TryAddSingleton(sp => new PayloadOffloadingTransport(RequiredTransport(sp), sp.GetRequiredService<IPayloadStore>(), offload, sp.GetService<ILogger<PayloadOffloadingTransport>>() ?? (ILogger)NullLogger.Instance, sp.GetService<TimeProvider>()));
        }

        services.TryAddSingleton(sp => Checked(sp, () => new SqsEventProcessor(
            new MessageDispatcher(sp.GetRequiredService<InboundMessageReader>(), sp.GetRequiredService<IServiceScopeFactory>(), bus, sp.GetRequiredService<BusTelemetry>(), sp.GetService<ILogger<SqsEventProcessor>>() ?? (ILogger)NullLogger.Instance, sp.GetService<PayloadResolver>()),
            sp.GetService<PayloadOffloadingTransport>() ?? sp.GetService<IMessageTransport>(),
            sp.GetRequiredService<SqsEventProcessorOptions>(),
            sp.GetService<ILogger<SqsEventProcessor>>() ?? (ILogger)NullLogger.Instance)));
        services.TryAddSingleton(sp => new OutboundMessageWriter(sp.GetRequiredService<IEnvelopeSerializerProvider>()));
        services.TryAddSingleton<IMessagePublisher>(sp =>
        {
            sp.GetRequiredService<MessageBusValidator>().EnsureValid();
            WarnIfNoHostRunsThePump(sp, bus);
            return new MessagePublisher(
                sp.GetRequiredService<IEnvelopeFactory>(),
                sp.GetRequiredService<OutboundMessageWriter>(),
                BusTransport(sp),
                bus,
                sp.GetRequiredService<BusTelemetry>(),
                sp,
                builder.HasMessageType,
                sp.GetRequiredService<IOptions<SerializationOptions>>().Value.LogMessageContent,
                sp.GetService<TimeProvider>() ?? TimeProvider.System,
                sp.GetRequiredService<MessageBusHealth>().Publishing);
        });
        if (bus.Pollers.Count > 0 || bus.Handlers.Count > 0)
        {
            // With handlers but no poller the pump has nothing to run (and needs no transport); it says so when the host starts it.
            services.AddHostedService(sp => Checked(sp, () => new MessagePump(
                bus.Pollers.Count > 0 ? BusTransport(sp) : null,
                sp.GetRequiredService<InboundMessageReader>(),
                sp.GetRequiredService<IServiceScopeFactory>(),
                bus,
                sp.GetRequiredService<BusTelemetry>(),
                sp.GetService<TimeProvider>(),
                sp.GetService<ILogger<MessagePump>>(),
                sp.GetRequiredService<MessageBusHealth>(),
                sp.GetService<PayloadResolver>())));
        }
    }

    /// <summary>Creates one of the bus's entry points once the whole configuration was checked (the first creation checks it).</summary>
    private static T Checked<T>(IServiceProvider services, Func<T> create)
    {
        services.GetRequiredService<MessageBusValidator>().EnsureValid();
        return create();
    }

    /// <summary>The transport the bus's parts use: the application's, behind the payload offload when it is on.</summary>
    private static IMessageTransport BusTransport(IServiceProvider services)
        => services.GetService<PayloadOffloadingTransport>() ?? RequiredTransport(services);

    private static IMessageTransport RequiredTransport(IServiceProvider services)
        => services.GetService<IMessageTransport>() ?? throw new MessageBusConfigurationException("No transport is configured: call UseInMemoryBroker() or register an IMessageTransport.");

    /// <summary>
    /// The pump is a hosted service: with a bare <c>ServiceProvider</c> nothing starts it. The publisher is what such
    /// an application resolves first, so that is where the missing host is reported.
    /// </summary>
    private static void WarnIfNoHostRunsThePump(IServiceProvider services, BusConfiguration bus)
    {
        if (bus.Pollers.Count == 0 || services.GetService<IHostApplicationLifetime>() is not null)
        {
            return;
        }

        ILogger? logger = services.GetService<ILogger<MessagePump>>();
        if (logger is not null)
        {
            var queues = new List<string>(bus.Pollers.Count);
            foreach ((string queue, PollerOptions _) in bus.Pollers)
            {
                queues.Add(queue);
            }

            BusLog.PollersWithoutHost(logger, string.Join(", ", queues));
        }
    }

    private static MessageTypeMap BuildMap(SerializationOptions options, IReadOnlyList<Action<MessageTypeMap>> registrations)
    {
        var map = new MessageTypeMap(options);
        foreach (Action<MessageTypeMap> register in registrations)
        {
            register(map);
        }

        return map;
    }

    /// <summary>Marks that the bus was added, so a second call is reported instead of half-applied.</summary>
    private sealed class MessageBusMarker
    {
    }
}
