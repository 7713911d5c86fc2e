using System;
using System.Collections.Generic;
using System.Text;
using Microsoft.Extensions.DependencyInjection;
using Missive.Json;
using Missive.Serialization;
using Missive.Tests.Infrastructure;
using Missive.Transport;

namespace Missive.Tests.Native;

/// <summary>
/// <see cref="InboundMessageReader"/> with native message rules, over the bodies AWS documents (Data/README.md): each
/// read as the type its rule names, where it arrives (straight to the queue, in an SNS notification, as an EventBridge
/// event), on both JSON serializers; envelopes on the same queue still read as envelopes; what no rule matches refused.
/// </summary>
public sealed class NativeMessageReaderTests
{
    private static readonly NativeMessageRules Rules = new NativeMessageRules()
        .WhenS3Notification<S3EventNotification>("ObjectCreated:")
        .WhenEventBridgeEvent<S3ObjectCreated>("aws.s3", "Object Created")
        .WhenEventBridgeEvent<Ec2StateChange>("aws.ec2")
        .When<SesNotification>(static (body, _) => body.IndexOf("\"notificationType\""u8) >= 0, "an SES notification")
        .WhenMessageAttribute<CloudWatchAlarm>("MessageType", "alarm");

    public static TheoryData<bool> Serializers => [false, true];

    [Theory]
    [MemberData(nameof(Serializers))]
    public void AnS3Notification_StraightToTheQueue_IsReadAsItsType_WithSqsAsItsOrigin(bool fast)
    {
        var message = Message(AwsEvents.Body("s3-object-created-put.json"));

        InboundMessage inbound = Reader(fast).Read(message, Rules);

        var envelope = Assert.IsType<MessageEnvelope<S3EventNotification>>(inbound.Envelope);
        Assert.Equal(InboundMessageKind.Raw, inbound.Kind);
        Assert.True(envelope.IsNative);
        S3EventRecord record = Assert.Single(envelope.Message.Records);
        Assert.Equal(("ObjectCreated:Put", "amzn-s3-demo-bucket", "HappyFace.jpg", 1024L), (record.EventName, record.S3.Bucket.Name, record.S3.Object.Key, record.S3.Object.Size));
        Assert.Equal(AwsEvents.S3Type, envelope.Type);
        Assert.Equal("sqs-message-1", envelope.Id);
        Assert.Equal("aws:sqs", envelope.Source);
        Assert.Equal(DateTimeOffset.FromUnixTimeMilliseconds(1762180029441), envelope.Time); // SQS's SentTimestamp
        Assert.Equal("sqs-message-1", envelope.SqsMetadata!.MessageId);
        Assert.Equal(DateTimeOffset.FromUnixTimeMilliseconds(1762180029441), envelope.SqsMetadata.SentTimestamp);
        Assert.Equal(DateTimeOffset.FromUnixTimeMilliseconds(1762180029452), envelope.SqsMetadata.ApproximateFirstReceiveTimestamp);
        Assert.Equal("AIDAIENQZJOLO23YVJ4VO", envelope.SqsMetadata.SenderId);
    }

    [Theory]
    [MemberData(nameof(Serializers))]
    public void S3sTestEvent_IsRecognised_AndNothingIsHandled(bool fast)
    {
        InboundMessage inbound = Reader(fast).Read(Message(AwsEvents.Body("s3-test-event.json")), Rules);

        Assert.Equal(InboundMessageKind.S3TestEvent, inbound.Kind);
        Assert.Null(inbound.Envelope);
    }

