using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Missive.Bus;
using Missive.InMemory;
using Missive.Tests.Infrastructure;
using OpenTelemetry;
using OpenTelemetry.Trace;

namespace Missive.Tests.Diagnostics;

/// <summary>No other test listens to Missive's activity source, and these must not overlap: they run alone.</summary>
[CollectionDefinition(nameof(TracingCollection), DisableParallelization = true)]
public sealed class TracingCollection
{
}

/// <summary>
/// Spans collected by the OpenTelemetry SDK's in-memory exporter: a publish → SNS/EventBridge/SQS → handler run on the
/// in-memory broker is one trace, from the application's own span through the producer span to the consumer span.
/// </summary>
[Collection(nameof(TracingCollection))]
public sealed class TracingTests
{
    private static readonly ActivitySource Http = new("Missive.Tests.Http");

    public static TheoryData<string> Routes() => new() { "sns", "eventbridge", "sqs" };

    [Theory]
    [MemberData(nameof(Routes))]
    public async Task ABatchPublish_HasOneProducerSpanPerMessage_EachWithItsOwnMessageId(string route)
    {
        var exported = new Exported();
        using TracerProvider tracing = Sdk.CreateTracerProviderBuilder().AddSource("Missive", Http.Name).AddInMemoryExporter(exported).Build()!;
        using IHost host = BusTestHost.Build(
            b =>
            {
                b.CreateQueue("orders-queue");
                b.CreateTopic("orders-topic");
                b.Subscribe("orders-topic", "orders-queue");
                b.CreateEventBus("orders-bus");
                b.AddRule("orders-bus", "orders-queue");
            },
            bus => _ = route switch
            {
                "sns" => bus.AddSnsPublisher<Order>("orders-topic"),
                "eventbridge" => bus.AddEventBridgePublisher<Order>("orders-bus"),
                _ => bus.AddSqsPublisher<Order>("orders-queue"),
            });

        Activity root;
        using (root = Http.StartActivity("POST /orders/batch", ActivityKind.Server)!)
        {
            await host.Services.GetRequiredService<IMessagePublisher>().PublishBatchAsync([Orders.Create(1), Orders.Create(2), Orders.Create(3)]);
        }

        List<Activity> producers = Spans(exported, root.TraceId).Where(a => a.Kind == ActivityKind.Producer).ToList();
        Assert.Equal(3, producers.Count);
        Assert.All(producers, p => Assert.Equal(root.SpanId, p.ParentSpanId));
        Assert.Equal(3, producers.Select(p => (string?)p.GetTagItem("messaging.message.id")).Where(id => !string.IsNullOrEmpty(id)).Distinct().Count());
        Assert.Equal(3, producers.Select(p => (string?)p.GetTagItem("cloudevents.event_id")).Distinct().Count());
    }

    [Theory]
    [MemberData(nameof(Routes))]
    public async Task PublishToHandler_IsOneTrace_ConsumerSpanChildOfProducerSpan_NamedAndTaggedByTheConventions(string route)
    {
        var exported = new Exported();
        using TracerProvider tracing = Sdk.CreateTracerProviderBuilder().AddSource("Missive", Http.Name).AddInMemoryExporter(exported).Build()!;
        var seen = new Seen();
        using IHost host = Host(route, seen);
        await host.StartAsync();

        Activity root;
        using (root = Http.StartActivity("POST /orders", ActivityKind.Server)!)
        {
            root.TraceStateString = "vendor=abc";
            await host.Services.GetRequiredService<IMessagePublisher>().PublishAsync(Orders.Create(1));
        }

        await seen.Handled.Task.WaitAsync(BusTestHost.Patience);
        await BusTestHost.WaitUntil(() => Spans(exported, root.TraceId).Any(a => a.Kind == ActivityKind.Consumer));
        await host.StopAsync();

        Activity producer = Spans(exported, root.TraceId).Single(a => a.Kind == ActivityKind.Producer);
        Activity consumer = Spans(exported, root.TraceId).Single(a => a.Kind == ActivityKind.Consumer);
        (string system, string operation, string destination) = route switch
        {
            "sns" => ("aws.sns", "publish", "orders-topic"),
            "eventbridge" => ("aws.eventbridge", "put_events", "orders-bus"),
            _ => ("aws_sqs", "send", "orders-queue"),
        };

        Assert.Equal($"{operation} {destination}", producer.DisplayName);
        Assert.Equal(root.SpanId, producer.ParentSpanId);
        Assert.Equal(system, producer.GetTagItem("messaging.system"));
        Assert.Equal(operation, producer.GetTagItem("messaging.operation.name"));
        Assert.Equal("send", producer.GetTagItem("messaging.operation.type"));
        Assert.Equal(destination, producer.GetTagItem("messaging.destination.name"));
        Assert.False(string.IsNullOrEmpty((string?)producer.GetTagItem("messaging.message.id")));
        Assert.Equal(TestSerializers.OrderType, producer.GetTagItem("cloudevents.event_type"));
        Assert.Equal(seen.CloudEventId, producer.GetTagItem("cloudevents.event_id"));

        Assert.Equal("process orders-queue", consumer.DisplayName);
        Assert.Equal(producer.SpanId, consumer.ParentSpanId);
        Assert.Equal("aws_sqs", consumer.GetTagItem("messaging.system"));
        Assert.Equal("process", consumer.GetTagItem("messaging.operation.name"));
        Assert.Equal("process", consumer.GetTagItem("messaging.operation.type"));
        Assert.Equal("orders-queue", consumer.GetTagItem("messaging.destination.name"));
        Assert.Equal(seen.SqsMessageId, consumer.GetTagItem("messaging.message.id"));
        Assert.Equal(ActivityStatusCode.Unset, consumer.Status);
        Assert.Equal("vendor=abc", consumer.TraceStateString);

        // The envelope carried the producer span's context in the CloudEvents distributed tracing extension,
        // and the handler ran inside the consumer span.
        Assert.Equal($"00-{root.TraceId}-{producer.SpanId}-01", seen.TraceParent);
        Assert.Equal("vendor=abc", seen.TraceState);
        Assert.Equal(consumer.SpanId, seen.HandlerSpanId);
    }

