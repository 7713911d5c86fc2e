using Microsoft.Extensions.Time.Testing;
using System;
using System.Collections.Generic;
using System.Linq;
using System.Text.Json;
using System.Threading.Tasks;
using Missive.InMemory;
using Missive.Tests.Infrastructure;
using Missive.Transport;

namespace Missive.Tests.InMemory;

public sealed class InMemoryBrokerTests
{
    private readonly FakeTimeProvider _time = new(new DateTimeOffset(2025, 11, 3, 14, 27, 9, TimeSpan.Zero));

    [Fact]
    public async Task Receive_HidesTheMessageForTheVisibilityTimeout_ThenRedeliversIt()
    {
        var broker = new InMemoryBroker(_time);
        broker.CreateQueue("q", o => o.VisibilityTimeout = TimeSpan.FromSeconds(30));
        await broker.SendAsync(new SqsSendRequest { QueueName = "q", Body = "hello" });

        IReadOnlyList<SqsMessage> first = await broker.ReceiveAsync("q", 10, TimeSpan.Zero);
        IReadOnlyList<SqsMessage> hidden = await broker.ReceiveAsync("q", 10, TimeSpan.Zero);
        _time.Advance(TimeSpan.FromSeconds(31));
        IReadOnlyList<SqsMessage> again = await broker.ReceiveAsync("q", 10, TimeSpan.Zero);

        Assert.Single(first);
        Assert.Empty(hidden);
        Assert.Single(again);
        Assert.Equal("1", first[0].SystemAttributes[SqsSystemAttributes.ApproximateReceiveCount]);
        Assert.Equal("2", again[0].SystemAttributes[SqsSystemAttributes.ApproximateReceiveCount]);
        Assert.Equal(first[0].MessageId, again[0].MessageId);
        Assert.NotEqual(first[0].ReceiptHandle, again[0].ReceiptHandle);
        Assert.False(await broker.DeleteAsync("q", first[0].ReceiptHandle)); // stale receipt
        Assert.True(await broker.DeleteAsync("q", again[0].ReceiptHandle));
        Assert.Equal(0, broker.GetQueue("q").Count);
    }

    [Fact]
    public async Task LongPoll_ReturnsAsSoonAsAMessageArrives()
    {
        var broker = new InMemoryBroker();
        broker.CreateQueue("q");

        Task<IReadOnlyList<SqsMessage>> waiting = broker.ReceiveAsync("q", 1, TimeSpan.FromSeconds(20));
        await broker.SendAsync(new SqsSendRequest { QueueName = "q", Body = "hi" });

        Assert.Same(waiting, await Task.WhenAny(waiting, Task.Delay(TimeSpan.FromSeconds(10))));
        Assert.Equal("hi", (await waiting)[0].Body);
    }

    [Fact]
    public async Task AfterMaxReceiveCount_TheMessageMovesToTheDeadLetterQueueIntact()
    {
        var broker = new InMemoryBroker(_time);
        broker.CreateQueue("dlq");
        broker.CreateQueue("q", o => { o.DeadLetterQueue = "dlq"; o.MaxReceiveCount = 3; o.VisibilityTimeout = TimeSpan.FromSeconds(1); });
        var attributes = new Dictionary<string, MessageAttributeValue> { ["tenant"] = MessageAttributeValue.FromString("acme") };
        await broker.SendAsync(new SqsSendRequest { QueueName = "q", Body = "poison ✉", MessageAttributes = attributes });

        int receives = 0;
        for (int i = 0; i < 5; i++)
        {
            receives += (await broker.ReceiveAsync("q", 1, TimeSpan.Zero)).Count;
            _time.Advance(TimeSpan.FromSeconds(2));
        }

        IReadOnlyList<SqsMessage> dead = await broker.ReceiveAsync("dlq", 10, TimeSpan.Zero);
        Assert.Equal(3, receives);
        Assert.Equal(0, broker.GetQueue("q").Count);
        Assert.Equal("poison ✉", Assert.Single(dead).Body);
        Assert.Equal("acme", dead[0].MessageAttributes["tenant"].StringValue);
        Assert.Equal(broker.GetQueue("q").Arn, dead[0].SystemAttributes[SqsSystemAttributes.DeadLetterQueueSourceArn]);
    }