    [Theory]
    [MemberData(nameof(Serializers))]
    public void AnS3Notification_ThroughSns_IsReadByTheSameRule_WithTheTopicAsItsOrigin(bool fast)
    {
        string topic = "arn:aws:sns:us-west-2:123456789012:uploads";
        var message = Message(AwsEvents.InSnsNotification(AwsEvents.Body("s3-object-created-put.json"), topic, "Amazon S3 Notification"));

        InboundMessage inbound = Reader(fast).Read(message, Rules);

        var envelope = Assert.IsType<MessageEnvelope<S3EventNotification>>(inbound.Envelope);
        Assert.Equal(InboundMessageKind.SnsNotification, inbound.Kind);
        Assert.Equal("HappyFace.jpg", envelope.Message.Records[0].S3.Object.Key);
        Assert.Equal("22b80b92-fdea-4c2c-8f9d-bdfb0c7bf324", envelope.Id);
        Assert.Equal(topic, envelope.Source);
        Assert.Equal(DateTimeOffset.Parse("2016-01-27T14:59:38.237Z", System.Globalization.CultureInfo.InvariantCulture), envelope.Time);
        Assert.Equal("Amazon S3 Notification", envelope.SnsMetadata!.Subject);
    }

    [Theory]
    [MemberData(nameof(Serializers))]
    public void S3sEventBridgeEvent_IsItsDetail_WithTheEventsIdSourceAndTime(bool fast)
    {
        InboundMessage inbound = Reader(fast).Read(Message(AwsEvents.Body("eventbridge-s3-object-created.json")), Rules);

        var envelope = Assert.IsType<MessageEnvelope<S3ObjectCreated>>(inbound.Envelope);
        Assert.Equal(InboundMessageKind.EventBridgeEvent, inbound.Kind);
        Assert.Equal(("amzn-s3-demo-bucket1", "example-key", 5L, "PutObject"), (envelope.Message.Bucket.Name, envelope.Message.Object.Key, envelope.Message.Object.Size, envelope.Message.Reason));
        Assert.Equal("17793124-05d4-b198-2fde-7ededc63b103", envelope.Id);
        Assert.Equal("aws.s3", envelope.Source);
        Assert.Equal(new DateTimeOffset(2021, 11, 12, 0, 0, 0, TimeSpan.Zero), envelope.Time);
        Assert.Equal(AwsEvents.S3CreatedType, envelope.Type);
        Assert.Equal("Object Created", envelope.EventBridgeMetadata!.DetailType);
        Assert.Equal(["arn:aws:s3:::amzn-s3-demo-bucket1"], envelope.EventBridgeMetadata.Resources);
    }

    [Theory]
    [MemberData(nameof(Serializers))]
    public void AnotherServicesEventBridgeEvent_IsMatchedBySource(bool fast)
    {
        InboundMessage inbound = Reader(fast).Read(Message(AwsEvents.Body("eventbridge-ec2-state-change.json")), Rules);

        var envelope = Assert.IsType<MessageEnvelope<Ec2StateChange>>(inbound.Envelope);
        Assert.Equal(("i-abcd1111", "pending"), (envelope.Message.InstanceId, envelope.Message.State));
        Assert.Equal("aws.ec2", envelope.Source);
        Assert.Equal("123456789012", envelope.EventBridgeMetadata!.Account);
    }

    [Theory]
    [InlineData(false, false, false)]
    [InlineData(true, false, false)]
    [InlineData(false, true, false)]
    [InlineData(true, true, false)]
    [InlineData(false, false, true)]
    [InlineData(true, false, true)]
    public void AnEventBridgeEvent_IsReadAlike_WhereverItsDetailLies_AndWhicheverKindOfRuleComesFirst(bool fast, bool detailFirst, bool anotherRuleFirst)
    {
        // The detail is read where it lies when EventBridge rules lead and source and detail-type come before it; else
        // once the event is read. Both ways must give the same message and attributes.
        string body = AwsEvents.Body("eventbridge-ec2-state-change.json");
        if (detailFirst)
        {
            body = "{\"detail\":{\"instance-id\":\"i-abcd1111\",\"state\":\"pending\"}," + body.TrimStart()[1..].Replace(",\n  \"detail\": {\n    \"instance-id\": \"i-abcd1111\",\n    \"state\": \"pending\"\n  }", string.Empty, StringComparison.Ordinal);
            Assert.Equal(1, System.Text.RegularExpressions.Regex.Count(body, "\"detail\""));
        }

        var rules = new NativeMessageRules();
        if (anotherRuleFirst)
        {
            rules.WhenS3Notification<S3EventNotification>();
        }

        rules.WhenEventBridgeEvent<S3ObjectCreated>("aws.s3").WhenEventBridgeEvent<Ec2StateChange>("aws.ec2", "EC2 Instance State-change Notification");

        var envelope = Assert.IsType<MessageEnvelope<Ec2StateChange>>(Reader(fast).Read(Message(body), rules).Envelope);

        Assert.Equal(("i-abcd1111", "pending"), (envelope.Message.InstanceId, envelope.Message.State));
        Assert.Equal(("7bf73129-1428-4cd3-a780-95db273d1602", "aws.ec2", AwsEvents.Ec2Type), (envelope.Id, envelope.Source, envelope.Type));
        Assert.Equal(new DateTimeOffset(2021, 11, 11, 21, 29, 54, TimeSpan.Zero), envelope.Time);
        Assert.True(envelope.IsNative);
    }

