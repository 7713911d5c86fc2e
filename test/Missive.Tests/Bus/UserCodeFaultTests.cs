using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text;
using System.Text.Json.Nodes;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Missive.Aws;
using Missive.Bus;
using Missive.InMemory;
using Missive.Lambda;
using Missive.Serialization;
using Missive.Tests.Aws;
using Missive.Tests.Infrastructure;
using Missive.Transport;

namespace Missive.Tests.Bus;

/// <summary>
/// The fault matrix (<see cref="UserCodeFaultMatrix.Rows"/>) in every runner: the pump on the in-memory broker, the pump
/// on the AWS transport against the emulator, the Lambda processor, and a direct <c>PublishAsync</c> on both transports.
/// Each case asserts the typed error, the message's fate, the event id it is logged under, and that the marker the
/// application's code put in its data and exception messages reaches no log line and no exception with content logging
/// off (and does reach them with it on, when the code threw it).
/// </summary>
/// <remarks>
/// The cases share <see cref="Faults"/>, so they run one at a time: in the emulator's collection, which never runs in
/// parallel with itself (the in-memory cases are there too, though they need no emulator).
/// </remarks>
[Collection(AwsEmulatorCollection.Name)]
public sealed class UserCodeFaultTests(AwsEmulatorFixture fixture)
{
    private const string NoteType = "faults.note";
    private const string ParcelType = "faults.parcel";
    private const string FifoNoteType = "faults.fifo-note";
    private const string StrayType = "faults.stray";

    /// <summary>
    /// The poller asks for a visibility timeout far longer than the test waits, so a message that comes back within the
    /// patience came back after <see cref="RetryDelay"/> (or was released), not after its visibility timeout.
    /// </summary>
    private static readonly TimeSpan Visibility = TimeSpan.FromMinutes(5);

    private static readonly TimeSpan RetryDelay = TimeSpan.FromMilliseconds(50);

    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(30);

    /// <summary>The event ids that say what became of a received message: a case logs its own and none of the others.</summary>
    private static readonly int[] FateEvents = [2001, 2002, 2003, 2005, 2008, 2016];

    /// <summary>Every received case, the serializer seams in each envelope format, with content logging off and on.</summary>
    public static TheoryData<Seam, Misbehaviour, Format, bool> Received => Cases(publish: false, allFormats: true);

    /// <summary>Every received case in the default format, with content logging off and on (against the emulator).</summary>
    public static TheoryData<Seam, Misbehaviour, Format, bool> ReceivedOnAws => Cases(publish: false, allFormats: false);

    /// <summary>Every publish case, the serializer seams in each envelope format, with content logging off and on.</summary>
    public static TheoryData<Seam, Misbehaviour, Format, bool> Published => Cases(publish: true, allFormats: true);

    /// <summary>Every publish case in the default format, with content logging off and on (against the emulator).</summary>
    public static TheoryData<Seam, Misbehaviour, Format, bool> PublishedOnAws => Cases(publish: true, allFormats: false);

    [Fact]
    public void TheMatrix_CoversEverySeamAndEveryMisbehaviour_OncePerPair()
    {
        Assert.Equal(Enum.GetValues<Seam>(), UserCodeFaultMatrix.Rows.Select(r => r.Seam).Distinct().Order());
        Assert.Equal(Enum.GetValues<Misbehaviour>(), UserCodeFaultMatrix.Rows.Select(r => r.Misbehaviour).Distinct().Order());
        Assert.Equal(UserCodeFaultMatrix.Rows.Length, UserCodeFaultMatrix.Rows.Select(r => (r.Seam, r.Misbehaviour)).Distinct().Count());
        Assert.All(UserCodeFaultMatrix.Rows, r => Assert.True(r.IsPublish ? r.Fate is null && r.Sent is not null : r.Fate is not null && r.Reported is not null, r.ToString()));
    }