    [Fact]
    public async Task Fifo_ReceiveReturnsAsManyOfAGroupAsFit_InOrder_ThenOtherGroups_AndHoldsAGroupWhileOneIsInFlight()
    {
        // SQS developer guide (FIFO delivery logic): a receive of more than one message returns as many messages of
        // the same group as possible, in order; a group with a message in flight returns nothing more.
        var broker = new InMemoryBroker(_time);
        broker.CreateQueue("q.fifo", o => o.ContentBasedDeduplication = true);
        foreach ((string group, string body) in new[] { ("a", "a1"), ("b", "b1"), ("a", "a2"), ("b", "b2"), ("a", "a3"), ("c", "c1") })
        {
            await broker.SendAsync(new SqsSendRequest { QueueName = "q.fifo", Body = body, MessageGroupId = group });
        }

        IReadOnlyList<SqsMessage> first = await broker.ReceiveAsync("q.fifo", 4, TimeSpan.Zero);
        Assert.Equal(["a1", "a2", "a3", "b1"], first.Select(m => m.Body));
        IReadOnlyList<SqsMessage> second = await broker.ReceiveAsync("q.fifo", 10, TimeSpan.Zero);
        Assert.Equal(["c1"], second.Select(m => m.Body)); // a and b are locked while a message of theirs is in flight
        Assert.Empty(await broker.ReceiveAsync("q.fifo", 10, TimeSpan.Zero));

        await broker.DeleteAsync("q.fifo", first[0].ReceiptHandle);
        Assert.Empty(await broker.ReceiveAsync("q.fifo", 10, TimeSpan.Zero)); // a2 and a3 are still in flight
        await broker.DeleteAsync("q.fifo", first[3].ReceiptHandle);
        IReadOnlyList<SqsMessage> third = await broker.ReceiveAsync("q.fifo", 10, TimeSpan.Zero);
        Assert.Equal(["b2"], third.Select(m => m.Body));
        Assert.Equal("b", third[0].SystemAttributes[SqsSystemAttributes.MessageGroupId]);
        Assert.True(string.CompareOrdinal(first[3].SystemAttributes[SqsSystemAttributes.SequenceNumber], third[0].SystemAttributes[SqsSystemAttributes.SequenceNumber]) < 0);
    }

    [Fact]
    public async Task Fifo_ReleasedMessages_ComeBackInOrder_AndAMessageStillInFlightLocksItsGroup()
    {
        var broker = new InMemoryBroker(_time);
        broker.CreateQueue("q.fifo", o => o.ContentBasedDeduplication = true);
        foreach (string body in new[] { "a1", "a2", "a3" })
        {
            await broker.SendAsync(new SqsSendRequest { QueueName = "q.fifo", Body = body, MessageGroupId = "a" });
        }

        IReadOnlyList<SqsMessage> first = await broker.ReceiveAsync("q.fifo", 10, TimeSpan.Zero);
        await broker.DeleteAsync("q.fifo", first[0].ReceiptHandle);
        await broker.ChangeVisibilityAsync("q.fifo", first[2].ReceiptHandle, TimeSpan.Zero); // a3 released, a2 still in flight
        Assert.Empty(await broker.ReceiveAsync("q.fifo", 10, TimeSpan.Zero));

        await broker.ChangeVisibilityAsync("q.fifo", first[1].ReceiptHandle, TimeSpan.Zero);
        IReadOnlyList<SqsMessage> again = await broker.ReceiveAsync("q.fifo", 10, TimeSpan.Zero);
        Assert.Equal(["a2", "a3"], again.Select(m => m.Body));
        Assert.Equal(["2", "2"], again.Select(m => m.SystemAttributes[SqsSystemAttributes.ApproximateReceiveCount]));
    }

    [Fact]
    public async Task Fifo_DeduplicatesWithinFiveMinutesAndRequiresAGroup()
    {
        var broker = new InMemoryBroker(_time);
        broker.CreateQueue("q.fifo");

        await broker.SendAsync(new SqsSendRequest { QueueName = "q.fifo", Body = "x", MessageGroupId = "g", MessageDeduplicationId = "d1" });
        await broker.SendAsync(new SqsSendRequest { QueueName = "q.fifo", Body = "x", MessageGroupId = "g", MessageDeduplicationId = "d1" });

        Assert.Equal(1, broker.GetQueue("q.fifo").Count);
        await Assert.ThrowsAsync<MessageTransportException>(() => broker.SendAsync(new SqsSendRequest { QueueName = "q.fifo", Body = "x", MessageDeduplicationId = "d2" }));
        await Assert.ThrowsAsync<MessageTransportException>(() => broker.SendAsync(new SqsSendRequest { QueueName = "q.fifo", Body = "x", MessageGroupId = "g" }));
    }

