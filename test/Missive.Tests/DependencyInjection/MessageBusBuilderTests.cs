using System;
using System.Collections.Generic;
using System.Text.Json;
using System.Text.Json.Serialization;
using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Options;
using Missive.Bus;
using Missive.Json;
using Missive.Serialization;
using Missive.Tests.Infrastructure;

namespace Missive.Tests.DependencyInjection;

public sealed class MessageBusBuilderTests
{
    [Fact]
    public void AddMessageBus_WithoutExperimentalFeatures_ResolvesTheStandardSerializer()
    {
        using ServiceProvider provider = Build(bus => bus.AddMessageType<Order>("orders"));

        Assert.IsType<StandardJsonEnvelopeSerializer>(provider.GetRequiredService<IEnvelopeSerializer>());
        Assert.IsType<StandardJsonEnvelopeSerializer>(provider.GetRequiredService<IBatchEnvelopeSerializer>());
        Assert.IsType<StandardJsonEnvelopeSerializer>(provider.GetRequiredKeyedService<IEnvelopeSerializer>(ContentTypes.CloudEventsJson));
    }

    [Fact]
    public void AddMessageBus_WithExperimentalFeatures_ResolvesTheUtf8Serializer()
    {
        using ServiceProvider provider = Build(bus => bus.AddMessageType<Order>("orders").EnableExperimentalFeatures());

        Assert.IsType<Utf8JsonEnvelopeSerializer>(provider.GetRequiredService<IEnvelopeSerializer>());
        Assert.IsType<Utf8JsonEnvelopeSerializer>(provider.GetRequiredService<IBatchEnvelopeSerializer>());
        Assert.IsType<Utf8JsonEnvelopeSerializer>(provider.GetRequiredKeyedService<IEnvelopeSerializer>(ContentTypes.CloudEventsJson));
        Assert.Same(provider.GetRequiredService<IEnvelopeSerializer>(), provider.GetRequiredService<IEnvelopeSerializer>());
    }

    [Fact]
    public void ExperimentalFeatures_RegisterProtobufAndAProviderThatReadsBothFormats()
    {
        using ServiceProvider provider = Build(bus => bus
            .AddMessageType<Order>("orders")
            .ConfigureSerialization(o => o.JsonSerializerContext = TestJsonContext.Default)
            .EnableExperimentalFeatures(x => x.PublishFormat = EnvelopeFormat.Protobuf));
        IEnvelopeSerializerProvider serializers = provider.GetRequiredService<IEnvelopeSerializerProvider>();
        MessageEnvelope<Order> envelope = provider.GetRequiredService<IEnvelopeFactory>().CreateEnvelope(Orders.Create(2));

        Assert.IsType<Missive.Protobuf.ProtobufEnvelopeSerializer>(provider.GetRequiredKeyedService<IEnvelopeSerializer>(ContentTypes.CloudEventsProtobuf));
        Assert.IsType<Missive.Protobuf.ProtobufEnvelopeSerializer>(serializers.PublishSerializer);
        Assert.IsType<Utf8JsonEnvelopeSerializer>(provider.GetRequiredService<IEnvelopeSerializer>());

        byte[] asProtobuf = serializers.GetSerializer(EnvelopeFormat.Protobuf).SerializeToArray(envelope);
        byte[] asJson = serializers.GetSerializer(EnvelopeFormat.Json).SerializeToArray(envelope);
        byte[] asIndentedJson = System.Text.Encoding.UTF8.GetBytes(" \r\n\t" + System.Text.Encoding.UTF8.GetString(asJson));

        EnvelopeAssert.Equal(envelope, serializers.Deserialize(new System.Buffers.ReadOnlySequence<byte>(asProtobuf)));
        EnvelopeAssert.Equal(envelope, serializers.Deserialize(new System.Buffers.ReadOnlySequence<byte>(asJson)));
        EnvelopeAssert.Equal(envelope, serializers.Deserialize(new System.Buffers.ReadOnlySequence<byte>(asIndentedJson)));
        EnvelopeAssert.Equal(envelope, serializers.Deserialize(new System.Buffers.ReadOnlySequence<byte>(asProtobuf), EnvelopeFormat.Protobuf));
    }