    [Fact]
    public void TheReadmesTable_SaysForEveryRow_WhatTheMatrixAsserts()
    {
        string readme = File.ReadAllText(Path.Combine(RepositoryPaths.Root, "docs", "errors.md"));
        int section = readme.IndexOf("## When your code fails", StringComparison.Ordinal);
        Assert.True(section >= 0, "docs/errors.md has no section \"When your code fails\"");
        string[][] table = readme[section..].Split('\n')
            .SkipWhile(l => !l.StartsWith("| Your code", StringComparison.Ordinal)).Skip(2)
            .TakeWhile(l => l.StartsWith('|'))
            .Select(l => l.Trim().Trim('|').Split('|').Select(c => c.Trim()).ToArray())
            .ToArray();

        foreach (FaultRow row in UserCodeFaultMatrix.Rows)
        {
            string[][] lines = table.Where(cells => cells[0].Contains(ReadmeName(row.Seam), StringComparison.Ordinal) && ReadmePhrases(row.Misbehaviour).Any(p => cells[1].Contains(p, StringComparison.Ordinal))).ToArray();
            string[] line = Assert.Single(lines);
            if (row.IsPublish)
            {
                Assert.Matches(row.Thrown is null ? "^nothing" : $"^`{row.Thrown.Name}` .*from `PublishAsync`$", line[2]);
                Assert.Contains(row.Sent == true ? "sent once" : "nothing sent", line[3], StringComparison.Ordinal);
            }
            else
            {
                Assert.Contains(row.Fate switch { Fate.RetriedThenDeadLettered => "retried after `RetryDelay`, dead-lettered", Fate.Handled => "deleted", _ => "released" }, line[3], StringComparison.Ordinal);
                Assert.StartsWith(row.Reported == true ? "reported" : "not reported", line[4], StringComparison.Ordinal);
                Assert.Equal(row.EventId?.ToString(System.Globalization.CultureInfo.InvariantCulture) ?? "none", line[5]);
            }
        }
    }

    /// <summary>How the README's table names a seam.</summary>
    private static string ReadmeName(Seam seam) => seam switch
    {
        Seam.StringSerializerRead => "`IStringMessageSerializer.Deserialize`",
        Seam.StringSerializerWrite => "`IStringMessageSerializer.Serialize`",
        Seam.ConverterRead => "a converter reading",
        Seam.ConverterWrite => "a converter writing",
        Seam.Handler => "`IMessageHandler<T>`",
        Seam.FallbackHandler => "`IFallbackMessageHandler`",
        Seam.HandleMiddleware => "`IHandleMiddleware`",
        Seam.PublishMiddleware => "`IPublishMiddleware`",
        _ => "`AddFifoIds` selector",
    };

    /// <summary>How the README's table says a misbehaviour (any of these).</summary>
    private static string[] ReadmePhrases(Misbehaviour misbehaviour) => misbehaviour switch
    {
        Misbehaviour.ThrowsItsOwnException => ["throws"],
        Misbehaviour.ThrowsCancellationNotTheHosts => ["throws an `OperationCanceledException`"],
        Misbehaviour.AnswersNull => ["`null`"],
        Misbehaviour.AnswersTheWrongType => ["another type", "not a `HandleOutcome`"],
        Misbehaviour.HangsPastItsTimeout => ["hangs past `UseHandlingTimeout`"],
        Misbehaviour.HangsWithNoTimeout => ["hangs with no timeout"],
        Misbehaviour.ThrowsBeforeNext or Misbehaviour.ThrowsAfterNext => ["throws before or after `nextStep`"],
        Misbehaviour.NeverCallsNext => ["without calling `nextStep`"],
        Misbehaviour.CallsNextTwice => ["calls `nextStep` twice"],
        _ => ["answers an id SQS refuses"],
    };

