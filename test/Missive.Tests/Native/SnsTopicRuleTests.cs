using System.Collections.Generic;
using Missive.Json;
using Missive.Serialization;
using Missive.Tests.Infrastructure;
using Missive.Tests.Interop;
using Missive.Transport;

namespace Missive.Tests.Native;

/// <summary>
/// <see cref="NativeMessageRules.WhenSnsTopic{T}"/>: two topics of untyped JSON feeding one queue, told apart by the
/// topic ARN of the SNS notification around each (by ARN or by name); a body without a notification around it (raw
/// delivery) is not taken for either.
/// </summary>
public sealed class SnsTopicRuleTests
{
    private const string Parcels = "arn:aws:sns:eu-west-1:123456789012:parcels";
    private const string Orders = "arn:aws:sns:eu-west-1:123456789012:orders";

    private static readonly NativeMessageRules Rules = new NativeMessageRules()
        .WhenSnsTopic<Shipping.Dispatched>(Parcels)
        .WhenSnsTopic<OrderSubmitted>("orders");

    [Fact]
    public void TwoTopicsOfUntypedJson_AreReadAsTheTypeOfTheirTopic_ByArnOrByName()
    {
        InboundMessage parcel = Reader().Read(Message(AwsEvents.InSnsNotification("{\"Parcel\":\"P-1\",\"Items\":2}", Parcels, "p")), Rules);
        InboundMessage order = Reader().Read(Message(AwsEvents.InSnsNotification("{\"Customer\":\"ada\",\"Total\":3}", Orders, "o")), Rules);

        Assert.Equal(new Shipping.Dispatched("P-1", 2), Assert.IsType<MessageEnvelope<Shipping.Dispatched>>(parcel.Envelope).Message);
        Assert.Equal(("ada", 3m), (Assert.IsType<MessageEnvelope<OrderSubmitted>>(order.Envelope).Message.Customer, ((MessageEnvelope<OrderSubmitted>)order.Envelope!).Message.Total));
        Assert.Equal(Parcels, parcel.Envelope!.Source);
    }

    [Fact]
    public void ATopicOfTheSameNameInAnotherAccount_MatchesTheNameRule_ButNotTheArnRule()
    {
        InboundMessage other = Reader().Read(Message(AwsEvents.InSnsNotification("{\"Customer\":\"bo\"}", "arn:aws:sns:eu-west-1:999999999999:orders", "o")), Rules);
        var error = Assert.Throws<InvalidEnvelopeException>(() => Reader().Read(Message(AwsEvents.InSnsNotification("{}", "arn:aws:sns:eu-west-1:999999999999:parcels", "p")), Rules));

        Assert.IsType<MessageEnvelope<OrderSubmitted>>(other.Envelope);
        Assert.Equal(InvalidEnvelopeReason.NoNativeRuleMatched, error.Reason);
        Assert.Contains("SNS topic " + Parcels, error.Message, System.StringComparison.Ordinal);
    }

    [Fact]
    public void ABodyWithoutANotificationAround_IsNotTakenForATopicsMessage()
    {
        var error = Assert.Throws<InvalidEnvelopeException>(() => Reader().Read(Message("{\"Parcel\":\"P-1\",\"Items\":2}"), Rules));

        Assert.Equal(InvalidEnvelopeReason.NoNativeRuleMatched, error.Reason);
    }

    private static InboundMessageReader Reader()
    {
        var map = new MessageTypeMap(new SerializationOptions { JsonSerializerContext = InteropJsonContext.Default });
        map.Add<OrderSubmitted>("interop.order-submitted");
        map.Add<Shipping.Dispatched>("interop.dispatched");
        return TestSerializers.Inbound(new Utf8JsonEnvelopeSerializer(map), null, map.Options);
    }

    private static SqsMessage Message(string body) => new()
    {
        MessageId = "sqs-message-1",
        ReceiptHandle = "handle-1",
        Body = body,
        MessageAttributes = new Dictionary<string, MessageAttributeValue>(),
    };
}