    [Fact]
    public async Task WithoutExperimentalFeatures_ProtobufIsReadButNotWritten()
    {
        using ServiceProvider provider = Build(bus => bus.AddMessageType<string>("notes").AddSqsPublisher<string>("q").UseInMemoryBroker(b => b.CreateQueue("q")));
        IEnvelopeSerializerProvider serializers = provider.GetRequiredService<IEnvelopeSerializerProvider>();
        using ServiceProvider experimental = Build(bus => bus.AddMessageType<string>("notes").EnableExperimentalFeatures());
        var envelope = new MessageEnvelope<string> { Id = "1", Source = "/s", Type = "notes", Message = "from a publisher with the switch" };
        byte[] protobuf = experimental.GetRequiredService<IEnvelopeSerializerProvider>().GetSerializer(EnvelopeFormat.Protobuf).SerializeToArray(envelope);

        EnvelopeAssert.Equal(envelope, serializers.Deserialize(new System.Buffers.ReadOnlySequence<byte>(protobuf)));
        var refused = await Assert.ThrowsAsync<MessageBusConfigurationException>(() => provider.GetRequiredService<IMessagePublisher>().PublishAsync("x", new PublishOptions { Format = EnvelopeFormat.Protobuf }));
        Assert.Contains("EnableExperimentalFeatures()", refused.Message, StringComparison.Ordinal);
        Assert.IsType<StandardJsonEnvelopeSerializer>(serializers.PublishSerializer);
        Assert.Throws<ArgumentOutOfRangeException>(() => Build(bus => bus.EnableExperimentalFeatures(x => x.PublishFormat = (EnvelopeFormat)7)).GetRequiredService<IEnvelopeSerializerProvider>());
    }

    [Fact]
    public void EnvelopeFactory_UsesRegistrationSourceAndTimeProvider()
    {
        var now = new DateTimeOffset(2026, 1, 2, 3, 4, 5, TimeSpan.Zero);
        var services = new ServiceCollection();
        services.AddSingleton<TimeProvider>(new FixedTimeProvider(now));
        services.AddMessageBus(bus => bus.AddMessageType<Order>("orders.placed").AddMessageType<byte[]>("blobs").UseMessageSource("/orders-service"));
        using ServiceProvider provider = services.BuildServiceProvider();
        IEnvelopeFactory factory = provider.GetRequiredService<IEnvelopeFactory>();

        MessageEnvelope<Order> order = factory.CreateEnvelope(Orders.Create(1));
        MessageEnvelope<byte[]> blob = factory.CreateEnvelope(new byte[] { 1 });

        Assert.Equal("orders.placed", order.Type);
        Assert.Equal("/orders-service", order.Source);
        Assert.Equal(now, order.Time);
        Assert.Equal(TimeSpan.Zero, order.Time!.Value.Offset);
        Assert.Equal(ContentTypes.ApplicationJson, order.DataContentType);
        Assert.Equal(ContentTypes.ApplicationOctetStream, blob.DataContentType);
        Assert.True(Guid.TryParseExact(order.Id, "D", out _));
        Assert.Equal(order.Id.ToLowerInvariant(), order.Id);
        Assert.NotEqual(order.Id, blob.Id);
    }

    [Fact]
    public void ConfigureSerialization_OptionsFlowIntoTheSerializers()
    {
        using ServiceProvider provider = Build(bus => bus
            .AddMessageType<Order>("orders")
            .ConfigureSerialization(o =>
            {
                o.MaxEnvelopeSize = 4096;
                o.JsonSerializerOptions = new JsonSerializerOptions { PropertyNamingPolicy = JsonNamingPolicy.CamelCase };
            })
            .EnableExperimentalFeatures());
        var serializer = (EnvelopeSerializer)provider.GetRequiredService<IEnvelopeSerializer>();
        MessageEnvelope<Order> envelope = provider.GetRequiredService<IEnvelopeFactory>().CreateEnvelope(Orders.Create(1));

        string json = serializer.SerializeToString(envelope);

        Assert.Equal(4096, serializer.Settings.MaxEnvelopeSize);
        Assert.Contains("\"orderId\":\"ORD-20251103-0042\"", json, StringComparison.Ordinal);
        var tooLarge = Assert.Throws<InvalidEnvelopeException>(() => serializer.Deserialize(new byte[5000].AsMemory()));
        Assert.Equal(InvalidEnvelopeReason.LimitExceeded, tooLarge.Reason);
    }

