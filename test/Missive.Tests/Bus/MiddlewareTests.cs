using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Missive.Bus;
using Missive.InMemory;
using Missive.Tests.Infrastructure;

namespace Missive.Tests.Bus;

/// <summary>The publish and handle pipelines: order, short-circuit, changes to the envelope, exceptions, outcomes and DI scopes.</summary>
public sealed class MiddlewareTests
{
    [Fact]
    public async Task HandleMiddleware_RunInRegistrationOrder_AroundTheHandler_InTheMessagesScope()
    {
        var log = new Log();
        using IHost host = Build(log, bus => bus.UseHandleMiddleware<Outer>().UseHandleMiddleware<Inner>());
        await host.StartAsync();

        await Publish(host, "ORD-1");
        await Publish(host, "ORD-2");
        await BusTestHost.WaitUntil(() => log.Entries.Count(e => e.StartsWith("handler", StringComparison.Ordinal)) == 2 && Queue(host).Count == 0);
        await BusTestHost.WaitUntil(() => log.Entries.Count(e => e.StartsWith("disposed", StringComparison.Ordinal)) == 2);
        await host.StopAsync();

        string[] one = log.Entries.Where(e => e.EndsWith("ORD-1", StringComparison.Ordinal)).ToArray();
        Assert.Equal(["outer before ORD-1", "inner before ORD-1", "handler ORD-1", "inner after ORD-1", "outer after ORD-1", "disposed ORD-1"], one);

        // One scoped service per message, shared by its middleware and its handler, disposed when the message is done;
        // a handler of its own for each message.
        Assert.Equal(2, log.ScopeIds.Distinct().Count());
        Assert.All(log.ScopeIds.GroupBy(id => id), g => Assert.Equal(3, g.Count()));
        Assert.Equal(2, log.HandlerIds.Distinct().Count());
    }

    [Fact]
    public async Task AHandleMiddlewareThatReturnsWithoutNext_ShortCircuits_AndTheMessageIsHandled()
    {
        var log = new Log();
        using IHost host = Build(log, bus => bus.UseHandleMiddleware<SkipOrd2>());
        await host.StartAsync();

        await Publish(host, "ORD-2");
        await BusTestHost.WaitUntil(() => log.Entries.Contains("skipped ORD-2") && Queue(host).Count == 0);
        await host.StopAsync();

        Assert.DoesNotContain(log.Entries, e => e.StartsWith("handler", StringComparison.Ordinal));
    }

    [Fact]
    public async Task AHandleMiddleware_SeesTheHandlersException_AndTheMessageIsRetried()
    {
        var log = new Log { FailHandler = true };
        using IHost host = Build(log, bus => bus.UseHandleMiddleware<Observer>());
        await host.StartAsync();

        await Publish(host, "ORD-1");
        await BusTestHost.WaitUntil(() => log.Entries.Count(e => e == "observed InvalidOperationException") >= 2);
        await host.StopAsync();

        Assert.True(log.ReceiveCounts.Max() >= 2); // received again after the failure
    }

    [Fact]
    public async Task AHandleMiddleware_CanReplaceTheEnvelope_AndChooseTheOutcome()
    {
        var log = new Log();
        using IHost host = Build(log, bus => bus.UseHandleMiddleware<Rewrite>(), o => o.DeadLetterQueue = "orders-dlq");
        await host.StartAsync();

        await Publish(host, "ORD-1");
        InMemoryBroker broker = host.Services.GetRequiredService<InMemoryBroker>();
        await BusTestHost.WaitUntil(() => broker.GetQueue("orders-dlq").Count == 1 && Queue(host).Count == 0);
        await host.StopAsync();

        Assert.Contains("handler ORD-1-rewritten", log.Entries);
        Assert.Contains("\"OrderId\":\"ORD-1\"", broker.GetQueue("orders-dlq").PeekBodies().Single(), StringComparison.Ordinal); // moved as received
    }

    [Fact]
    public async Task PublishMiddleware_RunInOrder_MayChangeTheEnvelope_OrSendNothing()
    {
        var log = new Log();
        using IHost host = Build(log, bus => bus.UsePublishMiddleware<StampPublish>().UsePublishMiddleware<DropOrd9>());
        await host.StartAsync();

        await Publish(host, "ORD-9");
        await Publish(host, "ORD-1");
        await BusTestHost.WaitUntil(() => log.Entries.Contains("handler ORD-1"));
        await host.StopAsync();

        Assert.Equal(["stamp ORD-9", "dropped ORD-9", "stamp ORD-1", "sent ORD-1"], log.Entries.Where(e => e.StartsWith("stamp", StringComparison.Ordinal) || e.StartsWith("dropped", StringComparison.Ordinal) || e.StartsWith("sent", StringComparison.Ordinal)).ToArray());
        Assert.Equal("stamped", log.LastStamp);
        Assert.DoesNotContain("handler ORD-9", log.Entries);
    }

