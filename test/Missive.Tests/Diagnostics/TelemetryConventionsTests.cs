using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Diagnostics;
using System.Diagnostics.Metrics;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Missive.Bus;
using Missive.Diagnostics;
using Missive.InMemory;
using Missive.Tests.Infrastructure;
using Missive.Transport;

namespace Missive.Tests.Diagnostics;

/// <summary>
/// Every instrument and span of the bus against the OpenTelemetry semantic conventions for messaging
/// (https://opentelemetry.io/docs/specs/semconv/messaging/messaging-metrics/ and messaging-spans/): the conventions'
/// instruments with their kind, unit, required attributes, and the conditionally required ones under their condition
/// (error.type if and only if the operation failed; the destination, which the bus always knows); the bus's own
/// instruments outside the conventions' namespace, with the tags the README lists. Written as data: an instrument or
/// attribute added is one row.
/// </summary>
[Collection(nameof(TracingCollection))]
public sealed class TelemetryConventionsTests
{
    /// <summary>Every instrument: name, kind, unit, attributes always present, and whether error.type marks failures.</summary>
    private static readonly InstrumentRow[] Instruments =
    [
        // The conventions' instruments (messaging-metrics.md).
        new("messaging.client.operation.duration", "Histogram", "s", ["messaging.system", "messaging.operation.name", "messaging.destination.name"], ErrorTypeOnFailure: true),
        new("messaging.client.sent.messages", "Counter", "{message}", ["messaging.system", "messaging.operation.name", "messaging.destination.name"], ErrorTypeOnFailure: true),
        new("messaging.client.consumed.messages", "Counter", "{message}", ["messaging.system", "messaging.operation.name", "messaging.destination.name"], ErrorTypeOnFailure: false),
        new("messaging.process.duration", "Histogram", "s", ["messaging.system", "messaging.operation.name", "messaging.destination.name"], ErrorTypeOnFailure: true),

        // The bus's own, as the README's table lists them.
        new("missive.messages.handled", "Counter", "{message}", ["messaging.destination.name", "cloudevents.event_type"], ErrorTypeOnFailure: false),
        new("missive.messages.failed", "Counter", "{message}", ["messaging.destination.name", "error.type"], ErrorTypeOnFailure: false),
        new("missive.messages.redelivered", "Counter", "{message}", ["messaging.destination.name"], ErrorTypeOnFailure: false),
        new("missive.messages.dead_lettered", "Counter", "{message}", ["messaging.destination.name", "cloudevents.event_type"], ErrorTypeOnFailure: false),
        new("missive.envelope.size", "Histogram", "By", ["messaging.operation.type", "messaging.destination.name", "cloudevents.event_type"], ErrorTypeOnFailure: false),
    ];

    /// <summary>Every span: the operation, its kind, and the attributes it must carry (messaging-spans.md, with the CloudEvents ones of cloudevents-spans.md).</summary>
    private static readonly SpanRow[] Spans =
    [
        new("send", ActivityKind.Producer, ["messaging.system", "messaging.operation.name", "messaging.operation.type", "messaging.destination.name", "messaging.message.id", "cloudevents.event_id", "cloudevents.event_source", "cloudevents.event_type", "cloudevents.event_spec_version"]),
        new("publish", ActivityKind.Producer, ["messaging.system", "messaging.operation.name", "messaging.operation.type", "messaging.destination.name", "messaging.message.id", "cloudevents.event_id", "cloudevents.event_type"]),
        new("put_events", ActivityKind.Producer, ["messaging.system", "messaging.operation.name", "messaging.operation.type", "messaging.destination.name", "messaging.message.id", "cloudevents.event_id", "cloudevents.event_type"]),
        new("process", ActivityKind.Consumer, ["messaging.system", "messaging.operation.name", "messaging.operation.type", "messaging.destination.name", "messaging.message.id", "cloudevents.event_id", "cloudevents.event_type"]),
    ];

    private static readonly string[] MessagingSystems = ["aws_sqs", "aws.sns", "aws.eventbridge"];
    private static readonly string[] OperationTypes = ["send", "receive", "process"];