    [Fact]
    public void AddMessageType_SameIdentifierTwice_FailsAtFirstUseWithAClearMessage()
    {
        using ServiceProvider provider = Build(bus => bus.AddMessageType<Order>("orders").AddMessageType<Shipment>("orders"));

        var error = Assert.Throws<MessageBusConfigurationException>(() => provider.GetRequiredService<IMessagePublisher>());

        Assert.Contains("'orders'", error.Message, StringComparison.Ordinal);
        Assert.Contains("unique", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void AddMessageType_SameTypeTwice_GivesItTwoIdentifiers_TheFirstByDefault()
    {
        using ServiceProvider provider = Build(bus => bus.AddMessageType<Order>("a").AddMessageType<Order>("b"));
        MessageTypeMap map = provider.GetRequiredService<MessageTypeMap>();

        Assert.True(map.TryGetMessageType("a", out Type? a) && a == typeof(Order));
        Assert.True(map.TryGetMessageType("b", out Type? b) && b == typeof(Order));
        Assert.True(map.TryGetTypeIdentifier(typeof(Order), out string first) && first == "a");
        Assert.Equal("a", provider.GetRequiredService<IEnvelopeFactory>().CreateEnvelope(Orders.Create(1)).Type);
    }

    [Fact]
    public void AddMessageBus_Twice_Fails()
    {
        var services = new ServiceCollection();
        services.AddMessageBus(bus => bus.AddMessageType<Order>("a"));

        Assert.Throws<MessageBusConfigurationException>(() => services.AddMessageBus(bus => bus.AddMessageType<Shipment>("b")));
    }

    [Fact]
    public void TypeMissingFromTheJsonContext_FailsNamingTheType()
    {
        using ServiceProvider provider = Build(bus => bus
            .AddMessageType<Shipment>("shipments")
            .ConfigureSerialization(o =>
            {
                o.JsonSerializerContext = TestJsonContext.Default;
                o.JsonSerializerOptions = new JsonSerializerOptions { TypeInfoResolver = TestJsonContext.Default };
            }));

        var error = Assert.Throws<MessageBusConfigurationException>(() => provider.GetRequiredService<IEnvelopeSerializer>());

        Assert.Contains(typeof(Shipment).FullName!, error.Message, StringComparison.Ordinal);
        Assert.Contains("JsonSerializable", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void BadOptions_FailAtHostStartup()
    {
        var builder = Host.CreateApplicationBuilder();
        builder.Services.AddMessageBus(bus => bus.AddMessageType<Order>("orders").ConfigureSerialization(o => o.MaxJsonDepth = 0));
        using IHost host = builder.Build();

        var error = Assert.Throws<MessageBusConfigurationException>(() => host.StartAsync().GetAwaiter().GetResult());

        Assert.Contains("MaxJsonDepth", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void CreateEnvelope_UnregisteredType_SaysHowToRegisterIt()
    {
        using ServiceProvider provider = Build(bus => bus.AddMessageType<Order>("orders"));

        var error = Assert.Throws<MessageBusConfigurationException>(() => provider.GetRequiredService<IEnvelopeFactory>().CreateEnvelope(new Shipment()));

        Assert.Contains("AddMessageType<Shipment>", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void UseMessageSource_NotAUriReference_IsAConfigurationError()
    {
        using ServiceProvider provider = Build(bus => bus.UseMessageSource("has space"));

        var error = Assert.Throws<MessageBusConfigurationException>(() => provider.GetRequiredService<IMessagePublisher>());

        Assert.Contains("UseMessageSource", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void UserRegistrationsMadeBeforeAddMessageBus_Win()
    {
        var services = new ServiceCollection();
        var custom = new Moq.Mock<IEnvelopeSerializer>().Object;
        services.AddSingleton(custom);
        services.AddMessageBus(bus => bus.AddMessageType<Order>("orders").EnableExperimentalFeatures());
        using ServiceProvider provider = services.BuildServiceProvider();

        Assert.Same(custom, provider.GetRequiredService<IEnvelopeSerializer>());
    }

    [Fact]
    public void SerializersFromBothContainers_ReadEachOthersOutput()
    {
        using ServiceProvider standard = Build(bus => bus.AddMessageType<Order>("orders").ConfigureSerialization(o => o.JsonSerializerContext = TestJsonContext.Default));
        using ServiceProvider fast = Build(bus => bus.AddMessageType<Order>("orders").ConfigureSerialization(o => o.JsonSerializerContext = TestJsonContext.Default).EnableExperimentalFeatures());
        MessageEnvelope<Order> envelope = fast.GetRequiredService<IEnvelopeFactory>().CreateEnvelope(Orders.Create(3));

        string written = fast.GetRequiredService<IEnvelopeSerializer>().SerializeToString(envelope);
        MessageEnvelope read = standard.GetRequiredService<IEnvelopeSerializer>().Deserialize(written);

        EnvelopeAssert.Equal(envelope, read);
        Assert.Equal(written, standard.GetRequiredService<IEnvelopeSerializer>().SerializeToString(envelope));
    }

    private static ServiceProvider Build(Action<MessageBusBuilder> configure)
    {
        var services = new ServiceCollection();
        services.AddMessageBus(configure);
        return services.BuildServiceProvider();
    }

    private sealed class FixedTimeProvider(DateTimeOffset now) : TimeProvider
    {
        public override DateTimeOffset GetUtcNow() => now;
    }
}