    [Theory]
    [MemberData(nameof(Serializers))]
    public void ADetailThatDoesNotFitTheLeadingRulesType_IsInvalidData_AsWhenReadAfterTheEvent(bool fast)
    {
        string body = AwsEvents.Body("eventbridge-ec2-state-change.json").Replace("\"pending\"", "[1,2]", StringComparison.Ordinal);
        var rules = new NativeMessageRules().WhenEventBridgeEvent<Ec2StateChange>("aws.ec2");

        var error = Assert.Throws<InvalidEnvelopeException>(() => Reader(fast).Read(Message(body), rules));

        Assert.Equal(InvalidEnvelopeReason.InvalidData, error.Reason);
    }

    [Theory]
    [MemberData(nameof(Serializers))]
    public void AnSesBounce_ThroughSns_IsMatchedByTheApplicationsPredicate(bool fast)
    {
        InboundMessage inbound = Reader(fast).Read(Message(AwsEvents.InSnsNotification(AwsEvents.Body("ses-bounce.json"))), Rules);

        var envelope = Assert.IsType<MessageEnvelope<SesNotification>>(inbound.Envelope);
        Assert.Equal(("Bounce", "Permanent", "jane@example.com"), (envelope.Message.NotificationType, envelope.Message.Bounce!.BounceType, envelope.Message.Bounce.BouncedRecipients[0].EmailAddress));
    }

    [Theory]
    [MemberData(nameof(Serializers))]
    public void ACloudWatchAlarm_ThroughSns_IsMatchedByAnAttributeOfTheNotification(bool fast)
    {
        string notification = AwsEvents.InSnsNotification(AwsEvents.Body("cloudwatch-alarm.json"), "arn:aws:sns:us-east-2:000000000000:example-topic", "ALARM: \\\"Example alarm name\\\" in US East (Ohio)");
        notification = notification.Replace("\"Timestamp\"", "\"MessageAttributes\":{\"MessageType\":{\"Type\":\"String\",\"Value\":\"alarm\"}},\"Timestamp\"", StringComparison.Ordinal);

        InboundMessage inbound = Reader(fast).Read(Message(notification), Rules);

        var envelope = Assert.IsType<MessageEnvelope<CloudWatchAlarm>>(inbound.Envelope);
        Assert.Equal(("Example alarm name", "ALARM", "INSUFFICIENT_DATA"), (envelope.Message.AlarmName, envelope.Message.NewStateValue, envelope.Message.OldStateValue));
    }

    [Theory]
    [MemberData(nameof(Serializers))]
    public void PlainJsonWithATypeAttribute_IsReadAsThatType(bool fast)
    {
        var message = Message(AwsEvents.Body("cloudwatch-alarm.json"), new Dictionary<string, MessageAttributeValue> { ["MessageType"] = MessageAttributeValue.FromString("alarm") });

        var envelope = Assert.IsType<MessageEnvelope<CloudWatchAlarm>>(Reader(fast).Read(message, Rules).Envelope);

        Assert.Equal("Example alarm name", envelope.Message.AlarmName);
    }