    [Theory]
    [MemberData(nameof(Received))]
    public async Task TheQueuePoller_OnTheInMemoryBroker(Seam seam, Misbehaviour misbehaviour, Format format, bool logContent)
    {
        FaultRow row = Row(seam, misbehaviour);
        SqsMessage outbound = await OutboundAsync(row.Seam, format);
        var broker = new InMemoryBroker();
        broker.CreateQueue("faults-dlq");
        broker.CreateQueue("faults", o =>
        {
            o.DeadLetterQueue = "faults-dlq";
            o.MaxReceiveCount = 2;
        });
        var log = new CapturingLoggerProvider();
        using IHost host = PumpHost(row, format, logContent, log, "faults", services => services.AddSingleton(broker), bus => bus.UseInMemoryBroker());

        await RunPumpCaseAsync(row, host, broker, "faults", outbound);

        AssertLogged(row, log);
        AssertContent(row, logContent, log, thrown: null);
    }

    [EmulatorTheory]
    [MemberData(nameof(ReceivedOnAws))]
    public async Task TheQueuePoller_OnTheAwsTransport(Seam seam, Misbehaviour misbehaviour, Format format, bool logContent)
    {
        FaultRow row = Row(seam, misbehaviour);
        AwsEmulator emulator = fixture.Emulator;
        SqsMessage outbound = await OutboundAsync(row.Seam, format);
        string queue = AwsTransportSqsTests.NewName("faults");
        await emulator.CreateQueueAsync(queue + "-dlq");
        await emulator.CreateQueueAsync(queue, new()
        {
            ["RedrivePolicy"] = $"{{\"deadLetterTargetArn\":\"{AwsEmulator.QueueArn(queue + "-dlq")}\",\"maxReceiveCount\":\"2\"}}",
        });
        using AwsTransport transport = emulator.CreateTransport();
        var log = new CapturingLoggerProvider();
        using IHost host = PumpHost(row, format, logContent, log, queue, _ => { }, bus => bus.UseAws(emulator.Apply));

        await RunPumpCaseAsync(row, host, transport, queue, outbound);

        AssertLogged(row, log);
        AssertContent(row, logContent, log, thrown: null);
    }

    [Theory]
    [MemberData(nameof(Received))]
    public async Task TheLambdaProcessor(Seam seam, Misbehaviour misbehaviour, Format format, bool logContent)
    {
        FaultRow row = Row(seam, misbehaviour);
        SqsMessage outbound = await OutboundAsync(row.Seam, format);
        var log = new CapturingLoggerProvider();
        var services = new ServiceCollection();
        services.AddLogging(b => b.AddProvider(log));
        services.AddSingleton<Handled>();
        services.AddMessageBus(bus => Receiver(bus, row, format, logContent));
        await using ServiceProvider provider = services.BuildServiceProvider();
        SqsEventProcessor processor = provider.GetRequiredService<SqsEventProcessor>();
        Faults.Reset(row.Seam, row.Misbehaviour);

        // With no timeout, a hung handler runs until the function must stop: the token the function passes says when.
        using var functionStops = new CancellationTokenSource(row.Misbehaviour == Misbehaviour.HangsWithNoTimeout ? TimeSpan.FromMilliseconds(300) : Timeout.InfiniteTimeSpan);
        SqsBatchResponse response = await processor.ProcessAsync(LambdaEvent(outbound), functionStops.Token).WaitAsync(Patience);

        Assert.Equal(row.Reported == true ? ["record-1"] : Array.Empty<string>(), response.BatchItemFailures.Select(f => f.ItemIdentifier));
        Assert.Equal(1, Faults.Calls);
        AssertLogged(row, log);
        AssertContent(row, logContent, log, thrown: null);
    }

