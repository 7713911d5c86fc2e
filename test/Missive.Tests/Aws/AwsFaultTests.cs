using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Diagnostics;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Missive.Aws;
using Missive.Bus;
using Missive.Tests.Infrastructure;
using Missive.Transport;
using Xunit.Abstractions;

namespace Missive.Tests.Aws;

/// <summary>
/// The proxy in front of fauxqs injects server errors, throttling, dropped connections (before the request reaches SQS),
/// lost answers (after it took effect), delays past the attempt timeout (the request still takes effect) and corrupted
/// digests, spread through sends, receives, deletes and visibility changes. Nothing published or received may be lost,
/// and every duplicate delivery must have a known cause: a send that took effect more than once (its answer was lost
/// or came too late, and the client sent it again: the proxy counts what fauxqs accepted), a delete that failed, or a
/// visibility that lapsed before the delete. The causes are counted per message and must cover every duplicate.
/// </summary>
[Collection(AwsEmulatorCollection.Name)]
public sealed class AwsFaultTests(AwsEmulatorFixture fixture, ITestOutputHelper output)
{
    private const int Messages = 200;
    private static readonly TimeSpan QueueVisibility = TimeSpan.FromSeconds(2);

    private AwsEmulator Emulator => fixture.Emulator;

    [EmulatorTheory]
    [InlineData(AwsTransportSqsTests.BuiltIn)]
    [InlineData(AwsTransportSqsTests.Sdk)] // the SDK's own retries (five attempts, a one-second timeout), the same promises
    public async Task UnderInjectedFaults_NothingIsLost_AndEveryDuplicateHasAKnownCause(string client)
    {
        string queue = AwsTransportSqsTests.NewName("faults");
        await Emulator.CreateQueueAsync(queue, new() { ["VisibilityTimeout"] = ((int)QueueVisibility.TotalSeconds).ToString(System.Globalization.CultureInfo.InvariantCulture) });
        // Five attempts and a short backoff cap keep the run quick; the classification and backoff are the standard ones.
        using AwsTransport transport = Emulator.CreateTransport(o =>
        {
            o.MaxAttempts = 5;
            o.MaxBackoff = TimeSpan.FromMilliseconds(200);
            o.AttemptTimeout = TimeSpan.FromSeconds(1);
            o.SqsClient = client == AwsTransportSqsTests.Sdk ? Emulator.CreateSqsClient(maxErrorRetry: 4, timeout: TimeSpan.FromSeconds(1)) : null;
        });
        await transport.GetQueueUrlAsync(queue);
        await Emulator.ResetAsync();
        Fault[] faults =
        [
            new("status", 12, Status: 500, Match: "SendMessage", Every: 7),
            new("status", 6, Status: 503, Code: "ServiceUnavailable", Match: "SendMessage", Every: 11),
            new("throttle", 10, Code: "RequestThrottled", Match: "SendMessage", Every: 5),
            new("drop", 8, Match: "SendMessage", Every: 13),
            new("dropResponse", 5, Match: "SendMessage", Every: 17),
            new("delay", 4, DelayMs: 1200, Match: "SendMessage", Every: 19),
            new("status", 4, Status: 500, Match: "ReceiveMessage", Every: 3),
            new("dropResponse", 2, Match: "ReceiveMessage", Every: 5),
            new("drop", 6, Match: "DeleteMessage", Every: 9),
            new("dropResponse", 4, Match: "DeleteMessage", Every: 7),
        ];
        int scheduled = faults.Sum(f => f.Count);
        await Emulator.SetFaultsAsync(faults);

        var sendFailures = new List<string>();
        for (int i = 0; i < Messages; i++)
        {
            try
            {
                await transport.SendAsync(new SqsSendRequest { QueueName = queue, Body = $"message-{i}" });
            }
            catch (MessageTransportException e)
            {
                sendFailures.Add($"message-{i}: {e.ErrorCode}");
            }
        }

        var deliveries = new Dictionary<string, int>(StringComparer.Ordinal);
        var causes = new Causes();
        int receiveFailures = 0, emptyRounds = 0;
        DateTime deadline = DateTime.UtcNow.AddSeconds(60);
        while (DateTime.UtcNow < deadline && (deliveries.Count < Messages - sendFailures.Count || emptyRounds < 3))
        {
            IReadOnlyList<SqsMessage> batch;
            try
            {
                batch = await transport.ReceiveAsync(queue, 10, TimeSpan.FromSeconds(1));
            }
            catch (MessageTransportException)
            {
                receiveFailures++;
                continue;
            }

            var received = Stopwatch.StartNew();
            emptyRounds = batch.Count == 0 ? emptyRounds + 1 : 0;
            foreach (SqsMessage message in batch)
            {
                deliveries[message.Body] = deliveries.GetValueOrDefault(message.Body) + 1;
                try
                {
                    if (!await transport.DeleteAsync(queue, message.ReceiptHandle))
                    {
                        causes.Add("lapsed visibility", message.Body); // the receipt was no longer current: it came back
                    }
                    else if (received.Elapsed >= QueueVisibility)
                    {
                        causes.Add("lapsed visibility", message.Body); // deleted, but visible again (and maybe received) first
                    }
                }
                catch (MessageTransportException)
                {
                    causes.Add("failed delete", message.Body); // it comes back after its visibility timeout
                }
            }
        }

        foreach ((string body, int count) in await Emulator.SentAsync())
        {
            for (int extra = 1; extra < count; extra++)
            {
                causes.Add("send that took effect twice", body);
            }
        }

        ProxyStats stats = await Emulator.StatsAsync();
        int duplicates = deliveries.Values.Sum() - deliveries.Count;
        output.WriteLine($"{Messages} sent; {sendFailures.Count} sends failed for good; {deliveries.Count} distinct received; {duplicates} duplicate deliveries; "
            + $"causes: {causes}; {stats.Faults} of {scheduled} scheduled faults injected; {receiveFailures} receives failed after retries; "
            + $"{stats.Verified} requests verified, {stats.Rejected} signatures rejected; retry quota left {transport.Retry.Quota}.");

        Assert.Empty(sendFailures);
        Assert.Equal(Enumerable.Range(0, Messages).Select(i => $"message-{i}").Order(), deliveries.Keys.Order());
        Assert.Equal(0, stats.Rejected);
        Assert.Equal(scheduled, stats.Faults);
        causes.AssertExplain(deliveries);
        await Emulator.ResetAsync();
    }