    [Theory]
    [MemberData(nameof(Serializers))]
    public void AnEnvelopeOnTheSameQueue_IsStillReadAsAnEnvelope_WhereverItsSpecVersionLies(bool fast)
    {
        string envelopeFirst = Encoding.UTF8.GetString(Envelope());
        string specVersionLast = "{\"type\":\"Orders.OrderPlaced\",\"source\":\"/orders\",\"id\":\"e-1\",\"data\":{\"OrderId\":\"O-1\",\"Records\":[{\"specversion\":\"nested\"}]},\"specversion\":\"1.0\"}";

        var first = Reader(fast).Read(Message(envelopeFirst), Rules).Envelope!;
        var last = Reader(fast).Read(Message(specVersionLast), Rules).Envelope!;

        Assert.False(first.IsNative);
        Assert.IsType<MessageEnvelope<Order>>(first);
        Assert.False(last.IsNative);
        Assert.Equal("O-1", Assert.IsType<MessageEnvelope<Order>>(last).Message.OrderId);
    }

    [Theory]
    [MemberData(nameof(Serializers))]
    public void AnEnvelopeWithATypeAttributeThatARuleMatches_IsStillReadAsAnEnvelope(bool fast)
    {
        // An attribute for SNS filter policies is a common habit: it does not make an envelope a native message.
        var rules = new NativeMessageRules().WhenMessageAttribute<CloudWatchAlarm>("MessageType", "Orders.OrderPlaced");
        var message = Message(Encoding.UTF8.GetString(Envelope()), new Dictionary<string, MessageAttributeValue> { ["MessageType"] = MessageAttributeValue.FromString("Orders.OrderPlaced") });

        MessageEnvelope envelope = Reader(fast).Read(message, rules).Envelope!;

        Assert.False(envelope.IsNative);
        Assert.Equal("ORD-20251103-0042", Assert.IsType<MessageEnvelope<Order>>(envelope).Message.OrderId);
    }

    [Fact]
    public void RulesAreTriedInTheOrderTheyWereAdded_AnEarlierPredicateWinsOverALaterAttributeRule()
    {
        var rules = new NativeMessageRules()
            .When<CloudWatchAlarm>(static (body, _) => body.IndexOf("\"AlarmName\""u8) >= 0, "an alarm")
            .WhenMessageAttribute<string>("MessageType", "note");
        var message = Message(AwsEvents.Body("cloudwatch-alarm.json"), new Dictionary<string, MessageAttributeValue> { ["MessageType"] = MessageAttributeValue.FromString("note") });

        var envelope = Assert.IsType<MessageEnvelope<CloudWatchAlarm>>(Reader(fast: true).Read(message, rules).Envelope);

        Assert.Equal("Example alarm name", envelope.Message.AlarmName);
    }

    [Theory]
    [MemberData(nameof(Serializers))]
    public void AnAttributeRuleBeforeAMatchingEventBridgeRule_WinsWhenTheMessagesAttributeMatchesIt(bool fast)
    {
        var rules = new NativeMessageRules()
            .WhenEventBridgeEvent<S3ObjectCreated>("aws.s3")
            .WhenMessageAttribute<Ec2StateChange>("MessageType", "ec2")
            .WhenEventBridgeEvent<S3ObjectCreated>("aws.ec2");
        var message = Message(AwsEvents.Body("eventbridge-ec2-state-change.json"), new Dictionary<string, MessageAttributeValue> { ["MessageType"] = MessageAttributeValue.FromString("ec2") });

        var envelope = Assert.IsType<MessageEnvelope<Ec2StateChange>>(Reader(fast).Read(message, rules).Envelope);

        Assert.Equal("i-abcd1111", envelope.Message.InstanceId);
        Assert.Equal("aws.ec2", envelope.Source);
    }

    [Fact]
    public void RulesBelongingToABuiltBus_CannotBeChanged()
    {
        NativeMessageRules? kept = null;
        using ServiceProvider services = new ServiceCollection()
            .AddMessageBus(bus => bus
                .AddMessageType<CloudWatchAlarm>(AwsEvents.AlarmType)
                .ConfigureSerialization(o => o.JsonSerializerContext = TestJsonContext.Default)
                .AddQueuePoller("alarms", o => kept = o.NativeMessages.Otherwise<CloudWatchAlarm>())
                .ConfigureLambdaProcessor(o => o.NativeMessages.Otherwise<CloudWatchAlarm>()))
            .BuildServiceProvider();

        var error = Assert.Throws<InvalidOperationException>(() => kept!.WhenMessageAttribute<CloudWatchAlarm>("MessageType", "alarm"));

        Assert.Contains("built", error.Message, StringComparison.Ordinal);
        Assert.Equal(["any other body -> CloudWatchAlarm"], kept!.Descriptions);
        Assert.Throws<InvalidOperationException>(() => services.GetRequiredService<Missive.Lambda.SqsEventProcessorOptions>().NativeMessages.Otherwise<string>());
    }