    [Theory]
    [MemberData(nameof(Published))]
    public async Task PublishAsync_OnTheInMemoryBroker(Seam seam, Misbehaviour misbehaviour, Format format, bool logContent)
    {
        FaultRow row = Row(seam, misbehaviour);
        var broker = new InMemoryBroker();
        broker.CreateQueue("faults");
        broker.CreateQueue("faults.fifo", o =>
        {
            o.Fifo = true;
            o.ContentBasedDeduplication = true;
        });
        var log = new CapturingLoggerProvider();
        using IHost host = PublishHost(row, format, logContent, log, "faults", services => services.AddSingleton(broker), bus => bus.UseInMemoryBroker());

        await RunPublishCaseAsync(row, host, broker, "faults", logContent, log);
    }

    [EmulatorTheory]
    [MemberData(nameof(PublishedOnAws))]
    public async Task PublishAsync_OnTheAwsTransport(Seam seam, Misbehaviour misbehaviour, Format format, bool logContent)
    {
        FaultRow row = Row(seam, misbehaviour);
        AwsEmulator emulator = fixture.Emulator;
        string queue = AwsTransportSqsTests.NewName("faults-publish");
        await emulator.CreateQueueAsync(queue);
        await emulator.CreateQueueAsync(queue + ".fifo", new() { ["FifoQueue"] = "true", ["ContentBasedDeduplication"] = "true" });
        using AwsTransport transport = emulator.CreateTransport();
        var log = new CapturingLoggerProvider();
        using IHost host = PublishHost(row, format, logContent, log, queue, _ => { }, bus => bus.UseAws(emulator.Apply));

        await RunPublishCaseAsync(row, host, transport, queue, logContent, log);
    }

    private static TheoryData<Seam, Misbehaviour, Format, bool> Cases(bool publish, bool allFormats)
    {
        var cases = new TheoryData<Seam, Misbehaviour, Format, bool>();
        foreach (FaultRow row in UserCodeFaultMatrix.Rows)
        {
            if (row.IsPublish != publish)
            {
                continue;
            }

            foreach (Format format in allFormats && row.IsSerializer ? Enum.GetValues<Format>() : [Format.StandardJson])
            {
                cases.Add(row.Seam, row.Misbehaviour, format, false);
                cases.Add(row.Seam, row.Misbehaviour, format, true);
            }
        }

        return cases;
    }

    private static FaultRow Row(Seam seam, Misbehaviour misbehaviour)
        => UserCodeFaultMatrix.Rows.Single(r => r.Seam == seam && r.Misbehaviour == misbehaviour);

    /// <summary>The bus of the application under test: every seam's code registered, the given format and content logging.</summary>
    private static void Receiver(MessageBusBuilder bus, FaultRow row, Format format, bool logContent)
    {
        bus.AddMessageType<Note>(NoteType, new PipeSerializer())
            .AddMessageType<Parcel>(ParcelType)
            .AddMessageType<FifoNote>(FifoNoteType)
            .ConfigureSerialization(o =>
            {
                o.JsonSerializerContext = FaultJsonContext.Default;
                o.LogMessageContent = logContent;
            })
            .AddHandler<Note, NoteHandler>()
            .AddHandler<Parcel, ParcelHandler>()
            .AddHandler<FifoNote, FifoNoteHandler>()
            .AddFallbackHandler<Fallback>()
            .UseHandleMiddleware<FaultyHandleMiddleware>()
            .UsePublishMiddleware<FaultyPublishMiddleware>()
            .AddFifoIds<FifoNote>(FifoGroup.Of);
        if (format != Format.StandardJson)
        {
            bus.EnableExperimentalFeatures();
        }

        if (row.Misbehaviour == Misbehaviour.HangsPastItsTimeout)
        {
            bus.UseHandlingTimeout(o => o.DefaultTimeout = TimeSpan.FromMilliseconds(300));
        }
    }

    private static IHost PumpHost(FaultRow row, Format format, bool logContent, CapturingLoggerProvider log, string queue, Action<IServiceCollection> services, Action<MessageBusBuilder> transport)
        => Build(log, services, bus =>
        {
            Receiver(bus, row, format, logContent);
            bus.AddQueuePoller(queue, o =>
            {
                o.WaitTime = TimeSpan.FromSeconds(1);
                o.VisibilityTimeout = Visibility;
                o.RetryDelay = RetryDelay;
            });
            transport(bus);
        });

