using System;
using System.Buffers;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Linq;
using System.Text;
using System.Text.Json;
using System.Text.Json.Serialization;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Missive;
using Missive.Bus;
using Missive.Buffers;
using Missive.InMemory;
using Missive.Serialization;

// Missive QuickStart: an SNS topic fanned out to two SQS queues on the in-memory broker, one of them
// with raw message delivery. Orders are published as JSON and as protobuf, handled from both queues,
// and the run ends with a summary. No cloud account is needed.
const int OrdersPerFormat = 150;

bool figures = args.Contains("--figures");
HostApplicationBuilder builder = Host.CreateApplicationBuilder(args.Where(a => a != "--figures").ToArray());
builder.Logging.SetMinimumLevel(LogLevel.Warning);
builder.Services.AddSingleton<HandledOrders>();
builder.Services.AddMessageBus(bus =>
{
    bus.AddMessageType<OrderPlaced>("Orders.OrderPlaced");
    bus.UseMessageSource("/samples/quickstart");
    bus.ConfigureSerialization(options => options.JsonSerializerContext = QuickStartJsonContext.Default);
    bus.EnableExperimentalFeatures();
    bus.AddSnsPublisher<OrderPlaced>("orders");
    bus.AddHandler<OrderPlaced, OrderPlacedHandler>();
    bus.AddQueuePoller("billing", o => o.WaitTime = TimeSpan.FromSeconds(1));
    bus.AddQueuePoller("shipping-raw", o => o.WaitTime = TimeSpan.FromSeconds(1));
    bus.UseInMemoryBroker(broker =>
    {
        broker.CreateTopic("orders");
        broker.Subscribe("orders", "billing");                                 // SNS notification JSON around the envelope
        broker.Subscribe("orders", "shipping-raw", rawMessageDelivery: true);  // the envelope as published
    });
});

using IHost host = builder.Build();
await host.StartAsync();
IMessagePublisher publisher = host.Services.GetRequiredService<IMessagePublisher>();
HandledOrders handled = host.Services.GetRequiredService<HandledOrders>();

Console.WriteLine("Missive QuickStart: SNS topic 'orders' → SQS 'billing' (notification) and 'shipping-raw' (raw delivery)");
int published = 0;
foreach (EnvelopeFormat format in new[] { EnvelopeFormat.Json, EnvelopeFormat.Protobuf })
{
    for (int i = 0; i < OrdersPerFormat; i++)
    {
        await publisher.PublishAsync(Sample.Order(published), new PublishOptions { Format = format });
        published++;
    }

    Console.WriteLine($"  published {OrdersPerFormat} orders as {format}");
}

int expected = published * 2; // each order reaches both queues
using (var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(60)))
{
    while (handled.Count < expected && !timeout.IsCancellationRequested)
    {
        Console.Write($"\r  handled {handled.Count} of {expected}...");
        await Task.Delay(50);
    }
}

await host.StopAsync();
Console.WriteLine($"\r  handled {handled.Count} of {expected} messages.        ");
Console.WriteLine();
Console.WriteLine("Messages handled per queue:");
foreach (KeyValuePair<string, int> queue in handled.PerQueue())
{
    Console.WriteLine($"  {queue.Key,-40} {queue.Value,5}");
}

// Envelope sizes and examples, from the same serializers the bus uses.
IEnvelopeSerializerProvider serializers = host.Services.GetRequiredService<IEnvelopeSerializerProvider>();
IEnvelopeSerializer json = serializers.GetSerializer(EnvelopeFormat.Json);
IEnvelopeSerializer protobuf = serializers.GetSerializer(EnvelopeFormat.Protobuf);
MessageEnvelope<OrderPlaced> example = host.Services.GetRequiredService<IEnvelopeFactory>().CreateEnvelope(Sample.Order(42));
byte[] jsonBytes = json.SerializeToArray(example);
byte[] protobufBytes = protobuf.SerializeToArray(example);
Console.WriteLine();
Console.WriteLine("Envelope sizes for one order:");
Console.WriteLine($"  JSON      {jsonBytes.Length,5} bytes ({ContentTypes.CloudEventsJson})");
Console.WriteLine($"  protobuf  {protobufBytes.Length,5} bytes ({ContentTypes.CloudEventsProtobuf}), {protobuf.SerializeToString(example).Length} as base64 in an SQS body");
Console.WriteLine();
Console.WriteLine("Example JSON envelope:");
using (JsonDocument document = JsonDocument.Parse(jsonBytes))
{
    Console.WriteLine(JsonSerializer.Serialize(document.RootElement, QuickStartJsonContext.Indented.JsonElement));
}

