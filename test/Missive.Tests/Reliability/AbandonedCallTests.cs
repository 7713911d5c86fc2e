using System;
using System.Collections.Generic;
using System.Linq;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Time.Testing;
using Missive.Bus;
using Missive.Tests.Infrastructure;
using Missive.Transport;

namespace Missive.Tests.Reliability;

/// <summary>
/// Publishing when a batch call misses its deadline and the transport ignores its token (it cannot take back a request it
/// sent): the publishes fail as maybe sent at the deadline, but the call still runs. On a fake clock.
/// </summary>
public sealed class AbandonedCallTests
{
    private static readonly TimeSpan Patience = BusTestHost.Patience;

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task APooledBody_IsNotBackInThePool_WhileAnAbandonedCallCanStillReadIt(bool batch)
    {
        var clock = new FakeTimeProvider();
        var transport = new HeldBatchTransport();
        using ServiceProvider services = Services(transport, clock, "orders", coalesce: !batch);
        IMessagePublisher publisher = services.GetRequiredService<IMessagePublisher>();

        Task publish = batch ? publisher.PublishBatchAsync([Order("ORD-1")]) : publisher.PublishAsync(Order("ORD-1"));
        HeldBatchTransport.Call call = await transport.NextCallAsync();
        clock.Advance(BatchSends.CallDeadline); // abandoned: the publish ends, the call goes on

        Exception? error = batch ? (await (Task<IReadOnlyList<PublishResult<Order>>>)publish)[0].Error : await Record.ExceptionAsync(() => publish);
        Assert.Contains("may have", Assert.IsType<MessageTransportException>(error).Message, StringComparison.Ordinal);

        // A body given back is cleared first: the call must still read what it sends.
        Assert.Contains("\"ORD-1\"", Encoding.UTF8.GetString(call.Requests[0].Utf8Body.Span), StringComparison.Ordinal);
        call.Answer();
        Assert.Equal(["ORD-1"], transport.Sent);
    }

    [Fact]
    public async Task OnAFifoQueue_ACoalescedPublishOfTheGroup_DoesNotOvertakeACallThatMayStillLand()
    {
        var clock = new FakeTimeProvider();
        var transport = new HeldBatchTransport();
        using ServiceProvider services = Services(transport, clock, "orders.fifo", coalesce: true);
        IMessagePublisher publisher = services.GetRequiredService<IMessagePublisher>();

        Task first = publisher.PublishAsync(Order("ORD-1", "customer-a"));
        HeldBatchTransport.Call held = await transport.NextCallAsync();
        clock.Advance(BatchSends.CallDeadline);
        await Assert.ThrowsAsync<MessageTransportException>(() => first.WaitAsync(Patience)); // maybe sent: it may land later

        transport.AnswerAtOnce = true;
        var overtaking = await Assert.ThrowsAsync<MessageTransportException>(() => publisher.PublishAsync(Order("ORD-2", "customer-a")).WaitAsync(Patience));
        await publisher.PublishAsync(Order("ORD-3", "customer-b")).WaitAsync(Patience); // another group goes on

        Assert.Equal("FifoGroupFailedEarlier", overtaking.ErrorCode);
        Assert.Equal(["ORD-3"], transport.Sent);

        held.Answer(); // the abandoned call lands: the group's later publishes go again, once the batcher has heard of it
        await WaitUntilAsync(() => held.Ended);
        for (int i = 0; ; i++)
        {
            try
            {
                await publisher.PublishAsync(Order("ORD-4", "customer-a")).WaitAsync(Patience);
                break;
            }
            catch (MessageTransportException e) when (e.ErrorCode == "FifoGroupFailedEarlier" && i < 3000)
            {
                await Task.Delay(1); // the call's end is still on its way to the batcher: nothing was sent
            }
        }

        Assert.Equal(["ORD-3", "ORD-1", "ORD-4"], transport.Sent);
    }

    private static Order Order(string id, string customer = "c")
    {
        Order order = Orders.Create(1);
        order.OrderId = id;
        order.CustomerName = customer;
        return order;
    }