    [Fact]
    public async Task Send_EnforcesTheSqsRulesWithClearErrors()
    {
        var broker = new InMemoryBroker(_time);
        broker.CreateQueue("q");
        broker.CreateQueue("small", o => o.MaxMessageSize = 1024);

        var tooBig = await Assert.ThrowsAsync<MessageTransportException>(() => broker.SendAsync(new SqsSendRequest { QueueName = "q", Body = new string('x', SqsRules.MaxMessageSize + 1) }));
        var smallQueue = await Assert.ThrowsAsync<MessageTransportException>(() => broker.SendAsync(new SqsSendRequest { QueueName = "small", Body = new string('x', 1000), MessageAttributes = new Dictionary<string, MessageAttributeValue> { ["pad"] = MessageAttributeValue.FromString(new string('y', 30)) } }));
        var badChar = await Assert.ThrowsAsync<MessageTransportException>(() => broker.SendAsync(new SqsSendRequest { QueueName = "q", Body = "bell \u0007" }));
        var lone = await Assert.ThrowsAsync<MessageTransportException>(() => broker.SendAsync(new SqsSendRequest { QueueName = "q", Body = "half \uD800 pair" }));
        var badName = await Assert.ThrowsAsync<MessageTransportException>(() => broker.SendAsync(new SqsSendRequest { QueueName = "q", Body = "x", MessageAttributes = new Dictionary<string, MessageAttributeValue> { ["AWS.reserved"] = MessageAttributeValue.FromString("v") } }));
        var eleven = new Dictionary<string, MessageAttributeValue>();
        for (int i = 0; i < 11; i++)
        {
            eleven["a" + i] = MessageAttributeValue.FromNumber(i.ToString(System.Globalization.CultureInfo.InvariantCulture));
        }

        var tooMany = await Assert.ThrowsAsync<MessageTransportException>(() => broker.SendAsync(new SqsSendRequest { QueueName = "q", Body = "x", MessageAttributes = eleven }));
        var unknown = await Assert.ThrowsAsync<MessageTransportException>(() => broker.SendAsync(new SqsSendRequest { QueueName = "nope", Body = "x" }));

        Assert.Contains("1048576", tooBig.Message.Replace(",", string.Empty, StringComparison.Ordinal), StringComparison.Ordinal);
        Assert.Contains("1024", smallQueue.Message, StringComparison.Ordinal);
        Assert.Contains("U+0007", badChar.Message, StringComparison.Ordinal);
        Assert.Contains("U+D800", lone.Message, StringComparison.Ordinal);
        Assert.Contains("AWS.", badName.Message, StringComparison.Ordinal);
        Assert.Contains("11 attributes", tooMany.Message, StringComparison.Ordinal);
        Assert.Contains("'nope'", unknown.Message, StringComparison.Ordinal);
        Assert.Equal(0, broker.GetQueue("q").Count);
        await broker.SendAsync(new SqsSendRequest { QueueName = "q", Body = "tab\t newline\n emoji 😀 private \uE000" });
        Assert.Equal(1, broker.GetQueue("q").Count);
    }

    [Fact]
    public async Task Sns_WritesTheNotificationShapeOfFormatsMd()
    {
        var broker = new InMemoryBroker(_time);
        string arn = broker.CreateTopic("orders-events");
        broker.Subscribe("orders-events", "q");
        var attributes = new Dictionary<string, MessageAttributeValue>
        {
            ["tenant"] = MessageAttributeValue.FromString("acme-eu"),
            ["priority"] = MessageAttributeValue.FromNumber("2"),
        };

        await broker.PublishAsync(new SnsPublishRequest { TopicArn = "orders-events", Message = "{\"a\":\"Zoë/\\\\x\"}", Subject = "hi", MessageAttributes = attributes });

        string body = (await broker.ReceiveAsync("q", 1, TimeSpan.Zero))[0].Body;
        string[] lines = body.Split('\n');
        Assert.Equal("{", lines[0]);
        Assert.Equal("  \"Type\" : \"Notification\",", lines[1]);
        Assert.StartsWith("  \"MessageId\" : \"", lines[2], StringComparison.Ordinal);
        Assert.Equal($"  \"TopicArn\" : \"{arn}\",", lines[3]);
        Assert.Equal("  \"Subject\" : \"hi\",", lines[4]);
        Assert.Equal("  \"Message\" : \"{\\\"a\\\":\\\"Zoë/\\\\\\\\x\\\"}\",", lines[5]); // quotes and backslashes escaped; '/' and 'ë' not
        Assert.Equal("  \"Timestamp\" : \"2025-11-03T14:27:09.000Z\",", lines[6]);
        Assert.Equal("  \"SignatureVersion\" : \"1\",", lines[7]);
        Assert.Equal("  \"MessageAttributes\" : {", lines[11]);
        Assert.Equal("    \"tenant\" : {\"Type\":\"String\",\"Value\":\"acme-eu\"},", lines[12]);
        Assert.Equal("    \"priority\" : {\"Type\":\"Number\",\"Value\":\"2\"}", lines[13]);
        using JsonDocument parsed = JsonDocument.Parse(body);
        Assert.Equal("{\"a\":\"Zoë/\\\\x\"}", parsed.RootElement.GetProperty("Message").GetString());
    }