    private static IHost PublishHost(FaultRow row, Format format, bool logContent, CapturingLoggerProvider log, string queue, Action<IServiceCollection> services, Action<MessageBusBuilder> transport)
        => Build(log, services, bus =>
        {
            Receiver(bus, row, format, logContent);
            EnvelopeFormat envelopeFormat = format == Format.Protobuf ? EnvelopeFormat.Protobuf : EnvelopeFormat.Json;
            bus.AddSqsPublisher<Note>(queue, envelopeFormat)
                .AddSqsPublisher<Parcel>(queue, envelopeFormat)
                .AddSqsPublisher<FifoNote>(queue + ".fifo", envelopeFormat);
            transport(bus);
        });

    private static IHost Build(CapturingLoggerProvider log, Action<IServiceCollection> services, Action<MessageBusBuilder> bus)
    {
        HostApplicationBuilder builder = Host.CreateApplicationBuilder();
        builder.Logging.ClearProviders();
        builder.Logging.SetMinimumLevel(LogLevel.Trace);
        builder.Logging.AddProvider(log);
        builder.Services.AddSingleton<Handled>();
        services(builder.Services);
        builder.Services.AddMessageBus(bus);
        return builder.Build();
    }

    /// <summary>
    /// The message the case receives, as another service would have sent it: written by a bus that registers every
    /// type (<see cref="Stray"/> too, which the bus under test does not), in the given format, its data the marker.
    /// </summary>
    private static async Task<SqsMessage> OutboundAsync(Seam seam, Format format)
    {
        Faults.Reset();
        var services = new ServiceCollection();
        services.AddMessageBus(bus =>
        {
            EnvelopeFormat envelopeFormat = format == Format.Protobuf ? EnvelopeFormat.Protobuf : EnvelopeFormat.Json;
            bus.AddMessageType<Note>(NoteType, new PipeSerializer())
                .AddMessageType<Parcel>(ParcelType)
                .AddMessageType<Stray>(StrayType)
                .ConfigureSerialization(o => o.JsonSerializerContext = FaultJsonContext.Default)
                .AddSqsPublisher<Note>("outbox", envelopeFormat)
                .AddSqsPublisher<Parcel>("outbox", envelopeFormat)
                .AddSqsPublisher<Stray>("outbox", envelopeFormat)
                .UseInMemoryBroker(b => b.CreateQueue("outbox"));
            if (format != Format.StandardJson)
            {
                bus.EnableExperimentalFeatures();
            }
        });
        await using ServiceProvider provider = services.BuildServiceProvider();
        IMessagePublisher publisher = provider.GetRequiredService<IMessagePublisher>();
        _ = seam switch
        {
            Seam.ConverterRead => (object)await publisher.PublishAsync(new Parcel { Label = UserCodeFaultMatrix.Marker }),
            Seam.FallbackHandler => await publisher.PublishAsync(new Stray(UserCodeFaultMatrix.Marker)),
            _ => await publisher.PublishAsync(new Note(UserCodeFaultMatrix.Marker)),
        };
        return Assert.Single(await provider.GetRequiredService<InMemoryBroker>().ReceiveAsync("outbox", 10, TimeSpan.Zero));
    }