    [Fact]
    public async Task TheLoggingScope_CarriesTheMessageIdTypeAndQueue_ToTheHandlersLogLines()
    {
        var log = new Log();
        var scopes = new ScopeCapturingLoggerProvider();
        using IHost host = BusTestHost.Build(
            Topology,
            bus => bus.AddSqsPublisher<Order>("orders").AddHandler<Order, LoggingHandler>().UseMessageLoggingScope().AddQueuePoller("orders", o => o.WaitTime = TimeSpan.FromMilliseconds(50)),
            services => services.AddSingleton(log),
            scopes);
        await host.StartAsync();

        MessageEnvelope<Order> sent = await Publish(host, "ORD-1");
        await BusTestHost.WaitUntil(() => scopes.Lines.Any(l => l.Message == "handling ORD-1"));
        await host.StopAsync();

        (string _, IReadOnlyList<KeyValuePair<string, object?>> scope) = scopes.Lines.Single(l => l.Message == "handling ORD-1");
        Assert.Equal(sent.Id, scope.Single(p => p.Key == "CloudEventId").Value);
        Assert.Equal(TestSerializers.OrderType, scope.Single(p => p.Key == "MessageType").Value);
        Assert.Equal("orders", scope.Single(p => p.Key == "Queue").Value);
        Assert.False(string.IsNullOrEmpty((string?)scope.Single(p => p.Key == "MessageId").Value));
    }

    [Fact]
    public async Task TheLoggingScope_WithoutLoggingRegistered_StillLetsTheMessageBeHandled()
    {
        // A Lambda function or a bare ServiceCollection may register no logging at all.
        var log = new Log();
        var services = new ServiceCollection().AddSingleton(log).AddMessageBus(bus => bus
            .AddMessageType<Order>(TestSerializers.OrderType)
            .ConfigureSerialization(o => o.JsonSerializerContext = TestJsonContext.Default)
            .UseInMemoryBroker(Topology)
            .AddSqsPublisher<Order>("orders")
            .AddHandler<Order, RecordingHandler>()
            .UseMessageLoggingScope());
        await using ServiceProvider provider = services.BuildServiceProvider();
        await provider.GetRequiredService<IMessagePublisher>().PublishAsync(Orders.Create(1));
        var message = (await provider.GetRequiredService<InMemoryBroker>().ReceiveAsync("orders", 1, TimeSpan.Zero)).Single();
        string sqsEvent = $$"""{"Records":[{"messageId":"m-1","receiptHandle":"r","body":"{{System.Text.Json.JsonEncodedText.Encode(message.Body)}}","attributes":{"ApproximateReceiveCount":"1"},"messageAttributes":{},"eventSourceARN":"arn:aws:sqs:us-east-2:123456789012:orders"}]}""";

        Missive.Lambda.SqsBatchResponse response = await provider.GetRequiredService<Missive.Lambda.SqsEventProcessor>().ProcessAsync(System.Text.Encoding.UTF8.GetBytes(sqsEvent));

        Assert.Empty(response.BatchItemFailures);
        Assert.Contains(log.Entries, e => e.StartsWith("handler", StringComparison.Ordinal));
    }

    [Fact]
    public async Task TheHandlingTimeout_CancelsASlowHandler_PerMessageType_AndTheMessageIsRetried()
    {
        var log = new Log { HandlerDelay = TimeSpan.FromSeconds(20) };
        var errors = new CapturingLoggerProvider();
        using IHost host = BusTestHost.Build(
            Topology,
            bus => bus.AddSqsPublisher<Order>("orders").AddHandler<Order, RecordingHandler>()
                .UseHandlingTimeout(t => t.For<Order>(TimeSpan.FromMilliseconds(200)))
                .AddQueuePoller("orders", o =>
                {
                    o.WaitTime = TimeSpan.FromMilliseconds(50);
                    o.RetryDelay = TimeSpan.FromMinutes(5);
                }),
            services => services.AddSingleton(log),
            errors);
        await host.StartAsync();

        await Publish(host, "ORD-1");
        await BusTestHost.WaitUntil(() => errors.Messages.Any(m => m.Contains("TimeoutException", StringComparison.Ordinal)));
        await host.StopAsync();

        Assert.Contains(errors.Messages, m => m.Contains("took longer than its timeout of 00:00:00.2", StringComparison.Ordinal));
        Assert.Equal(1, host.Services.GetRequiredService<InMemoryBroker>().GetQueue("orders").Count); // kept, to be retried
    }