    [Fact]
    public async Task Sns_UnsubscribeUrlNamesTheSubscription_NotTheMessage()
    {
        var broker = new InMemoryBroker(_time);
        broker.CreateTopic("t");
        string first = broker.Subscribe("t", "a");
        string second = broker.Subscribe("t", "b");

        string messageId = await broker.PublishAsync(new SnsPublishRequest { TopicArn = "t", Message = "m" });

        Assert.NotEqual(first, second);
        Assert.Matches("^arn:aws:sns:[a-z0-9-]+:\\d{12}:t:[0-9a-f-]{36}$", first);
        foreach ((string queue, string subscriptionArn) in new[] { ("a", first), ("b", second) })
        {
            using JsonDocument notification = JsonDocument.Parse((await broker.ReceiveAsync(queue, 1, TimeSpan.Zero))[0].Body);
            string url = notification.RootElement.GetProperty("UnsubscribeURL").GetString()!;
            Assert.EndsWith("/?Action=Unsubscribe&SubscriptionArn=" + subscriptionArn, url, StringComparison.Ordinal);
            Assert.DoesNotContain(messageId, url, StringComparison.Ordinal);
        }
    }

    [Fact]
    public async Task Sns_FifoNotification_CarriesTheFieldsOfARealFifoDelivery_InTheirOrder()
    {
        // A FIFO topic's notification to SQS: SequenceNumber after MessageId, no signature fields, an UnsubscribeURL.
        var broker = new InMemoryBroker(_time);
        broker.CreateTopic("t.fifo");
        string subscription = broker.Subscribe("t.fifo", "q.fifo");
        var attributes = new Dictionary<string, MessageAttributeValue> { ["k"] = MessageAttributeValue.FromString("v") };

        await broker.PublishAsync(new SnsPublishRequest { TopicArn = "t.fifo", Message = "m", Subject = "s", MessageGroupId = "g", MessageDeduplicationId = "d", MessageAttributes = attributes });

        using JsonDocument notification = JsonDocument.Parse((await broker.ReceiveAsync("q.fifo", 1, TimeSpan.Zero))[0].Body);
        var names = new List<string>();
        foreach (JsonProperty property in notification.RootElement.EnumerateObject())
        {
            names.Add(property.Name);
        }

        Assert.Equal(["Type", "MessageId", "SequenceNumber", "TopicArn", "Subject", "Message", "Timestamp", "UnsubscribeURL", "MessageAttributes"], names);
        Assert.Matches("^[0-9]{20}$", notification.RootElement.GetProperty("SequenceNumber").GetString());
        Assert.EndsWith("SubscriptionArn=" + subscription, notification.RootElement.GetProperty("UnsubscribeURL").GetString(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Sns_RawDelivery_DeliversTheMessageAsIsWithAttributes_AndDropsOverTenAttributes()
    {
        var broker = new InMemoryBroker(_time);
        broker.CreateTopic("t");
        broker.Subscribe("t", "raw", rawMessageDelivery: true);
        broker.Subscribe("t", "wrapped");
        var eleven = new Dictionary<string, MessageAttributeValue>();
        for (int i = 0; i < 11; i++)
        {
            eleven["a" + i] = MessageAttributeValue.FromString("v");
        }

        await broker.PublishAsync(new SnsPublishRequest { TopicArn = "t", Message = "payload", MessageAttributes = new Dictionary<string, MessageAttributeValue> { ["k"] = MessageAttributeValue.FromBinary(new byte[] { 1, 2 }) } });
        await broker.PublishAsync(new SnsPublishRequest { TopicArn = "t", Message = "eleven", MessageAttributes = eleven }); // SNS accepts it

        SqsMessage raw = (await broker.ReceiveAsync("raw", 10, TimeSpan.Zero)).Single(); // the raw delivery of "eleven" was dropped
        Assert.Equal("payload", raw.Body);
        Assert.Equal(new byte[] { 1, 2 }, raw.MessageAttributes["k"].BinaryValue.ToArray());
        Assert.Equal(1, broker.DroppedDeliveries);
        IReadOnlyList<SqsMessage> wrapped = await broker.ReceiveAsync("wrapped", 10, TimeSpan.Zero);
        Assert.Equal(2, wrapped.Count);
        Assert.Contains("\"Value\":\"AQI=\"", wrapped[0].Body, StringComparison.Ordinal);
        Assert.Contains("\"a10\"", wrapped[1].Body, StringComparison.Ordinal); // the notification carries all eleven
    }

    [Fact]
    public void CreateQueue_RedriveSettingsSqsRefuses_AreRefusedWhenTheQueueIsCreated()
    {
        var broker = new InMemoryBroker(_time);
        broker.CreateQueue("small-dlq", o => o.MaxMessageSize = 2048);
        broker.CreateQueue("dlq.fifo");

        Assert.Contains("does not exist", Assert.Throws<MessageTransportException>(() => broker.CreateQueue("a", o => o.DeadLetterQueue = "missing")).Message, StringComparison.Ordinal);
        Assert.Contains("standard queue too", Assert.Throws<MessageTransportException>(() => broker.CreateQueue("b", o => o.DeadLetterQueue = "dlq.fifo")).Message, StringComparison.Ordinal);
        Assert.Contains("fewer than the", Assert.Throws<MessageTransportException>(() => broker.CreateQueue("c", o => o.DeadLetterQueue = "small-dlq")).Message, StringComparison.Ordinal);
        Assert.Contains("its own dead-letter queue", Assert.Throws<MessageTransportException>(() => broker.CreateQueue("d", o => o.DeadLetterQueue = "d")).Message, StringComparison.Ordinal);
        Assert.Throws<MessageTransportException>(() => broker.GetQueue("a")); // nothing half-created
    }

    [Fact]
    public void QueueOptions_AreFixedWhenTheQueueIsCreated_SoTheRedriveCheckCannotBeBypassed()
    {
        var broker = new InMemoryBroker(_time);
        InMemoryQueue deadLetters = broker.CreateQueue("work-dlq");
        InMemoryQueue work = broker.CreateQueue("work", o =>
        {
            o.DeadLetterQueue = "work-dlq";
            o.MaxReceiveCount = 1;
        });

        // Lowering the dead-letter queue's size limit below the queue's would make every move fail (CreateQueue refuses it).
        var lowered = Assert.Throws<InvalidOperationException>(() => deadLetters.Options.MaxMessageSize = 1024);
        Assert.Contains("CreateQueue", lowered.Message, StringComparison.Ordinal);
        Assert.Throws<InvalidOperationException>(() => work.Options.DeadLetterQueue = "work");
        Assert.Throws<InvalidOperationException>(() => work.Options.MaxReceiveCount = 0);
        Assert.Throws<InvalidOperationException>(() => work.Options.VisibilityTimeout = TimeSpan.Zero);
        Assert.Throws<InvalidOperationException>(() => work.Options.Fifo = true);
        Assert.Throws<InvalidOperationException>(() => work.Options.ContentBasedDeduplication = true);
        Assert.Equal(1024 * 1024, deadLetters.Options.MaxMessageSize);
        Assert.Equal("work-dlq", work.Options.DeadLetterQueue);
    }

    [Fact]
    public async Task EventBridge_WritesTheEventShapeAndRoutesByDetailType()
    {
        var broker = new InMemoryBroker(_time);
        broker.CreateEventBus("bus");
        broker.AddRule("bus", "orders", "Orders.OrderPlaced");
        broker.AddRule("bus", "all");

        await broker.PutEventAsync(new EventBridgeEntry { EventBusName = "bus", Source = "/orders", DetailType = "Orders.OrderPlaced", Detail = "{\"x\":\"ë\"}" });
        await broker.PutEventAsync(new EventBridgeEntry { EventBusName = "bus", Source = "/other", DetailType = "Other", Detail = "{}" });
        await Assert.ThrowsAsync<MessageTransportException>(() => broker.PutEventAsync(new EventBridgeEntry { EventBusName = "bus", Source = "/s", DetailType = "t", Detail = "[1]" }));

        string body = (await broker.ReceiveAsync("orders", 10, TimeSpan.Zero)).Single().Body;
        Assert.Matches("^\\{\"version\":\"0\",\"id\":\"[0-9a-f-]{36}\",\"detail-type\":\"Orders.OrderPlaced\",\"source\":\"/orders\",\"account\":\"123456789012\",\"time\":\"2025-11-03T14:27:09Z\",\"region\":\"eu-west-1\",\"resources\":\\[\\],\"detail\":\\{\"x\":\"ë\"\\}\\}$", body);
        Assert.Equal(2, (await broker.ReceiveAsync("all", 10, TimeSpan.Zero)).Count);
    }
}