    [Fact]
    public async Task ATraceParentTheApplicationSet_IsKept_AndTheConsumerContinuesIt()
    {
        const string Theirs = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        var exported = new Exported();
        using TracerProvider tracing = Sdk.CreateTracerProviderBuilder().AddSource("Missive").AddInMemoryExporter(exported).Build()!;
        var seen = new Seen();
        using IHost host = Host("sqs", seen);
        await host.StartAsync();

        await host.Services.GetRequiredService<IMessagePublisher>().PublishAsync(Orders.Create(1), new PublishOptions
        {
            ConfigureEnvelope = e => e.Extensions["traceparent"] = CloudEventAttributeValue.FromString(Theirs),
        });
        await seen.Handled.Task.WaitAsync(BusTestHost.Patience);
        var theirTrace = ActivityTraceId.CreateFromString("4bf92f3577b34da6a3ce929d0e0e4736");
        await BusTestHost.WaitUntil(() => Spans(exported, theirTrace).Count > 0);
        await host.StopAsync();

        Assert.Equal(Theirs, seen.TraceParent);
        Activity consumer = Spans(exported, theirTrace).Single();
        Assert.Equal(ActivityKind.Consumer, consumer.Kind);
        Assert.Equal(ActivitySpanId.CreateFromString("00f067aa0ba902b7"), consumer.ParentSpanId);
    }

    [Fact]
    public async Task AFailingHandler_MarksTheConsumerSpanWithTheErrorType()
    {
        var exported = new Exported();
        using TracerProvider tracing = Sdk.CreateTracerProviderBuilder().AddSource("Missive", Http.Name).AddInMemoryExporter(exported).Build()!;
        var seen = new Seen { Fail = true };
        using IHost host = Host("sqs", seen);
        await host.StartAsync();

        Activity root;
        using (root = Http.StartActivity("job")!)
        {
            await host.Services.GetRequiredService<IMessagePublisher>().PublishAsync(Orders.Create(1));
        }

        await BusTestHost.WaitUntil(() => Spans(exported, root.TraceId).Any(a => a.Kind == ActivityKind.Consumer));
        await host.StopAsync();

        Activity consumer = Spans(exported, root.TraceId).First(a => a.Kind == ActivityKind.Consumer);
        Assert.Equal(ActivityStatusCode.Error, consumer.Status);
        Assert.Equal(typeof(InvalidOperationException).FullName, consumer.GetTagItem("error.type"));
    }

