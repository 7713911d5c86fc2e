using System;
using System.Collections.Generic;
using System.Linq;
using System.Text;
using System.Text.Json;
using System.Text.Json.Nodes;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Time.Testing;
using Missive.Bus;
using Missive.InMemory;
using Missive.Offload;
using Missive.Tests.Infrastructure;
using Missive.Transport;

namespace Missive.Tests.Offload;

/// <summary>
/// The claim check where it meets the rest of the bus: the receipt handle a handler sees, payload deletes apart from
/// the delete call's deadline, a stop while a payload is fetched, failures of a store's own code and of stored data
/// that does not fit, and a rebuilt SNS notification's size.
/// </summary>
public sealed class ClaimCheckEdgeTests
{
    private static readonly string Large = new('x', 1536 * 1024); // over SQS's 1 MiB: stored

    [Fact]
    public async Task WithDeleteAfterHandling_TheHandlerSeesTheReceiptHandleSqsIssued()
    {
        var store = new InMemoryPayloadStore();
        var handled = new PayloadOffloadTests.Handled();
        using IHost host = PayloadOffloadTests.Build(store, handled, "sqs", o => o.DeleteAfterHandling = true);
        InMemoryBroker broker = host.Services.GetRequiredService<InMemoryBroker>();

        await host.Services.GetRequiredService<IMessagePublisher>().PublishAsync(Large);
        await host.StartAsync();
        await BusTestHost.WaitUntil(() => handled.Messages.Count == 1 && broker.GetQueue("docs").Count == 0 && store.Count == 0);
        await host.StopAsync();

        string handle = Assert.Single(handled.ReceiptHandles);
        Assert.DoesNotContain("s3BucketName", handle, StringComparison.Ordinal);
        Assert.DoesNotContain("s3Key", handle, StringComparison.Ordinal);
        Assert.Matches("^[A-Za-z0-9+/=]+:[0-9a-f-]{36}$", handle); // the in-memory queue's own form: a nonce and the message id
    }

    [Fact]
    public void SqsReceiptHandle_StripsTheLocation_AndLeavesAPlainHandleAlone()
    {
        const string marked = "-..s3BucketName..-missive-payloads-..s3BucketName..--..s3Key..-0b1d6ef0-1d0e-4bd2-9d34-1a7dc8e5b3a4-..s3Key..-AQEBzWwaftRI0KuVm4tP+/7q1rGg==";

        Assert.Equal("AQEBzWwaftRI0KuVm4tP+/7q1rGg==", PayloadLocation.SqsReceiptHandle(marked));
        Assert.Equal("AQEBzWwaftRI0KuVm4tP+/7q1rGg==", PayloadLocation.SqsReceiptHandle("AQEBzWwaftRI0KuVm4tP+/7q1rGg=="));
        Assert.Equal("-..s3BucketName..-only-a-bucket", PayloadLocation.SqsReceiptHandle("-..s3BucketName..-only-a-bucket")); // not the format: left as it is
    }

    [Fact]
    public async Task PayloadDeletes_FollowTheDeleteCall_AndItsCancellationDoesNotCutThemShort()
    {
        var broker = new InMemoryBroker();
        broker.CreateQueue("docs");
        var store = new GatedStore();
        var transport = new PayloadOffloadingTransport(broker, store, new PayloadOffloadOptions { DeleteAfterHandling = true, OffloadAll = true }, Microsoft.Extensions.Logging.Abstractions.NullLogger.Instance);
        await transport.SendAsync(new SqsSendRequest { QueueName = "docs", Body = "{\"n\":1}" });
        await transport.SendAsync(new SqsSendRequest { QueueName = "docs", Body = "{\"n\":2}" });
        IReadOnlyList<SqsMessage> received = await transport.ReceiveAsync("docs", 10, TimeSpan.Zero);
        Assert.Equal(2, received.Count);

        using var call = new CancellationTokenSource();
        IReadOnlyList<BatchEntryResult> results = await transport.DeleteBatchAsync("docs", [.. received.Select(m => m.ReceiptHandle)], call.Token).WaitAsync(BusTestHost.Patience);

        Assert.All(results, r => Assert.True(r.Succeeded)); // SQS's answer came back while the store's deletes wait
        Assert.Equal(0, broker.GetQueue("docs").Count);
        Assert.Equal(2, store.Inner.Count);
        call.Cancel(); // the call's deadline passing now takes nothing from the payload deletes
        store.Open();
        await BusTestHost.WaitUntil(() => transport.PayloadDeletesUnderWay == 0);
        Assert.Equal(0, store.Inner.Count);
    }