    [Fact]
    public void AMiddlewareAddedTwice_IsAConfigurationError()
    {
        // Reported with every other problem when the bus is first used (here: the publisher of a provider without a host).
        using ServiceProvider twice = new ServiceCollection().AddMessageBus(bus => bus
            .UseHandlingTimeout(t => t.DefaultTimeout = TimeSpan.FromSeconds(1))
            .UseHandlingTimeout(t => t.DefaultTimeout = TimeSpan.FromSeconds(2))).BuildServiceProvider();
        var error = Assert.Throws<MessageBusConfigurationException>(() => twice.GetRequiredService<IMessagePublisher>());

        Assert.Contains("HandlingTimeoutMiddleware is added twice", error.Message, StringComparison.Ordinal);
        using ServiceProvider publish = new ServiceCollection().AddMessageBus(bus => bus.UsePublishMiddleware<StampPublish>().UsePublishMiddleware<StampPublish>()).BuildServiceProvider();
        Assert.Throws<MessageBusConfigurationException>(() => publish.GetRequiredService<IMessagePublisher>());
    }

    private static void Topology(InMemoryBroker broker)
    {
        broker.CreateQueue("orders-dlq");
        broker.CreateQueue("orders");
    }

    private static IHost Build(Log log, Action<MessageBusBuilder> middleware, Action<PollerOptions>? poller = null)
        => BusTestHost.Build(
            Topology,
            bus =>
            {
                bus.AddSqsPublisher<Order>("orders").AddHandler<Order, RecordingHandler>().AddQueuePoller("orders", o =>
                {
                    o.WaitTime = TimeSpan.FromMilliseconds(50);
                    o.RetryDelay = TimeSpan.Zero;
                    poller?.Invoke(o);
                });
                middleware(bus);
            },
            services => services.AddSingleton(log).AddScoped<PerMessage>());

    private static Task<MessageEnvelope<Order>> Publish(IHost host, string orderId)
    {
        Order order = Orders.Create(1);
        order.OrderId = orderId;
        return host.Services.GetRequiredService<IMessagePublisher>().PublishAsync(order);
    }

    private static InMemoryQueue Queue(IHost host) => host.Services.GetRequiredService<InMemoryBroker>().GetQueue("orders");

    private static string OrderIdOf(MessageEnvelope envelope) => ((MessageEnvelope<Order>)envelope).Message.OrderId;

    /// <summary>What the pipeline did, in order.</summary>
    private sealed class Log
    {
        private readonly ConcurrentQueue<string> _entries = new();

        public bool FailHandler { get; init; }

        public TimeSpan HandlerDelay { get; init; }

        public IReadOnlyCollection<string> Entries => _entries.ToArray();

        public ConcurrentQueue<Guid> ScopeIdsQueue { get; } = new();

        public ConcurrentQueue<Guid> HandlerIds { get; } = new();

        public Guid[] ScopeIds => ScopeIdsQueue.ToArray();

        public ConcurrentQueue<int> ReceiveCountsQueue { get; } = new();

        public int[] ReceiveCounts => ReceiveCountsQueue.ToArray();

        public string? LastStamp { get; set; }

        public void Add(string entry) => _entries.Enqueue(entry);
    }

    /// <summary>A scoped service: one per message.</summary>
    private sealed class PerMessage(Log log) : IDisposable
    {
        public Guid Id { get; } = Guid.NewGuid();

        public string? OrderId { get; set; }

        public void Dispose() => log.Add("disposed " + OrderId);
    }

    private sealed class Outer(Log log, PerMessage scoped) : IHandleMiddleware
    {
        public async Task InvokeAsync(HandleContext context, HandleStep nextStep)
        {
            scoped.OrderId = OrderIdOf(context.Envelope);
            log.ScopeIdsQueue.Enqueue(scoped.Id);
            log.Add("outer before " + scoped.OrderId);
            await nextStep(context);
            log.Add("outer after " + scoped.OrderId);
        }
    }

    private sealed class Inner(Log log, PerMessage scoped) : IHandleMiddleware
    {
        public async Task InvokeAsync(HandleContext context, HandleStep nextStep)
        {
            log.ScopeIdsQueue.Enqueue(scoped.Id);
            log.Add("inner before " + scoped.OrderId);
            await nextStep(context);
            log.Add("inner after " + scoped.OrderId);
        }
    }

    private sealed class SkipOrd2(Log log) : IHandleMiddleware
    {
        public Task InvokeAsync(HandleContext context, HandleStep nextStep)
        {
            if (OrderIdOf(context.Envelope) == "ORD-2")
            {
                log.Add("skipped ORD-2");
                return Task.CompletedTask;
            }

            return nextStep(context);
        }
    }