    [EmulatorTheory]
    [InlineData(false, AwsTransportSqsTests.BuiltIn)]
    [InlineData(true, AwsTransportSqsTests.BuiltIn)]
    [InlineData(true, AwsTransportSqsTests.Sdk)]
    public async Task TheBusUnderInjectedFaults_HandlesEverything_AndEveryDuplicateHasAKnownCause(bool batch, string client)
    {
        const int Orders = 300;
        string queue = AwsTransportSqsTests.NewName("bus-faults");
        await Emulator.CreateQueueAsync(queue);
        var journal = new Journal();
        var log = new EventLog();
        HostApplicationBuilder builder = Host.CreateApplicationBuilder();
        builder.Logging.ClearProviders();
        builder.Logging.AddProvider(log);
        builder.Logging.SetMinimumLevel(LogLevel.Information);
        builder.Services.AddSingleton(journal);
        builder.Services.AddMessageBus(bus => bus
            .AddMessageType<Order>(TestSerializers.OrderType)
            .ConfigureSerialization(o => o.JsonSerializerContext = TestJsonContext.Default)
            .AddSqsPublisher<Order>(queue)
            .AddHandler<Order, JournalHandler>()
            .AddQueuePoller(queue, o =>
            {
                o.WaitTime = TimeSpan.FromSeconds(1);
                o.VisibilityTimeout = TimeSpan.FromSeconds(4);
                o.ReceiveErrorDelay = TimeSpan.FromMilliseconds(50);
            })
            .UseAws(o =>
            {
                Emulator.Apply(o);
                o.MaxAttempts = 4;
                o.MaxBackoff = TimeSpan.FromMilliseconds(200);
                o.AttemptTimeout = TimeSpan.FromSeconds(1);
                o.SqsClient = client == AwsTransportSqsTests.Sdk ? Emulator.CreateSqsClient(maxErrorRetry: 3, timeout: TimeSpan.FromSeconds(1)) : null;
            }));
        using IHost host = builder.Build();
        AwsTransport transport = host.Services.GetRequiredService<AwsTransport>();
        await transport.GetQueueUrlAsync(queue);
        await Emulator.ResetAsync();
        await Emulator.SetFaultsAsync(
            new("status", 20, Status: 500, Match: "SendMessage", Every: 9),
            new("dropResponse", 6, Match: "SendMessage", Every: 23),
            new("delay", 3, DelayMs: 1300, Match: "SendMessage", Every: 41),
            new("status", 6, Status: 500, Match: "SendMessageBatch", Every: 3), // the batch publishes' calls
            new("dropResponse", 3, Match: "SendMessageBatch", Every: 5),
            new("status", 6, Status: 503, Code: "ServiceUnavailable", Match: "ReceiveMessage", Every: 4),
            new("dropResponse", 3, Match: "ReceiveMessage", Every: 7),
            new("status", 6, Status: 500, Match: "DeleteMessageBatch", Every: 3),
            new("drop", 3, Match: "DeleteMessageBatch", Every: 5),
            new("dropResponse", 3, Match: "DeleteMessageBatch", Every: 4),
            new("status", 4, Status: 500, Match: "ChangeMessageVisibilityBatch", Every: 2));
        IMessagePublisher publisher = host.Services.GetRequiredService<IMessagePublisher>();
        var all = new List<Order>(Orders);
        for (int i = 0; i < Orders; i++)
        {
            Order order = Infrastructure.Orders.Create(1);
            order.OrderId = $"order-{i}";
            all.Add(order);
        }

        if (batch)
        {
            // In batch publishes of 50 (SendMessageBatch calls of 10, faults injected into them too); an entry reported
            // failed is published again, as an application would: none reported sent may be missing at the end.
            for (int start = 0; start < Orders; start += 50)
            {
                foreach (PublishResult<Order> result in await publisher.PublishBatchAsync(all.GetRange(start, 50)))
                {
                    if (!result.Succeeded)
                    {
                        await publisher.PublishAsync(result.Message);
                    }
                }
            }
        }
        else
        {
            foreach (Order order in all)
            {
                await publisher.PublishAsync(order);
            }
        }

        await host.StartAsync();
        var watch = Stopwatch.StartNew();
        while (journal.Distinct < Orders && watch.Elapsed < TimeSpan.FromSeconds(90))
        {
            await Task.Delay(50);
        }

        await Task.Delay(TimeSpan.FromSeconds(6)); // past a visibility timeout: a duplicate still to come shows now
        await host.StopAsync();

        // Causes, by message id (a redelivery) and by body (a send that took effect twice made a second message).
        var causes = new Causes();
        foreach ((string body, int count) in await Emulator.SentAsync())
        {
            for (int extra = 1; extra < count; extra++)
            {
                causes.Add("send that took effect twice", journal.OrderIdOfBody(body));
            }
        }

        foreach (string id in log.MessageIds(2006).Concat(log.MessageIds(2009)))
        {
            causes.Add("failed delete", journal.OrderIdOf(id));
        }

        foreach (string id in log.MessageIds(2010).Concat(log.MessageIds(2011)))
        {
            causes.Add("lapsed visibility", journal.OrderIdOf(id));
        }

        Dictionary<string, int> deliveries = journal.DeliveriesByOrder();
        int duplicates = deliveries.Values.Sum() - deliveries.Count;
        ProxyStats stats = await Emulator.StatsAsync();
        output.WriteLine($"{Orders} published; {deliveries.Count} distinct handled; {duplicates} duplicate deliveries; causes: {causes}; "
            + $"{stats.Faults} faults injected; {stats.Rejected} signatures rejected.");

        Assert.Equal(Enumerable.Range(0, Orders).Select(i => $"order-{i}").Order(), deliveries.Keys.Order());
        Assert.Equal(0, stats.Rejected);
        causes.AssertExplain(deliveries);
        await Emulator.ResetAsync();
    }