    [Fact]
    public async Task EveryInstrumentAndSpan_FollowsTheConventions_OnSuccessAndOnFailure()
    {
        var measurements = new ConcurrentQueue<(Instrument Instrument, Dictionary<string, object?> Tags)>();
        var spans = new ConcurrentQueue<Activity>();
        using var activities = new ActivityListener
        {
            ShouldListenTo = source => source.Name == MissiveDiagnostics.Name,
            Sample = static (ref ActivityCreationOptions<ActivityContext> _) => ActivitySamplingResult.AllDataAndRecorded,
            ActivityStopped = spans.Enqueue,
        };
        ActivitySource.AddActivityListener(activities);
        var fails = new MetricsTests.FailOnce("ORD-FAILS");
        using IHost host = BusTestHost.Build(
            b =>
            {
                b.CreateQueue("orders");
                b.CreateTopic("notes-topic");
                b.Subscribe("notes-topic", "notes");
                b.CreateEventBus("blobs-bus");
                b.AddRule("blobs-bus", "blobs-from-events");
                b.CreateQueue("blobs", o => o.MaxMessageSize = 1024);
            },
            bus => bus
                .AddMessageType<string>("notes.text")
                .AddMessageType<byte[]>("blobs.binary")
                .AddMessageType<ReadOnlyMemory<byte>>("blobs.memory")
                .AddSqsPublisher<Order>("orders")
                .AddSnsPublisher<string>("notes-topic")
                .AddEventBridgePublisher<ReadOnlyMemory<byte>>("blobs-bus")
                .AddSqsPublisher<byte[]>("blobs")
                .AddHandler<Order, MetricsTests.FailingOnceHandler>()
                .AddQueuePoller("orders", o =>
                {
                    o.WaitTime = TimeSpan.FromMilliseconds(50);
                    o.RetryDelay = TimeSpan.Zero;
                }),
            services => services.AddSingleton(fails));
        Meter meter = host.Services.GetRequiredService<BusTelemetry>().Meter;
        using var listener = new MeterListener();
        listener.InstrumentPublished = (instrument, l) =>
        {
            if (ReferenceEquals(instrument.Meter, meter))
            {
                l.EnableMeasurementEvents(instrument);
            }
        };
        listener.SetMeasurementEventCallback<long>((instrument, _, tags, _) => measurements.Enqueue((instrument, ToDictionary(tags))));
        listener.SetMeasurementEventCallback<double>((instrument, _, tags, _) => measurements.Enqueue((instrument, ToDictionary(tags))));
        listener.Start();
        await host.StartAsync();
        IMessagePublisher publisher = host.Services.GetRequiredService<IMessagePublisher>();
        InMemoryBroker broker = host.Services.GetRequiredService<InMemoryBroker>();

        foreach (string id in new[] { "ORD-OK", "ORD-FAILS" })
        {
            Order order = Orders.Create(1);
            order.OrderId = id;
            await publisher.PublishAsync(order);
        }

        // To SNS and EventBridge, and a publish the queue refuses (over its 1 KiB).
        await publisher.PublishAsync("a note");
        await publisher.PublishAsync(new ReadOnlyMemory<byte>([1, 2, 3]));
        await Assert.ThrowsAsync<MessageTransportException>(() => publisher.PublishAsync(new byte[2000]));
        await BusTestHost.WaitUntil(() => fails.Handled == 2 && broker.GetQueue("orders").Count == 0);
        await BusTestHost.WaitUntil(() => measurements.Count(m => m.Instrument.Name == "missive.messages.handled") == 2);
        await host.StopAsync();

        var byName = measurements.GroupBy(m => m.Instrument.Name).ToDictionary(g => g.Key, g => g.ToList());
        var problems = new List<string>();
        foreach (InstrumentRow row in Instruments)
        {
            if (row.Name == "missive.messages.dead_lettered")
            {
                continue; // measured by MetricsTests, which dead-letters; the same row is checked there by name
            }

            if (!byName.TryGetValue(row.Name, out var seen))
            {
                problems.Add($"{row.Name}: never measured");
                continue;
            }

            Instrument instrument = seen[0].Instrument;
            if (!instrument.GetType().Name.StartsWith(row.Kind, StringComparison.Ordinal) || instrument.Unit != row.Unit)
            {
                problems.Add($"{row.Name}: {instrument.GetType().Name} in '{instrument.Unit}', the conventions say {row.Kind} in '{row.Unit}'");
            }

            foreach ((_, Dictionary<string, object?> tags) in seen)
            {
                foreach (string required in row.Always)
                {
                    if (tags.GetValueOrDefault(required) is not string { Length: > 0 })
                    {
                        problems.Add($"{row.Name}: a measurement without {required} ({string.Join(", ", tags.Keys)})");
                    }
                }

                if (tags.GetValueOrDefault("messaging.system") is string system && !MessagingSystems.Contains(system))
                {
                    problems.Add($"{row.Name}: messaging.system '{system}'");
                }

                if (tags.GetValueOrDefault("messaging.operation.type") is string type && !OperationTypes.Contains(type))
                {
                    problems.Add($"{row.Name}: messaging.operation.type '{type}'");
                }
            }

            if (row.ErrorTypeOnFailure && !seen.Any(m => m.Tags.ContainsKey("error.type")))
            {
                problems.Add($"{row.Name}: no failure carried error.type");
            }
        }

        // error.type if and only if the operation failed: the refused publish, and the failed handling of ORD-FAILS.
        Assert.Single(byName["messaging.client.sent.messages"], m => m.Tags.ContainsKey("error.type"));
        Assert.Equal("Missive.MessageTransportException", byName["messaging.client.sent.messages"].Single(m => m.Tags.ContainsKey("error.type")).Tags["error.type"]);
        Assert.Single(byName["messaging.process.duration"], m => m.Tags.ContainsKey("error.type"));
        Assert.Contains(byName["messaging.client.operation.duration"], m => Equals(m.Tags["messaging.operation.name"], "receive"));

        foreach (SpanRow row in Spans)
        {
            List<Activity> ofOperation = spans.Where(s => Equals(s.GetTagItem("messaging.operation.name"), row.Operation)).ToList();
            if (ofOperation.Count == 0)
            {
                problems.Add($"span {row.Operation}: none seen");
                continue;
            }

            foreach (Activity span in ofOperation)
            {
                if (span.Kind != row.Kind || !span.DisplayName.StartsWith(row.Operation + " ", StringComparison.Ordinal))
                {
                    problems.Add($"span {span.DisplayName}: {span.Kind}, the conventions say {row.Kind} named '{row.Operation} {{destination}}'");
                }

                bool failed = span.Status == ActivityStatusCode.Error;
                foreach (string required in row.Attributes)
                {
                    if (required == "messaging.message.id" && failed && row.Kind == ActivityKind.Producer)
                    {
                        continue; // a publish that failed has no id from the service
                    }

                    if (span.GetTagItem(required) is not string { Length: > 0 })
                    {
                        problems.Add($"span {span.DisplayName}: without {required}");
                    }
                }

                if (failed != span.GetTagItem("error.type") is string)
                {
                    problems.Add($"span {span.DisplayName}: error.type {(failed ? "missing on a failure" : "on a success")}");
                }
            }
        }

        Assert.True(problems.Count == 0, string.Join("\n", problems));
        Assert.Contains(spans, s => s.Status == ActivityStatusCode.Error && s.Kind == ActivityKind.Producer);
        Assert.Contains(spans, s => s.Status == ActivityStatusCode.Error && s.Kind == ActivityKind.Consumer);
    }