    private static ServiceProvider Services(HeldBatchTransport transport, TimeProvider clock, string queue, bool coalesce)
        => new ServiceCollection()
            .AddSingleton<IMessageTransport>(transport)
            .AddSingleton(clock)
            .AddMessageBus(bus =>
            {
                bus.AddMessageType<Order>(TestSerializers.OrderType)
                    .ConfigureSerialization(o => o.JsonSerializerContext = TestJsonContext.Default)
                    .AddSqsPublisher<Order>(queue);
                if (queue.EndsWith(".fifo", StringComparison.Ordinal))
                {
                    bus.AddFifoIds<Order>(o => o.CustomerName, o => o.OrderId);
                }

                if (coalesce)
                {
                    bus.CoalescePublishes(TimeSpan.FromMilliseconds(10));
                }
            })
            .BuildServiceProvider();

    private static async Task WaitUntilAsync(Func<bool> condition)
    {
        for (int i = 0; !condition(); i++)
        {
            Assert.True(i < 3000, "condition not met");
            await Task.Delay(1);
        }
    }

    /// <summary>A transport whose batch calls ignore their token and end when the test answers them; it is done with bodies when a call ends.</summary>
    private sealed class HeldBatchTransport : IMessageTransport
    {
        private readonly object _gate = new();
        private readonly Queue<TaskCompletionSource<Call>> _waiting = new();
        private readonly Queue<Call> _calls = new();

        public bool IsDoneWithBodiesWhenCallsComplete => true;

        /// <summary>Gets or sets whether later calls answer at once.</summary>
        public bool AnswerAtOnce { get; set; }

        public List<string> Sent { get; } = [];

        public async Task<Call> NextCallAsync()
        {
            TaskCompletionSource<Call> next;
            lock (_gate)
            {
                if (_calls.TryDequeue(out Call? call))
                {
                    return call;
                }

                next = new TaskCompletionSource<Call>(TaskCreationOptions.RunContinuationsAsynchronously);
                _waiting.Enqueue(next);
            }

            return await next.Task.WaitAsync(Patience);
        }

        public Task<IReadOnlyList<BatchEntryResult>> SendBatchAsync(IReadOnlyList<SqsSendRequest> requests, CancellationToken cancellationToken = default)
        {
            var call = new Call(this, [.. requests]);
            if (AnswerAtOnce)
            {
                call.Answer();
                return call.Result;
            }

            lock (_gate)
            {
                if (!_waiting.TryDequeue(out TaskCompletionSource<Call>? waiter))
                {
                    _calls.Enqueue(call);
                }
                else
                {
                    waiter.SetResult(call);
                }
            }

            return call.Result; // whatever becomes of the token
        }

        public Task<string> SendAsync(SqsSendRequest request, CancellationToken cancellationToken = default) => throw new NotSupportedException("publishes go in batch calls here");

        public Task<string> PublishAsync(SnsPublishRequest request, CancellationToken cancellationToken = default) => throw new NotSupportedException();

        public Task<string> PutEventAsync(EventBridgeEntry entry, CancellationToken cancellationToken = default) => throw new NotSupportedException();

        public Task<IReadOnlyList<SqsMessage>> ReceiveAsync(string queueName, int maxMessages, TimeSpan waitTime, TimeSpan? visibilityTimeout = null, CancellationToken cancellationToken = default) => throw new NotSupportedException();

        public Task<bool> DeleteAsync(string queueName, string receiptHandle, CancellationToken cancellationToken = default) => throw new NotSupportedException();

        public Task<bool> ChangeVisibilityAsync(string queueName, string receiptHandle, TimeSpan visibilityTimeout, CancellationToken cancellationToken = default) => throw new NotSupportedException();

        /// <summary>One call: the requests it carries; answering it stores them (reading each body) and ends it.</summary>
        internal sealed class Call(HeldBatchTransport transport, SqsSendRequest[] requests)
        {
            private readonly TaskCompletionSource<IReadOnlyList<BatchEntryResult>> _result = new(TaskCreationOptions.RunContinuationsAsynchronously);

            public SqsSendRequest[] Requests { get; } = requests;

            public Task<IReadOnlyList<BatchEntryResult>> Result => _result.Task;

            public bool Ended => _result.Task.IsCompleted;

            public void Answer()
            {
                lock (transport._gate)
                {
                    foreach (SqsSendRequest request in Requests)
                    {
                        string body = Encoding.UTF8.GetString(request.Utf8Body.Span);
                        transport.Sent.Add(body.Split("\"ORD-")[1].Split('"')[0] is { } id ? "ORD-" + id : "?");
                    }
                }

                _result.SetResult([.. Requests.Select((_, i) => BatchEntryResult.Success(i, "id-" + i))]);
            }
        }
    }
}
