using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.Logging.Abstractions;
using Missive.Bus;
using Missive.Offload;
using Missive.Transport;

namespace Missive.Tests.Transport;

/// <summary>Every transport that wraps another reports the inner one's capabilities, whatever they are.</summary>
public sealed class WrappingTransportTests
{
    /// <summary>The capability members of <see cref="IMessageTransport"/>: a new one must be added here and to every wrapper.</summary>
    private static readonly string[] Capabilities = [nameof(IMessageTransport.Description), nameof(IMessageTransport.IsDoneWithBodiesWhenCallsComplete), nameof(IMessageTransport.IsReceiveCancellationSafe), nameof(IMessageTransport.DeliversToOtherProcesses)];

    public static TheoryData<string, bool> Wrappers()
    {
        var cases = new TheoryData<string, bool>();
        foreach (string wrapper in new[] { "payload offloading", "publish coalescer" })
        {
            cases.Add(wrapper, false);
            cases.Add(wrapper, true);
        }

        return cases;
    }

    [Fact]
    public void TheCapabilityMembers_AreTheOnesTheseTestsKnow()
        => Assert.Equal(Capabilities.Order(StringComparer.Ordinal), typeof(IMessageTransport).GetProperties().Select(p => p.Name).Order(StringComparer.Ordinal));

    [Theory]
    [MemberData(nameof(Wrappers))]
    public void AWrapper_ForwardsEveryCapability(string wrapper, bool value)
    {
        var inner = new Capable { IsReceiveCancellationSafe = value, IsDoneWithBodiesWhenCallsComplete = value, DeliversToOtherProcesses = value, Description = "inner transport " + value };
        using var coalescer = new PublishCoalescer(inner, TimeSpan.FromMilliseconds(5), TimeProvider.System);
        IMessageTransport outer = wrapper == "publish coalescer" ? coalescer : new PayloadOffloadingTransport(inner, new InMemoryPayloadStore(), new PayloadOffloadOptions(), NullLogger.Instance);

        Assert.Equal(value, outer.IsReceiveCancellationSafe);
        Assert.Equal(value, outer.IsDoneWithBodiesWhenCallsComplete);
        Assert.Equal(value, outer.DeliversToOtherProcesses);
        Assert.StartsWith(inner.Description, outer.Description, StringComparison.Ordinal);
    }

    private sealed class Capable : IMessageTransport
    {
        public bool IsReceiveCancellationSafe { get; init; }

        public bool IsDoneWithBodiesWhenCallsComplete { get; init; }

        public bool DeliversToOtherProcesses { get; init; }

        public string Description { get; init; } = string.Empty;

        public Task<string> SendAsync(SqsSendRequest request, CancellationToken cancellationToken = default) => throw new NotSupportedException();

        public Task<string> PublishAsync(SnsPublishRequest request, CancellationToken cancellationToken = default) => throw new NotSupportedException();

        public Task<string> PutEventAsync(EventBridgeEntry entry, CancellationToken cancellationToken = default) => throw new NotSupportedException();

        public Task<IReadOnlyList<SqsMessage>> ReceiveAsync(string queueName, int maxMessages, TimeSpan waitTime, TimeSpan? visibilityTimeout = null, CancellationToken cancellationToken = default) => throw new NotSupportedException();

        public Task<bool> DeleteAsync(string queueName, string receiptHandle, CancellationToken cancellationToken = default) => throw new NotSupportedException();

        public Task<bool> ChangeVisibilityAsync(string queueName, string receiptHandle, TimeSpan visibilityTimeout, CancellationToken cancellationToken = default) => throw new NotSupportedException();
    }
}