    [EmulatorFact]
    public async Task OneMessageWhoseDigestIsAlwaysWrong_IsDeadLetteredAlone_AndTheOthersAreHandled()
    {
        const int Healthy = 30;
        string queue = AwsTransportSqsTests.NewName("bad-digest");
        await Emulator.CreateQueueAsync(queue + "-dlq");
        await Emulator.CreateQueueAsync(queue, new()
        {
            ["RedrivePolicy"] = $"{{\"deadLetterTargetArn\":\"{AwsEmulator.QueueArn(queue + "-dlq")}\",\"maxReceiveCount\":\"3\"}}",
        });
        var journal = new Journal();
        HostApplicationBuilder builder = Host.CreateApplicationBuilder();
        builder.Logging.ClearProviders();
        builder.Services.AddSingleton(journal);
        builder.Services.AddMessageBus(bus => bus
            .AddMessageType<Order>(TestSerializers.OrderType)
            .ConfigureSerialization(o => o.JsonSerializerContext = TestJsonContext.Default)
            .AddSqsPublisher<Order>(queue)
            .AddHandler<Order, JournalHandler>()
            .AddQueuePoller(queue, o =>
            {
                o.WaitTime = TimeSpan.FromSeconds(1);
                o.VisibilityTimeout = TimeSpan.FromSeconds(2);
            })
            .UseAws(Emulator.Apply));
        using IHost host = builder.Build();
        IMessagePublisher publisher = host.Services.GetRequiredService<IMessagePublisher>();
        for (int i = 0; i <= Healthy; i++)
        {
            Order order = Infrastructure.Orders.Create(1);
            order.OrderId = i == Healthy / 2 ? "poison-digest" : $"order-{i}";
            await publisher.PublishAsync(order);
        }

        await Emulator.SetFaultsAsync(new Fault("corruptBodyDigest", int.MaxValue, BodyContains: "poison-digest"));
        await host.StartAsync();
        using AwsTransport inspector = Emulator.CreateTransport(o => o.VerifyMessageDigests = false);
        var watch = Stopwatch.StartNew();
        IReadOnlyList<SqsMessage> deadLettered = [];
        while (deadLettered.Count == 0 && watch.Elapsed < TimeSpan.FromSeconds(45))
        {
            deadLettered = await inspector.ReceiveAsync(queue + "-dlq", 10, TimeSpan.FromSeconds(1));
        }

        await host.StopAsync();
        await Emulator.ResetAsync();

        Assert.Equal(Healthy, journal.Distinct);
        Assert.DoesNotContain("poison-digest", journal.DeliveriesByOrder().Keys);
        Assert.Contains("poison-digest", Assert.Single(deadLettered).Body, StringComparison.Ordinal);
    }