Console.WriteLine();
Console.WriteLine("Example protobuf envelope (field dump):");
ProtobufDump.Write(protobufBytes, Console.Out);

// Speed, with --figures: the committed BenchmarkDotNet figures (benchmarks/results/ratios.md, copied next to this
// program), not a stopwatch here: a short timing on a cold, shared machine can say anything.
if (figures)
{
    Console.WriteLine();
    BenchmarkFigures.Write(Console.Out);
}
else
{
    Console.WriteLine();
    Console.WriteLine("(Run with --figures for the committed benchmark ratios.)");
}

Console.WriteLine();
bool complete = handled.Count == expected;
Console.WriteLine(complete ? $"OK: every published message was handled ({handled.Count} of {expected})." : $"INCOMPLETE: {handled.Count} of {expected} handled.");
return complete ? 0 : 1;

/// <summary>An order was placed.</summary>
internal sealed record OrderPlaced(string OrderId, string CustomerName, decimal Total, List<OrderLine> Lines);

/// <summary>One line of an order.</summary>
internal sealed record OrderLine(string Sku, int Quantity, decimal UnitPrice);

[JsonSerializable(typeof(OrderPlaced))]
[JsonSerializable(typeof(JsonElement))]
internal sealed partial class QuickStartJsonContext : JsonSerializerContext
{
    public static QuickStartJsonContext Indented { get; } = new(new JsonSerializerOptions { WriteIndented = true, Encoder = System.Text.Encodings.Web.JavaScriptEncoder.UnsafeRelaxedJsonEscaping });
}

/// <summary>Counts handled orders per queue (the SQS metadata says which queue a message came from).</summary>
internal sealed class HandledOrders
{
    private readonly ConcurrentDictionary<string, int> _perQueue = new();
    private int _count;

    public int Count => Volatile.Read(ref _count);

    public void Add(MessageEnvelope<OrderPlaced> envelope)
    {
        string route = envelope.SnsMetadata is not null ? "billing (SNS notification)" : "shipping-raw (raw delivery)";
        string format = envelope.SqsMetadata!.MessageAttributes.ContainsKey("contentType") || envelope.SnsMetadata?.MessageAttributes.ContainsKey("contentType") == true ? "protobuf" : "JSON";
        _perQueue.AddOrUpdate($"{route}, {format}", 1, static (_, n) => n + 1);
        Interlocked.Increment(ref _count);
    }

    public SortedDictionary<string, int> PerQueue() => new(_perQueue);
}

/// <summary>Handles orders from both queues.</summary>
internal sealed class OrderPlacedHandler(HandledOrders handled) : IMessageHandler<OrderPlaced>
{
    public Task HandleAsync(MessageEnvelope<OrderPlaced> envelope, CancellationToken cancellationToken)
    {
        handled.Add(envelope);
        return Task.CompletedTask;
    }
}

internal static class Sample
{
    public static OrderPlaced Order(int n) => new(
        $"ORD-{n:D5}",
        n % 3 == 0 ? "Zoë Martin" : "Sam Okafor",
        19.90m + n,
        [new OrderLine("SKU-4471", 1 + (n % 3), 9.95m), new OrderLine("SKU-1200", 1, 9.95m + n)]);
}

/// <summary>Prints the one-order rows of the committed BenchmarkDotNet report: time and allocation as ratios to the standard serializer.</summary>
internal static class BenchmarkFigures
{
    public const string FileName = "ratios.md";