    private sealed class Observer(Log log) : IHandleMiddleware
    {
        public async Task InvokeAsync(HandleContext context, HandleStep nextStep)
        {
            log.ReceiveCountsQueue.Enqueue(context.Envelope.SqsMetadata!.ApproximateReceiveCount);
            try
            {
                await nextStep(context);
            }
            catch (Exception e)
            {
                log.Add("observed " + e.GetType().Name);
                throw;
            }
        }
    }

    private sealed class Rewrite : IHandleMiddleware
    {
        public async Task InvokeAsync(HandleContext context, HandleStep nextStep)
        {
            var original = (MessageEnvelope<Order>)context.Envelope;
            Order copy = Orders.Create(1);
            copy.OrderId = original.Message.OrderId + "-rewritten";
            context.Envelope = new MessageEnvelope<Order> { Id = original.Id, Source = original.Source, Type = original.Type, Message = copy };
            await nextStep(context);
            context.Outcome = HandleOutcome.DeadLetter;
        }
    }

    private sealed class StampPublish(Log log) : IPublishMiddleware
    {
        public Task InvokeAsync(PublishContext context, PublishStep nextStep)
        {
            log.Add("stamp " + OrderIdOf(context.Envelope));
            context.Envelope.Extensions["stamp"] = CloudEventAttributeValue.FromString("stamped");
            return nextStep(context);
        }
    }

    private sealed class DropOrd9(Log log) : IPublishMiddleware
    {
        public async Task InvokeAsync(PublishContext context, PublishStep nextStep)
        {
            if (OrderIdOf(context.Envelope) == "ORD-9")
            {
                log.Add("dropped ORD-9");
                return;
            }

            await nextStep(context);
            log.Add($"sent {OrderIdOf(context.Envelope)}");
            Assert.False(string.IsNullOrEmpty(context.MessageId));
        }
    }

    private sealed class RecordingHandler(Log log, IServiceProvider services) : IMessageHandler<Order>
    {
        private readonly Guid _id = Guid.NewGuid();

        public async Task HandleAsync(MessageEnvelope<Order> envelope, CancellationToken cancellationToken)
        {
            log.HandlerIds.Enqueue(_id);
            if (services.GetService<PerMessage>() is { } scoped)
            {
                log.ScopeIdsQueue.Enqueue(scoped.Id);
            }

            if (envelope.Extensions.TryGetValue("stamp", out CloudEventAttributeValue stamp))
            {
                log.LastStamp = stamp.AsString();
            }

            if (log.HandlerDelay > TimeSpan.Zero)
            {
                await Task.Delay(log.HandlerDelay, cancellationToken);
            }

            log.Add("handler " + envelope.Message.OrderId);
            if (log.FailHandler)
            {
                throw new InvalidOperationException("the handler fails");
            }
        }
    }

    private sealed class LoggingHandler(ILogger<LoggingHandler> logger) : IMessageHandler<Order>
    {
        public Task HandleAsync(MessageEnvelope<Order> envelope, CancellationToken cancellationToken)
        {
#pragma warning disable CA1848, CA2254 // a test logger call
            logger.LogInformation("handling " + envelope.Message.OrderId);
#pragma warning restore CA1848, CA2254
            return Task.CompletedTask;
        }
    }

    /// <summary>Keeps each log line with the scope it was written in.</summary>
    private sealed class ScopeCapturingLoggerProvider : ILoggerProvider
    {
        private readonly AsyncLocal<IReadOnlyList<KeyValuePair<string, object?>>?> _scope = new();

        public ConcurrentQueue<(string Message, IReadOnlyList<KeyValuePair<string, object?>> Scope)> Lines { get; } = new();

        public ILogger CreateLogger(string categoryName) => new ScopeLogger(this);

        public void Dispose()
        {
        }

        private sealed class ScopeLogger(ScopeCapturingLoggerProvider provider) : ILogger
        {
            public IDisposable? BeginScope<TState>(TState state)
                where TState : notnull
            {
                IReadOnlyList<KeyValuePair<string, object?>>? outer = provider._scope.Value;
                provider._scope.Value = state as IReadOnlyList<KeyValuePair<string, object?>>;
                return new Restore(() => provider._scope.Value = outer);
            }

            public bool IsEnabled(LogLevel logLevel) => true;

            public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
                => provider.Lines.Enqueue((formatter(state, exception), provider._scope.Value ?? []));
        }

        private sealed class Restore(Action restore) : IDisposable
        {
            public void Dispose() => restore();
        }
    }
}