    /// <summary>Known causes of a second delivery, counted per message.</summary>
    private sealed class Causes
    {
        private readonly Dictionary<string, Dictionary<string, int>> _byMessage = new(StringComparer.Ordinal);
        private readonly Dictionary<string, int> _totals = new(StringComparer.Ordinal);

        public void Add(string cause, string? message)
        {
            if (message is null)
            {
                return;
            }

            Dictionary<string, int> counts = _byMessage.TryGetValue(message, out Dictionary<string, int>? found) ? found : _byMessage[message] = new(StringComparer.Ordinal);
            counts[cause] = counts.GetValueOrDefault(cause) + 1;
            _totals[cause] = _totals.GetValueOrDefault(cause) + 1;
        }

        /// <summary>Every message delivered more than once has at least as many causes as extra deliveries.</summary>
        public void AssertExplain(Dictionary<string, int> deliveries)
        {
            var unexplained = new List<string>();
            foreach ((string message, int count) in deliveries)
            {
                int explained = _byMessage.TryGetValue(message, out Dictionary<string, int>? counts) ? counts.Values.Sum() : 0;
                if (count - 1 > explained)
                {
                    unexplained.Add($"{message} delivered {count} times, {explained} causes known");
                }
            }

            Assert.True(unexplained.Count == 0, "duplicates without a known cause: " + string.Join("; ", unexplained));
        }