    public static void Write(System.IO.TextWriter output)
    {
        string path = System.IO.Path.Combine(AppContext.BaseDirectory, FileName);
        if (!System.IO.File.Exists(path))
        {
            output.WriteLine("Benchmark figures: see benchmarks/results in the repository.");
            return;
        }

        output.WriteLine("One order, BenchmarkDotNet (benchmarks/results/ratios.md; ratios to the standard serializer in the same run):");
        string section = string.Empty;
        foreach (string line in System.IO.File.ReadLines(path))
        {
            if (line.StartsWith("### ", StringComparison.Ordinal))
            {
                section = line[4..];
                continue;
            }

            // | [parameters] | 'scenario' | mean | time ratio | allocated | alloc ratio | time / floor |
            string[] cells = line.Split('|', StringSplitOptions.TrimEntries);
            if (cells.Length < 8 || !IsOneSourceGeneratedOrder(cells[1]))
            {
                continue;
            }

            if (cells[2].EndsWith("(baseline)", StringComparison.Ordinal))
            {
                output.WriteLine($"  {section} against {cells[2][..^"(baseline)".Length].Trim().Trim('\'')} ({cells[3]}, {cells[5]}):");
            }
            else
            {
                output.WriteLine($"    {cells[2].Trim('\''),-56} {cells[4],6}x time  {cells[5],9} allocated");
            }
        }
    }

    private static bool IsOneSourceGeneratedOrder(string parameters)
        => parameters.Contains("ItemCount=1]", StringComparison.Ordinal) && !parameters.Contains("SourceGenerated=False", StringComparison.Ordinal);
}

/// <summary>Prints a protobuf message field by field: tag, wire type, and the value (nested messages indented).</summary>
internal static class ProtobufDump
{
    private static readonly string[][] FieldNames =
    [
        ["", "id", "source", "spec_version", "type", "attributes", "binary_data", "text_data", "proto_data"],  // CloudEvent
        ["", "key", "value"],                                                                                   // map entry
        ["", "ce_boolean", "ce_integer", "ce_string", "ce_bytes", "ce_uri", "ce_uri_ref", "ce_timestamp"],      // CloudEventAttributeValue
        ["", "seconds", "nanos"],                                                                               // google.protobuf.Timestamp
    ];

    public static void Write(ReadOnlySpan<byte> message, System.IO.TextWriter output, int indent = 1)
    {
        int i = 0;
        while (i < message.Length)
        {
            ulong tag = ReadVarint(message, ref i);
            int field = (int)(tag >> 3);
            int wireType = (int)(tag & 7);
            string pad = new(' ', indent * 2);
            string[] names = FieldNames[Math.Min(indent - 1, FieldNames.Length - 1)];
            string name = field < names.Length ? names[field] : "field " + field;
            if (wireType == 0)
            {
                output.WriteLine($"{pad}{field,2} varint   {name} = {ReadVarint(message, ref i)}");
                continue;
            }

            int length = (int)ReadVarint(message, ref i);
            ReadOnlySpan<byte> value = message.Slice(i, length);
            i += length;
            bool text = IsPrintable(value);
            bool nested = (indent == 1 && field == 5) || (indent == 2 && field == 2) || (indent == 3 && field == 7);
            if (nested)
            {
                output.WriteLine($"{pad}{field,2} message  {name} ({length} bytes)");
                Write(value, output, indent + 1);
            }
            else if (text)
            {
                string shown = Encoding.UTF8.GetString(value);
                output.WriteLine($"{pad}{field,2} bytes    {name} = \"{(shown.Length > 90 ? shown[..90] + "…" : shown)}\" ({length} bytes)");
            }
            else
            {
                output.WriteLine($"{pad}{field,2} bytes    {name} = {Convert.ToHexString(value[..Math.Min(length, 24)])}{(length > 24 ? "…" : string.Empty)} ({length} bytes)");
            }
        }
    }

    private static ulong ReadVarint(ReadOnlySpan<byte> data, ref int i)
    {
        ulong result = 0;
        for (int shift = 0; ; shift += 7)
        {
            byte b = data[i++];
            result |= (ulong)(b & 0x7F) << shift;
            if (b < 0x80)
            {
                return result;
            }
        }
    }

    private static bool IsPrintable(ReadOnlySpan<byte> value)
    {
        if (value.IsEmpty || !System.Text.Unicode.Utf8.IsValid(value))
        {
            return false;
        }

        foreach (byte b in value)
        {
            if (b < 0x20 && b is not (byte)'\n' and not (byte)'\t')
            {
                return false;
            }
        }

        return true;
    }
}