    [Fact]
    public async Task APayloadDeleteThatHangs_EndsAtItsOwnDeadline_AndIsLogged()
    {
        var broker = new InMemoryBroker();
        broker.CreateQueue("docs");
        var store = new GatedStore();
        var clock = new FakeTimeProvider();
        var logs = new CapturingLoggerProvider();
        var transport = new PayloadOffloadingTransport(broker, store, new PayloadOffloadOptions { DeleteAfterHandling = true, OffloadAll = true }, logs.CreateLogger("offload"), clock);
        await transport.SendAsync(new SqsSendRequest { QueueName = "docs", Body = "{\"n\":1}" });
        SqsMessage message = Assert.Single(await transport.ReceiveAsync("docs", 10, TimeSpan.Zero));

        Assert.True(await transport.DeleteAsync("docs", message.ReceiptHandle).WaitAsync(BusTestHost.Patience));
        await clock.AdvanceUntil(() => transport.PayloadDeletesUnderWay == 0, step: TimeSpan.FromSeconds(1), limit: PayloadOffloadingTransport.PayloadDeleteDeadline + TimeSpan.FromSeconds(2));

        Assert.True(clock.GetUtcNow() - clock.Start >= PayloadOffloadingTransport.PayloadDeleteDeadline - TimeSpan.FromSeconds(1));
        string line = Assert.Single(logs.Entries, e => e.EventId == 2200).Text;
        Assert.Contains("DeadlineExceeded", line, StringComparison.Ordinal);
        Assert.Equal(1, store.Inner.Count); // left for the bucket's lifecycle rule
    }

    [Fact]
    public async Task AStopWhileAPayloadIsFetched_ReleasesTheMessage_AtOnce()
    {
        var store = new HangingFetchStore();
        var handled = new PayloadOffloadTests.Handled();
        using IHost host = PayloadOffloadTests.Build(store, handled, "sqs");
        InMemoryBroker broker = host.Services.GetRequiredService<InMemoryBroker>();
        await host.Services.GetRequiredService<IMessagePublisher>().PublishAsync(Large);

        await host.StartAsync();
        await BusTestHost.WaitUntil(() => store.Fetching);
        await host.StopAsync().WaitAsync(BusTestHost.Patience);

        Assert.Empty(handled.Messages);
        Assert.Single(await broker.ReceiveAsync("docs", 10, TimeSpan.Zero)); // released, not left to its visibility timeout
    }