    [Theory]
    [MemberData(nameof(Serializers))]
    public void APlainTextSnsMessage_IsReadWithoutAnExceptionThrownAndCaught(bool fast)
    {
        var rules = new NativeMessageRules().Otherwise<string>();
        var message = Message(AwsEvents.InSnsNotification("Disk usage on db-1 is above 90%", "arn:aws:sns:eu-west-1:123456789012:ops", "ops"));
        InboundMessageReader reader = Reader(fast);
        reader.Read(message, rules); // warm

        int thread = Environment.CurrentManagedThreadId, thrown = 0;
        void Count(object? sender, System.Runtime.ExceptionServices.FirstChanceExceptionEventArgs e)
        {
            if (Environment.CurrentManagedThreadId == thread)
            {
                thrown++;
            }
        }

        AppDomain.CurrentDomain.FirstChanceException += Count;
        try
        {
            Assert.Equal("Disk usage on db-1 is above 90%", Assert.IsType<MessageEnvelope<string>>(reader.Read(message, rules).Envelope).Message);
        }
        finally
        {
            AppDomain.CurrentDomain.FirstChanceException -= Count;
        }

        Assert.Equal(0, thrown);
    }

    [Theory]
    [MemberData(nameof(Serializers))]
    public void ABodyNoRuleMatches_IsRefused_NamingTheRulesTriedAndTheFix_WithoutItsContent(bool fast)
    {
        string body = "{\"customer\":\"secret-customer\",\"total\":12}";

        var error = Assert.Throws<InvalidEnvelopeException>(() => Reader(fast).Read(Message(body), Rules));

        Assert.Equal(InvalidEnvelopeReason.NoNativeRuleMatched, error.Reason);
        Assert.Contains("S3 notification, eventName starting \"ObjectCreated:\" -> S3EventNotification", error.Message, StringComparison.Ordinal);
        Assert.Contains("message attribute MessageType = \"alarm\" -> CloudWatchAlarm", error.Message, StringComparison.Ordinal);
        Assert.Contains("AddFallbackHandler", error.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("secret-customer", error.Message, StringComparison.Ordinal);
        Assert.Equal(body, Encoding.UTF8.GetString(error.RawBody.Span)); // nothing lost
    }

    [Theory]
    [MemberData(nameof(Serializers))]
    public void NativeJsonThatDoesNotFitItsType_IsInvalidData_WithoutItsContent(bool fast)
    {
        string body = AwsEvents.Body("eventbridge-ec2-state-change.json").Replace("\"i-abcd1111\"", "{\"secret\":\"value\"}", StringComparison.Ordinal);

        var error = Assert.Throws<InvalidEnvelopeException>(() => Reader(fast).Read(Message(body), Rules));

        Assert.Equal(InvalidEnvelopeReason.InvalidData, error.Reason);
        Assert.DoesNotContain("secret", error.Message, StringComparison.Ordinal);
        Assert.Equal(body, Encoding.UTF8.GetString(error.RawBody.Span));
    }

    [Fact]
    public void AnS3EventOfAnotherKind_IsNotMatchedByAPrefixForCreatedObjects()
    {
        string removed = AwsEvents.Body("s3-object-created-put.json").Replace("ObjectCreated:Put", "ObjectRemoved:Delete", StringComparison.Ordinal);

        var error = Assert.Throws<InvalidEnvelopeException>(() => Reader(fast: true).Read(Message(removed), Rules));

        Assert.Equal(InvalidEnvelopeReason.NoNativeRuleMatched, error.Reason);
    }

    [Fact]
    public void WithoutRules_ANativeBody_IsAnInvalidEnvelope_AsBefore()
    {
        var error = Assert.Throws<InvalidEnvelopeException>(() => Reader(fast: true).Read(Message(AwsEvents.Body("s3-object-created-put.json"))));

        Assert.NotEqual(InvalidEnvelopeReason.NoNativeRuleMatched, error.Reason);
    }

    [Theory]
    [MemberData(nameof(Serializers))]
    public void AnSnsMessageOfPlainText_IsReadAsText_ByAStringRule(bool fast)
    {
        var rules = new NativeMessageRules().WhenS3Notification<S3EventNotification>().Otherwise<string>();
        string notification = AwsEvents.InSnsNotification("Disk usage on db-1 is above 90%", "arn:aws:sns:eu-west-1:123456789012:ops", "ops");

        var envelope = Assert.IsType<MessageEnvelope<string>>(Reader(fast).Read(Message(notification), rules).Envelope);

        Assert.Equal("Disk usage on db-1 is above 90%", envelope.Message);
        Assert.Equal(("text/plain", "arn:aws:sns:eu-west-1:123456789012:ops"), (envelope.DataContentType, envelope.Source));
        Assert.True(envelope.IsNative);
    }

    [Fact]
    public void APlainTextBody_StraightToTheQueue_WithATypeAttribute_IsReadAsText()
    {
        var rules = new NativeMessageRules().WhenMessageAttribute<string>("MessageType", "note");
        var message = Message("test", new Dictionary<string, MessageAttributeValue> { ["MessageType"] = MessageAttributeValue.FromString("note") }); // "test" is also valid base64

        var envelope = Assert.IsType<MessageEnvelope<string>>(Reader(fast: true).Read(message, rules).Envelope);

        Assert.Equal("test", envelope.Message);
    }

    [Fact]
    public void OneTypeForTheWholeQueue_ReadsEveryNativeBody()
    {
        var rules = new NativeMessageRules().Otherwise<CloudWatchAlarm>();

        var envelope = Assert.IsType<MessageEnvelope<CloudWatchAlarm>>(Reader(fast: true).Read(Message(AwsEvents.Body("cloudwatch-alarm.json")), rules).Envelope);

        Assert.Equal("ALARM", envelope.Message.NewStateValue);
    }

    [Fact]
    public void APredicateThatThrows_MakesTheMessageUnreadable_NotTheReaderFail()
    {
        var rules = new NativeMessageRules().When<CloudWatchAlarm>(static (_, _) => throw new InvalidOperationException("the application's bug"));

        var error = Assert.Throws<InvalidEnvelopeException>(() => Reader(fast: true).Read(Message(AwsEvents.Body("cloudwatch-alarm.json")), rules));

        Assert.Equal(InvalidEnvelopeReason.NoNativeRuleMatched, error.Reason);
        Assert.Contains("InvalidOperationException", error.Message, StringComparison.Ordinal);
    }

    private static InboundMessageReader Reader(bool fast)
    {
        MessageTypeMap map = AwsEvents.Map();
        SerializationOptions options = map.Options;
        EnvelopeSerializer json = fast ? new Utf8JsonEnvelopeSerializer(map) : new StandardJsonEnvelopeSerializer(map);
        return TestSerializers.Inbound(json, null, options);
    }

    private static byte[] Envelope()
    {
        using var serializer = new Utf8JsonEnvelopeSerializer(AwsEvents.Map());
        return serializer.SerializeToUtf8Text(Orders.Envelope(1));
    }

    private static SqsMessage Message(string body, IReadOnlyDictionary<string, MessageAttributeValue>? attributes = null) => new()
    {
        MessageId = "sqs-message-1",
        ReceiptHandle = "handle-1",
        Body = body,
        MessageAttributes = attributes ?? new Dictionary<string, MessageAttributeValue>(),
        SystemAttributes = new Dictionary<string, string> { ["SentTimestamp"] = "1762180029441", ["ApproximateReceiveCount"] = "1", ["ApproximateFirstReceiveTimestamp"] = "1762180029452", ["SenderId"] = "AIDAIENQZJOLO23YVJ4VO" },
    };
}