    /// <summary>Sends the message to the queue the host polls, and checks its fate.</summary>
    private static async Task RunPumpCaseAsync(FaultRow row, IHost host, IMessageTransport transport, string queue, SqsMessage outbound)
    {
        Faults.Reset(row.Seam, row.Misbehaviour);
        await host.StartAsync();
        await transport.SendAsync(new SqsSendRequest { QueueName = queue, Body = outbound.Body, MessageAttributes = outbound.MessageAttributes });
        try
        {
            switch (row.Fate)
            {
                case Fate.RetriedThenDeadLettered:
                    // Failed on both receives the redrive policy allows, RetryDelay apart (the visibility timeout asked
                    // for is far longer than the patience), then moved by the queue, body intact.
                    SqsMessage dead = await TakeAsync(transport, queue + "-dlq");
                    Assert.Equal(outbound.Body, dead.Body);
                    Assert.Equal(2, Faults.Calls);
                    break;
                case Fate.Handled:
                    await BusTestHost.WaitUntil(() => Faults.Calls == 1);
                    await Task.Delay(RetryDelay + TimeSpan.FromSeconds(1)); // long enough for a retry to show up
                    await host.StopAsync();
                    Assert.Equal(1, Faults.Calls);
                    Assert.Empty(await transport.ReceiveAsync(queue, 10, TimeSpan.Zero));
                    Assert.Empty(await transport.ReceiveAsync(queue + "-dlq", 10, TimeSpan.Zero));
                    break;
                case Fate.ReleasedOnShutdown:
                    await BusTestHost.WaitUntil(() => Faults.Calls == 1);
                    await host.StopAsync().WaitAsync(Patience);

                    // Visible again at once: received from the queue, or from its dead-letter queue when that receive
                    // is past the redrive limit (on SQS, the receive under way at shutdown may have been given it too,
                    // and released it).
                    SqsMessage released = await TakeAsync(transport, queue, queue + "-dlq");
                    Assert.Equal(outbound.Body, released.Body);
                    break;
                default:
                    throw new InvalidOperationException($"No fate for {row}.");
            }
        }
        finally
        {
            await host.StopAsync();
        }
    }

    /// <summary>Publishes the seam's message with the host's publisher, and checks the exception and what was sent.</summary>
    private static async Task RunPublishCaseAsync(FaultRow row, IHost host, IMessageTransport transport, string queue, bool logContent, CapturingLoggerProvider log)
    {
        await host.StartAsync();
        IMessagePublisher publisher = host.Services.GetRequiredService<IMessagePublisher>();
        Faults.Reset(row.Seam, row.Misbehaviour);

        Exception? thrown = await Record.ExceptionAsync(() => row.Seam switch
        {
            Seam.ConverterWrite => publisher.PublishAsync(new Parcel { Label = UserCodeFaultMatrix.Marker }),
            Seam.FifoIdSelector => publisher.PublishAsync(new FifoNote(UserCodeFaultMatrix.Marker)),
            _ => publisher.PublishAsync(new Note(UserCodeFaultMatrix.Marker)),
        });
        await host.StopAsync();

        Assert.Equal(1, Faults.Calls);
        if (row.Thrown is null)
        {
            Assert.Null(thrown);
        }
        else
        {
            Assert.IsType(row.Thrown, thrown);
            switch (thrown)
            {
                case InvalidEnvelopeException invalid:
                    Assert.Equal(InvalidEnvelopeReason.InvalidData, invalid.Reason);
                    break;
                case UserCodeException user:
                    Assert.Equal(ThrownType(row.Misbehaviour), user.UserExceptionType);
                    break;
            }

            // The application's exception is attached only when content may be shown.
            Assert.Equal(logContent && row.CarriesMarker, thrown!.InnerException is not null);
        }

        string destination = row.Seam == Seam.FifoIdSelector ? queue + ".fifo" : queue;
        IReadOnlyList<SqsMessage> sent = await transport.ReceiveAsync(destination, 10, TimeSpan.FromMilliseconds(500));
        Assert.Equal(row.Sent == true ? 1 : 0, sent.Count);
        AssertContent(row, logContent, log, thrown);
    }

    /// <summary>The type a <see cref="UserCodeException"/> names for the misbehaviour, or <c>null</c> when the code threw nothing.</summary>
    private static string? ThrownType(Misbehaviour misbehaviour) => misbehaviour switch
    {
        Misbehaviour.ThrowsCancellationNotTheHosts => typeof(OperationCanceledException).FullName,
        Misbehaviour.ThrowsItsOwnException or Misbehaviour.ThrowsBeforeNext or Misbehaviour.ThrowsAfterNext => typeof(PipeFormatException).FullName,
        _ => null,
    };