        public override string ToString() => _totals.Count == 0 ? "none" : string.Join(", ", _totals.OrderBy(t => t.Key, StringComparer.Ordinal).Select(t => $"{t.Value} {t.Key}"));
    }

    /// <summary>Every handling, by order id, with the SQS message id and the body it came in.</summary>
    public sealed class Journal
    {
        private readonly ConcurrentQueue<(string OrderId, string MessageId)> _handled = new();
        private readonly ConcurrentDictionary<string, string> _orderOfMessage = new(StringComparer.Ordinal);

        public int Distinct => _handled.Select(h => h.OrderId).Distinct().Count();

        public void Add(string orderId, string messageId)
        {
            _handled.Enqueue((orderId, messageId));
            _orderOfMessage[messageId] = orderId;
        }

        public Dictionary<string, int> DeliveriesByOrder()
        {
            var counts = new Dictionary<string, int>(StringComparer.Ordinal);
            foreach ((string orderId, _) in _handled)
            {
                counts[orderId] = counts.GetValueOrDefault(orderId) + 1;
            }

            return counts;
        }

        public string? OrderIdOf(string messageId) => _orderOfMessage.TryGetValue(messageId, out string? order) ? order : null;

        /// <summary>The order id in a raw envelope body (the data's OrderId).</summary>
        public string? OrderIdOfBody(string body)
        {
            const string Marker = "\"OrderId\":\"";
            int start = body.IndexOf(Marker, StringComparison.Ordinal);
            return start < 0 ? null : body[(start + Marker.Length)..body.IndexOf('"', start + Marker.Length)];
        }
    }

    public sealed class JournalHandler(Journal journal) : IMessageHandler<Order>
    {
        public Task HandleAsync(MessageEnvelope<Order> envelope, CancellationToken cancellationToken)
        {
            journal.Add(envelope.Message.OrderId, envelope.SqsMetadata!.MessageId);
            return Task.CompletedTask;
        }
    }

    /// <summary>Keeps the message ids each log event names (<c>MessageId</c>, or the comma-separated <c>MessageIds</c>).</summary>
    private sealed class EventLog : ILoggerProvider, ILogger
    {
        private readonly ConcurrentQueue<(int EventId, string MessageIds)> _events = new();

        public IEnumerable<string> MessageIds(int eventId)
            => _events.Where(e => e.EventId == eventId).SelectMany(e => e.MessageIds.Split(',', StringSplitOptions.RemoveEmptyEntries));

        public ILogger CreateLogger(string categoryName) => this;

        public void Dispose()
        {
        }

        public IDisposable? BeginScope<TState>(TState state)
            where TState : notnull => null;

        public bool IsEnabled(LogLevel logLevel) => true;

        public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
        {
            if (state is IReadOnlyList<KeyValuePair<string, object?>> values)
            {
                foreach ((string key, object? value) in values)
                {
                    if (key is "MessageId" or "MessageIds" && value is string ids)
                    {
                        _events.Enqueue((eventId.Id, ids));
                    }
                }
            }
        }
    }
}