    [Fact]
    public async Task WithNoListener_NoSpanIsMade_ButAnAmbientTraceIsStillPassedOn()
    {
        var seen = new Seen();
        using IHost host = Host("sqs", seen);
        await host.StartAsync();
        IMessagePublisher publisher = host.Services.GetRequiredService<IMessagePublisher>();
        Assert.False(Missive.Diagnostics.MissiveDiagnostics.Name is { } name && new ActivitySource(name).HasListeners());

        MessageEnvelope<Order> bare = await publisher.PublishAsync(Orders.Create(1));
        using var ambient = new Activity("incoming request");
        ambient.SetIdFormat(ActivityIdFormat.W3C);
        ambient.Start();
        MessageEnvelope<Order> traced = await publisher.PublishAsync(Orders.Create(2));
        ambient.Stop();
        await BusTestHost.WaitUntil(() => seen.Count == 2);
        await host.StopAsync();

        Assert.False(bare.Extensions.ContainsKey("traceparent"));
        Assert.Equal(ambient.Id, traced.Extensions["traceparent"].AsString());
        Assert.Null(seen.HandlerSpanId); // no consumer span without a listener
    }

    private static List<Activity> Spans(Exported exported, ActivityTraceId trace) => exported.Where(a => a.TraceId == trace).ToList();

    /// <summary>The exporter adds from the thread that stops a span; the test reads from its own.</summary>
    private sealed class Exported : ICollection<Activity>
    {
        private readonly List<Activity> _items = [];

        public int Count
        {
            get
            {
                lock (_items)
                {
                    return _items.Count;
                }
            }
        }

        public bool IsReadOnly => false;

        public void Add(Activity item)
        {
            lock (_items)
            {
                _items.Add(item);
            }
        }

        public void Clear()
        {
            lock (_items)
            {
                _items.Clear();
            }
        }

        public bool Contains(Activity item)
        {
            lock (_items)
            {
                return _items.Contains(item);
            }
        }

        public void CopyTo(Activity[] array, int arrayIndex)
        {
            lock (_items)
            {
                _items.CopyTo(array, arrayIndex);
            }
        }

        public bool Remove(Activity item)
        {
            lock (_items)
            {
                return _items.Remove(item);
            }
        }

        public IEnumerator<Activity> GetEnumerator()
        {
            lock (_items)
            {
                return _items.ToList().GetEnumerator();
            }
        }

        System.Collections.IEnumerator System.Collections.IEnumerable.GetEnumerator() => GetEnumerator();
    }

    private static IHost Host(string route, Seen seen)
        => BusTestHost.Build(
            b =>
            {
                b.CreateQueue("orders-queue");
                b.CreateTopic("orders-topic");
                b.Subscribe("orders-topic", "orders-queue");
                b.CreateEventBus("orders-bus");
                b.AddRule("orders-bus", "orders-queue");
            },
            bus =>
            {
                _ = route switch
                {
                    "sns" => bus.AddSnsPublisher<Order>("orders-topic"),
                    "eventbridge" => bus.AddEventBridgePublisher<Order>("orders-bus"),
                    _ => bus.AddSqsPublisher<Order>("orders-queue"),
                };
                bus.AddHandler<Order, RecordingHandler>()
                    .AddQueuePoller("orders-queue", o =>
                    {
                        o.WaitTime = TimeSpan.FromMilliseconds(50);
                        o.RetryDelay = TimeSpan.FromSeconds(30);
                    });
            },
            services => services.AddSingleton(seen));

    /// <summary>What the handler saw.</summary>
    private sealed class Seen
    {
        private int _count;

        public bool Fail { get; init; }

        public TaskCompletionSource Handled { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public int Count => Volatile.Read(ref _count);

        public string? TraceParent { get; set; }

        public string? TraceState { get; set; }

        public string? CloudEventId { get; set; }

        public string? SqsMessageId { get; set; }

        public ActivitySpanId? HandlerSpanId { get; set; }

        public void Record(MessageEnvelope<Order> envelope)
        {
            TraceParent = envelope.Extensions.TryGetValue("traceparent", out CloudEventAttributeValue parent) ? parent.AsString() : null;
            TraceState = envelope.Extensions.TryGetValue("tracestate", out CloudEventAttributeValue state) ? state.AsString() : null;
            CloudEventId = envelope.Id;
            SqsMessageId = envelope.SqsMetadata!.MessageId;
            HandlerSpanId = Activity.Current?.Source.Name == "Missive" ? Activity.Current.SpanId : null;
            Interlocked.Increment(ref _count);
            Handled.TrySetResult();
        }
    }

    private sealed class RecordingHandler(Seen seen) : IMessageHandler<Order>
    {
        public Task HandleAsync(MessageEnvelope<Order> envelope, CancellationToken cancellationToken)
        {
            seen.Record(envelope);
            return seen.Fail ? throw new InvalidOperationException("the handler fails") : Task.CompletedTask;
        }
    }
}