    /// <summary>The row's event id is logged, and no other event that says what became of a message.</summary>
    private static void AssertLogged(FaultRow row, CapturingLoggerProvider log)
    {
        HashSet<int> logged = log.EventIds;
        if (row.EventId is int expected)
        {
            Assert.Contains(expected, logged);
        }

        foreach (int other in FateEvents)
        {
            if (other != row.EventId)
            {
                Assert.DoesNotContain(other, logged);
            }
        }
    }

    /// <summary>The marker is in no log line and no exception with content logging off; with it on, the application's exception carries it through.</summary>
    private static void AssertContent(FaultRow row, bool logContent, CapturingLoggerProvider log, Exception? thrown)
    {
        var texts = new List<string>(log.Messages);
        if (thrown is not null)
        {
            texts.Add(thrown.ToString());
        }

        if (!logContent)
        {
            Assert.DoesNotContain(texts, t => t.Contains(UserCodeFaultMatrix.Marker, StringComparison.Ordinal));
        }
        else if (row.CarriesMarker)
        {
            Assert.Contains(texts, t => t.Contains(UserCodeFaultMatrix.Marker, StringComparison.Ordinal));
        }
    }

    /// <summary>Receives a message from the first of the queues that has one, within the patience.</summary>
    private static async Task<SqsMessage> TakeAsync(IMessageTransport transport, params string[] queues)
    {
        var watch = System.Diagnostics.Stopwatch.StartNew();
        while (watch.Elapsed < Patience)
        {
            foreach (string queue in queues)
            {
                IReadOnlyList<SqsMessage> messages = await transport.ReceiveAsync(queue, 1, TimeSpan.FromMilliseconds(500));
                if (messages.Count > 0)
                {
                    return messages[0];
                }
            }
        }

        throw new TimeoutException($"No message reached {string.Join(" or ", queues)} within {Patience}.");
    }

    /// <summary>An SQS event of one record holding the message, as Lambda delivers it (https://docs.aws.amazon.com/lambda/latest/dg/with-sqs.html).</summary>
    private static byte[] LambdaEvent(SqsMessage message)
    {
        var attributes = new JsonObject();
        foreach ((string name, MessageAttributeValue value) in message.MessageAttributes)
        {
            attributes[name] = value.IsBinary
                ? new JsonObject { ["binaryValue"] = Convert.ToBase64String(value.BinaryValue.Span), ["stringListValues"] = new JsonArray(), ["binaryListValues"] = new JsonArray(), ["dataType"] = value.DataType }
                : new JsonObject { ["stringValue"] = value.StringValue, ["stringListValues"] = new JsonArray(), ["binaryListValues"] = new JsonArray(), ["dataType"] = value.DataType };
        }

        var record = new JsonObject
        {
            ["messageId"] = "record-1",
            ["receiptHandle"] = "AQEBrecord-1",
            ["body"] = message.Body,
            ["attributes"] = new JsonObject
            {
                ["ApproximateReceiveCount"] = "1",
                ["SentTimestamp"] = "1545082649183",
                ["SenderId"] = "AIDAIENQZJOLO23YVJ4VO",
                ["ApproximateFirstReceiveTimestamp"] = "1545082649185",
            },
            ["messageAttributes"] = attributes,
            ["md5OfBody"] = "e4e68fb7bd0e697a0ae8f1bb342846b3",
            ["eventSource"] = "aws:sqs",
            ["eventSourceARN"] = "arn:aws:sqs:us-east-2:123456789012:faults",
            ["awsRegion"] = "us-east-2",
        };
        return Encoding.UTF8.GetBytes(new JsonObject { ["Records"] = new JsonArray(record) }.ToJsonString());
    }
}