    [Fact]
    public async Task AStoreThatThrowsSomethingElse_MakesTheMessageUnreadable_NotAProcessingFailure()
    {
        var store = new ThrowingFetchStore();
        var handled = new PayloadOffloadTests.Handled();
        var logs = new CapturingLoggerProvider();
        using IHost host = PayloadOffloadTests.Build(store, handled, "sqs", logs: logs);
        InMemoryBroker broker = host.Services.GetRequiredService<InMemoryBroker>();
        await host.Services.GetRequiredService<IMessagePublisher>().PublishAsync(Large);

        await host.StartAsync();
        await BusTestHost.WaitUntil(() => broker.GetQueue("docs-dlq").Count == 1);
        await host.StopAsync();

        Assert.Empty(handled.Messages);
        Assert.DoesNotContain(2008, logs.EventIds);
        string line = logs.Entries.First(e => e.EventId == 2001).Text;
        Assert.Contains("PayloadUnavailable", line, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("application/json", "{not json")] // JSON data goes back as JSON: it must be JSON
    [InlineData("text/plain", "\xC3(")] // text data goes back as a JSON string: it must be UTF-8
    public async Task StoredDataThatDoesNotFitItsEnvelope_IsAPayloadUnavailable(string contentType, string stored)
    {
        var store = new InMemoryPayloadStore();
        var location = new PayloadLocation(store.Bucket, "0b1d6ef0-1d0e-4bd2-9d34-1a7dc8e5b3a4");
        store.Put(location, stored.Select(c => (byte)c).ToArray());
        string envelope = $"{{\"specversion\":\"1.0\",\"id\":\"1\",\"source\":\"/docs\",\"type\":\"test.document\",\"datacontenttype\":\"{contentType}\",\"dataref\":\"s3://{location.Bucket}/{location.Key}\"}}";
        var resolver = new PayloadResolver(store, new PayloadOffloadOptions());

        var error = await Assert.ThrowsAsync<InvalidEnvelopeException>(() => resolver.ResolveAsync(new SqsMessage { MessageId = "m-1", ReceiptHandle = "r-1", Body = envelope }));

        Assert.Equal(InvalidEnvelopeReason.PayloadUnavailable, error.Reason);
        Assert.DoesNotContain("not json", error.ToString(), StringComparison.Ordinal); // the stored data stays out of the error
    }

    [Fact]
    public async Task StoredTextThatIsNotUtf8_InAWrappedNotification_IsAPayloadUnavailable()
    {
        var store = new InMemoryPayloadStore();
        var location = new PayloadLocation(store.Bucket, "0b1d6ef0-1d0e-4bd2-9d34-1a7dc8e5b3a4");
        store.Put(location, [0x7b, 0xc3, 0x28, 0x7d]); // '{', a lead byte without its continuation, '(', '}'
        var resolver = new PayloadResolver(store, new PayloadOffloadOptions());

        var error = await Assert.ThrowsAsync<InvalidEnvelopeException>(() => resolver.ResolveAsync(Notification(location)));

        Assert.Equal(InvalidEnvelopeReason.PayloadUnavailable, error.Reason);
    }

    [Fact]
    public async Task ARebuiltNotification_EscapesOnlyWhatJsonRequires()
    {
        // Quotes and non-ASCII text, which the default JSON encoder writes as six bytes each.
        string envelope = "{\"specversion\":\"1.0\",\"data\":\"" + string.Concat(Enumerable.Repeat("\\\"é€😀\\\"", 2000)) + "\"}";
        byte[] payload = Encoding.UTF8.GetBytes(envelope);
        var store = new InMemoryPayloadStore();
        var location = new PayloadLocation(store.Bucket, "0b1d6ef0-1d0e-4bd2-9d34-1a7dc8e5b3a4");
        store.Put(location, payload);
        SqsMessage wrapped = Notification(location);

        SqsMessage resolved = await new PayloadResolver(store, new PayloadOffloadOptions()).ResolveAsync(wrapped);

        using JsonDocument rebuilt = JsonDocument.Parse(resolved.Utf8Body);
        Assert.Equal(envelope, rebuilt.RootElement.GetProperty("Message").GetString());
        Assert.True(resolved.Utf8Length <= (2 * payload.Length) + wrapped.Utf8Length, $"{resolved.Utf8Length} bytes for a payload of {payload.Length}");
        Assert.False(rebuilt.RootElement.GetProperty("MessageAttributes").TryGetProperty(PayloadPointer.SizeAttribute, out _));
    }

    /// <summary>A wrapped SNS notification whose <c>Message</c> is a pointer to <paramref name="location"/>, marked in its own attributes.</summary>
    private static SqsMessage Notification(PayloadLocation location)
    {
        var notification = new JsonObject
        {
            ["Type"] = "Notification",
            ["MessageId"] = "5f3c0b8e-8a55-5d2a-9b5c-6f1f4c8a2e11",
            ["TopicArn"] = "arn:aws:sns:eu-west-1:123456789012:docs-topic",
            ["Message"] = PayloadPointer.Write(location, PayloadPointer.ClassName),
            ["Timestamp"] = "2026-11-28T12:00:00.000Z",
            ["MessageAttributes"] = new JsonObject { [PayloadPointer.SizeAttribute] = new JsonObject { ["Type"] = "Number", ["Value"] = "4" } },
        };
        return new SqsMessage { MessageId = "m-1", ReceiptHandle = "r-1", Body = notification.ToJsonString() };
    }

    /// <summary>A store whose deletes wait until <see cref="Open"/> (or until their caller gives up).</summary>
    private sealed class GatedStore : IPayloadStore
    {
        private readonly TaskCompletionSource _open = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public InMemoryPayloadStore Inner { get; } = new();

        public string Bucket => Inner.Bucket;

        public void Open() => _open.TrySetResult();

        public Task<PayloadLocation> PutAsync(ReadOnlyMemory<byte> payload, CancellationToken cancellationToken = default) => Inner.PutAsync(payload, cancellationToken);

        public Task<ReadOnlyMemory<byte>> GetAsync(PayloadLocation location, long maxLength, CancellationToken cancellationToken = default) => Inner.GetAsync(location, maxLength, cancellationToken);

        public async Task DeleteAsync(PayloadLocation location, CancellationToken cancellationToken = default)
        {
            await _open.Task.WaitAsync(cancellationToken);
            await Inner.DeleteAsync(location, cancellationToken);
        }
    }

    /// <summary>A store whose fetches wait until their caller gives up.</summary>
    private sealed class HangingFetchStore : IPayloadStore
    {
        private readonly InMemoryPayloadStore _inner = new();
        private volatile bool _fetching;

        public bool Fetching => _fetching;

        public string Bucket => _inner.Bucket;

        public Task<PayloadLocation> PutAsync(ReadOnlyMemory<byte> payload, CancellationToken cancellationToken = default) => _inner.PutAsync(payload, cancellationToken);

        public async Task<ReadOnlyMemory<byte>> GetAsync(PayloadLocation location, long maxLength, CancellationToken cancellationToken = default)
        {
            _fetching = true;
            await Task.Delay(Timeout.InfiniteTimeSpan, cancellationToken);
            return default;
        }

        public Task DeleteAsync(PayloadLocation location, CancellationToken cancellationToken = default) => _inner.DeleteAsync(location, cancellationToken);
    }

    /// <summary>A store whose fetches fail in its own code, as a credential provider's does.</summary>
    private sealed class ThrowingFetchStore : IPayloadStore
    {
        private readonly InMemoryPayloadStore _inner = new();

        public string Bucket => _inner.Bucket;

        public Task<PayloadLocation> PutAsync(ReadOnlyMemory<byte> payload, CancellationToken cancellationToken = default) => _inner.PutAsync(payload, cancellationToken);

        public Task<ReadOnlyMemory<byte>> GetAsync(PayloadLocation location, long maxLength, CancellationToken cancellationToken = default)
            => throw new InvalidOperationException("The credential provider could not find a profile named 'payloads'.");

        public Task DeleteAsync(PayloadLocation location, CancellationToken cancellationToken = default) => _inner.DeleteAsync(location, cancellationToken);
    }
}