    [Fact]
    public void TheReadmesInstrumentTable_ListsEveryInstrument_WithItsKindAndUnit()
    {
        string readme = System.IO.File.ReadAllText(System.IO.Path.Combine(RepositoryPaths.Root, "docs", "observability.md"));
        foreach (InstrumentRow row in Instruments)
        {
            string kind = row.Kind == "Counter" ? "counter" : "histogram";
            Assert.Contains($"| `{row.Name}`", readme, StringComparison.Ordinal);
            Assert.Matches($"\\| `{System.Text.RegularExpressions.Regex.Escape(row.Name)}`[^|]*\\| {kind}, `{System.Text.RegularExpressions.Regex.Escape(row.Unit)}` \\|", readme);
            foreach (string tag in row.Always)
            {
                string line = readme.Split('\n').First(l => l.StartsWith($"| `{row.Name}`", StringComparison.Ordinal));
                Assert.True(line.Contains($"`{tag}`", StringComparison.Ordinal), $"README row of {row.Name} does not list `{tag}`: {line}");
            }
        }
    }

    private static Dictionary<string, object?> ToDictionary(ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        var result = new Dictionary<string, object?>(StringComparer.Ordinal);
        foreach (KeyValuePair<string, object?> tag in tags)
        {
            result[tag.Key] = tag.Value;
        }

        return result;
    }

    private sealed record InstrumentRow(string Name, string Kind, string Unit, string[] Always, bool ErrorTypeOnFailure);

    private sealed record SpanRow(string Operation, ActivityKind Kind, string[] Attributes);
}
