using System;
using System.Collections.Generic;
using System.Linq;
using System.Text;
using System.Text.Json;
using System.Threading;
using System.Threading.Tasks;
using Missive.Json;
using Missive.Offload;
using Missive.Serialization;
using Missive.Tests.Infrastructure;
using Missive.Transport;

namespace Missive.Tests.Interop;

/// <summary>
/// NServiceBus's three SQS shapes read by <see cref="InboundMessageReader"/>. NServiceBus is not served here: the
/// bodies and attributes follow its SQS transport's source and tests (Particular/NServiceBus.AmazonSQS:
/// <c>TransportMessageTranslator</c>, <c>SqsHeadersTranslator</c>, <c>MessageTypeFullNameTranslator</c>,
/// <c>Receiving/MessageExtractionTests.cs</c>, and the approved payload
/// <c>MessageDispatcherTests.Does_not_send_extra_properties_in_payload_by_default.approved.txt</c>:
/// <c>{"Body":"e30=","S3BodyKey":null,"Headers":{…}}</c>), written here with System.Text.Json's default encoder as the
/// transport's own serializer context writes them (so <c>+</c> in base64 arrives as <c>\u002B</c>).
/// </summary>
public sealed class NServiceBusReaderTests
{
    private const string MessageId = "093C17C6-D32E-44FE-9134-65C10C1287EB";
    private const string Assembly = ", Missive.Tests, Version=1.0.0.0, Culture=neutral, PublicKeyToken=null";
    private static readonly Guid OrderId = Guid.Parse("63276a04-4452-430f-a5df-ae1d31727408");

    public static TheoryData<bool> Serializers => [false, true];

    private static NativeMessageRules Rules() => new NativeMessageRules()
        .WhenNServiceBus<OrderSubmitted>()
        .WhenNServiceBus<Shipping.Dispatched>();

    [Theory]
    [MemberData(nameof(Serializers))]
    public void TheWrappedTransportMessage_IsReadWithItsHeaders(bool fast)
    {
        string wrapped = Wrapped(OrderJson(), Headers(typeof(OrderSubmitted).FullName + Assembly + ";Missive.Tests.Interop.IOrderEvent" + Assembly));
        Assert.Contains("\\u002B", wrapped, StringComparison.Ordinal); // the escaped '+' of base64, as the transport writes it

        InboundMessage inbound = Reader(fast).Read(Message(wrapped), Rules());

        var envelope = Assert.IsType<MessageEnvelope<OrderSubmitted>>(inbound.Envelope);
        Assert.Equal((OrderId, "ada>>>", 42.50m), (envelope.Message.OrderId, envelope.Message.Customer, envelope.Message.Total));
        Assert.Equal(MessageId, envelope.Id);
        Assert.Equal("Sales", envelope.Source);
        Assert.Equal(new DateTimeOffset(2026, 12, 1, 9, 30, 0, 123, 456, TimeSpan.Zero), envelope.Time);
        Assert.True(envelope.IsNative);
        NServiceBusMetadata nsb = envelope.NServiceBusMetadata!;
        Assert.Equal(("conversation-1", "correlation-1", "Publish", "Sales"), (nsb.ConversationId, nsb.CorrelationId, nsb.MessageIntent, nsb.OriginatingEndpoint));
        Assert.Equal([typeof(OrderSubmitted).FullName + Assembly, "Missive.Tests.Interop.IOrderEvent" + Assembly], nsb.EnclosedMessageTypes);
        Assert.Equal("eu-1", nsb.Headers["Tenant"]);
        Assert.Equal("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", envelope.Extensions[CloudEventAttributeNames.TraceParent].AsString()); // NServiceBus 8+ sends W3C trace context so
    }

    [Theory]
    [MemberData(nameof(Serializers))]
    public void TheUnwrappedBody_WithItsHeadersInTheAttribute_IsRead_ItsIdFromTheIdAttribute(bool fast)
    {
        Dictionary<string, string> headers = Headers(typeof(Shipping.Dispatched).FullName + Assembly);
        headers.Remove("NServiceBus.MessageId"); // the transport sends it as an attribute of its own
        var attributes = new Dictionary<string, MessageAttributeValue>
        {
            ["NServiceBus.AmazonSQS.Headers"] = MessageAttributeValue.FromString(JsonSerializer.Serialize(headers)),
            ["NServiceBus.MessageId"] = MessageAttributeValue.FromString(MessageId),
        };

        InboundMessage inbound = Reader(fast).Read(Message("{\"Parcel\":\"P-1\",\"Items\":2}", attributes), Rules());

        var envelope = Assert.IsType<MessageEnvelope<Shipping.Dispatched>>(inbound.Envelope);
        Assert.Equal(new Shipping.Dispatched("P-1", 2), envelope.Message);
        Assert.Equal(MessageId, envelope.Id);
        Assert.Equal("conversation-1", envelope.NServiceBusMetadata!.ConversationId);
    }

    [Theory]
    [MemberData(nameof(Serializers))]
    public void ANativeMessageWithMessageTypeFullName_IsRead_AsABase64BodyTooWhenItIsOne(bool fast)
    {
        var attributes = new Dictionary<string, MessageAttributeValue> { ["MessageTypeFullName"] = MessageAttributeValue.FromString("Missive.Tests.Interop.Shipping+Dispatched") };
        string json = "{\"parcel\":\"P-2\",\"items\":\"3\"}";

        InboundMessage plain = Reader(fast).Read(Message(json, attributes), Rules());
        InboundMessage base64 = Reader(fast).Read(Message(Convert.ToBase64String(Encoding.UTF8.GetBytes(json)), attributes), Rules());

        Assert.Equal(new Shipping.Dispatched("P-2", 3), Assert.IsType<MessageEnvelope<Shipping.Dispatched>>(plain.Envelope).Message);
        Assert.Equal(new Shipping.Dispatched("P-2", 3), Assert.IsType<MessageEnvelope<Shipping.Dispatched>>(base64.Envelope).Message);
        Assert.Equal("sqs-message-1", plain.Envelope!.Id); // no NServiceBus id: SQS's
        Assert.Empty(plain.Envelope.NServiceBusMetadata!.Headers);
    }

    [Theory]
    [MemberData(nameof(Serializers))]
    public void AnExplicitName_ReadsATypeWhoseNameDiffersOnTheNServiceBusSide(bool fast)
    {
        string wrapped = Wrapped("{\"Parcel\":\"P-3\",\"Items\":1}", Headers("Warehouse.Messages.ParcelDispatched, Warehouse.Messages"));

        InboundMessage inbound = Reader(fast).Read(Message(wrapped), new NativeMessageRules().WhenNServiceBus<Shipping.Dispatched>("Warehouse.Messages.ParcelDispatched"));

        Assert.Equal(new Shipping.Dispatched("P-3", 1), Assert.IsType<MessageEnvelope<Shipping.Dispatched>>(inbound.Envelope).Message);
    }

    [Theory]
    [MemberData(nameof(Serializers))]
    public void ATypeNoRuleNames_IsRefused_NamingIt_AndTheFix(bool fast)
    {
        string wrapped = Wrapped("{}", Headers("Billing.Messages.InvoiceIssued, Billing.Messages"));

        var error = Assert.Throws<InvalidEnvelopeException>(() => Reader(fast).Read(Message(wrapped), Rules()));

        Assert.Equal(InvalidEnvelopeReason.NoNativeRuleMatched, error.Reason);
        Assert.Contains("NServiceBus message of Billing.Messages.InvoiceIssued", error.Message, StringComparison.Ordinal);
        Assert.Contains("WhenNServiceBus<T>()", error.Message, StringComparison.Ordinal);
        Assert.Equal(Encoding.UTF8.GetBytes(wrapped), error.RawBody);
    }

    [Fact]
    public void TheTransportsOwnPayloadWithoutMessageTypes_IsNotTakenForAnNServiceBusMessageOfAType()
    {
        // The approved payload of the transport's tests: headers without EnclosedMessageTypes (a control-like message).
        string approved = "{\"Body\":\"e30=\",\"S3BodyKey\":null,\"Headers\":{\"NServiceBus.AmazonSQS.TimeToBeReceived\":\"10675199.01:48:05.4775807\",\"NServiceBus.ReplyToAddress\":\"TestReplyToAddress\",\"NServiceBus.MessageId\":\"093C17C6-D32E-44FE-9134-65C10C1287EB\"}}";

        var error = Assert.Throws<InvalidEnvelopeException>(() => Reader(fast: true).Read(Message(approved), Rules()));

        Assert.Equal(InvalidEnvelopeReason.NoNativeRuleMatched, error.Reason);
        Assert.DoesNotContain("NServiceBus message of", error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("wrapped-not-base64", InvalidEnvelopeReason.Malformed, "Body is not base64")]
    [InlineData("in-s3", InvalidEnvelopeReason.PayloadUnavailable, "S3BodyKey 'orders/093C17C6'): to fetch it, UsePayloadOffload")]
    [InlineData("headers-attribute-not-json", InvalidEnvelopeReason.Malformed, "NServiceBus.AmazonSQS.Headers message attribute is not a JSON object")]
    [InlineData("time-sent-in-another-format", InvalidEnvelopeReason.Malformed, "NServiceBus.TimeSent header")]
    [InlineData("data-not-the-type", InvalidEnvelopeReason.InvalidData, "")]
    public void WhatIsWrong_IsATypedError(string kind, InvalidEnvelopeReason reason, string words)
    {
        Dictionary<string, string> headers = Headers(typeof(OrderSubmitted).FullName!);
        SqsMessage message = kind switch
        {
            "wrapped-not-base64" => Message(Wrapped(OrderJson(), headers).Replace("\"Body\":\"", "\"Body\":\"*", StringComparison.Ordinal)),
            "in-s3" => Message(JsonSerializer.Serialize(new { Body = "", S3BodyKey = "orders/093C17C6", Headers = headers })),
            "headers-attribute-not-json" => Message(OrderJson(), new Dictionary<string, MessageAttributeValue> { ["NServiceBus.AmazonSQS.Headers"] = MessageAttributeValue.FromString("NOT JSON DICTIONARY") }),
            "time-sent-in-another-format" => Message(Wrapped(OrderJson(), new Dictionary<string, string>(headers) { ["NServiceBus.TimeSent"] = "2026-12-01T09:30:00Z" })),
            _ => Message(Wrapped("{\"Total\":\"forty\"}", headers)),
        };

        var error = Assert.Throws<InvalidEnvelopeException>(() => Reader(fast: true).Read(message, Rules()));

        Assert.Equal(reason, error.Reason);
        Assert.Contains(words, error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("wrapped")]
    [InlineData("headers-attribute")]
    [InlineData("message-type-full-name")]
    public async Task ABodyInS3_IsFetchedFromTheEndpointsBucket_ThenReadAsAnyOther(string shape)
    {
        // As the transport sends a body over its size limit: the body in the bucket its S3BucketForLargeMessages names,
        // the key (with the endpoint's prefix) in S3BodyKey; the object holds the body as serialized (not base64).
        const string Key = "sales/093C17C6-D32E-44FE-9134-65C10C1287EB";
        var store = new KeyedStore();
        store.Objects[("nsb-large-messages", Key)] = Encoding.UTF8.GetBytes(OrderJson());
        SqsMessage message = InS3(shape, Key);
        var resolver = new PayloadResolver(store, new PayloadOffloadOptions { NServiceBusBucket = "nsb-large-messages" });

        SqsMessage resolved = await resolver.ResolveAsync(message);
        InboundMessage inbound = Reader(fast: true).Read(resolved, Rules());

        var envelope = Assert.IsType<MessageEnvelope<OrderSubmitted>>(inbound.Envelope);
        Assert.Equal((OrderId, "ada>>>", 42.50m), (envelope.Message.OrderId, envelope.Message.Customer, envelope.Message.Total));
        Assert.Equal(MessageId, envelope.Id);
        Assert.Equal([("nsb-large-messages", Key)], store.Fetched);
        Assert.False(resolved.MessageAttributes.ContainsKey("S3BodyKey"));
        if (shape != "message-type-full-name")
        {
            Assert.Equal("conversation-1", envelope.NServiceBusMetadata!.ConversationId);
            Assert.False(envelope.NServiceBusMetadata.Headers.ContainsKey("S3BodyKey"));
        }
    }

    [Fact]
    public async Task ABodyInS3_WithoutTheBucketSet_IsLeftAsItIs_AndUnreadable_NamingTheSetting()
    {
        var store = new KeyedStore();
        SqsMessage message = InS3("wrapped", "sales/1");

        SqsMessage resolved = await new PayloadResolver(store, new PayloadOffloadOptions()).ResolveAsync(message);
        var error = Assert.Throws<InvalidEnvelopeException>(() => Reader(fast: true).Read(resolved, Rules()));

        Assert.Same(message, resolved);
        Assert.Empty(store.Fetched);
        Assert.Equal(InvalidEnvelopeReason.PayloadUnavailable, error.Reason);
        Assert.Contains("PayloadOffloadOptions.NServiceBusBucket", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task ABodyInS3_ThatIsNotThere_IsUnavailable_NamingBucketAndKey()
    {
        var resolver = new PayloadResolver(new KeyedStore(), new PayloadOffloadOptions { NServiceBusBucket = "nsb-large-messages" });

        var error = await Assert.ThrowsAsync<InvalidEnvelopeException>(() => resolver.ResolveAsync(InS3("headers-attribute", "sales/gone")));

        Assert.Equal(InvalidEnvelopeReason.PayloadUnavailable, error.Reason);
        Assert.Contains("s3://nsb-large-messages/sales/gone", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task AWrapperWithoutAKey_IsNotFetched_NorRebuilt()
    {
        var store = new KeyedStore();
        SqsMessage message = Message(Wrapped(OrderJson(), Headers(typeof(OrderSubmitted).FullName!)));

        SqsMessage resolved = await new PayloadResolver(store, new PayloadOffloadOptions { NServiceBusBucket = "nsb-large-messages" }).ResolveAsync(message);

        Assert.Same(message, resolved);
        Assert.Empty(store.Fetched);
    }

    /// <summary>A message whose body the endpoint put in S3, in one of the transport's shapes.</summary>
    private static SqsMessage InS3(string shape, string key)
    {
        Dictionary<string, string> headers = Headers(typeof(OrderSubmitted).FullName + Assembly);
        switch (shape)
        {
            case "wrapped":
                return Message(JsonSerializer.Serialize(new WrappedMessage("empty message", key, headers)));
            case "headers-attribute":
                headers["S3BodyKey"] = key;
                return Message("empty message", new Dictionary<string, MessageAttributeValue>
                {
                    ["NServiceBus.AmazonSQS.Headers"] = MessageAttributeValue.FromString(JsonSerializer.Serialize(headers)),
                    ["NServiceBus.MessageId"] = MessageAttributeValue.FromString(MessageId),
                });
            default:
                return Message("empty message", new Dictionary<string, MessageAttributeValue>
                {
                    ["MessageTypeFullName"] = MessageAttributeValue.FromString(typeof(OrderSubmitted).FullName!),
                    ["S3BodyKey"] = MessageAttributeValue.FromString(key),
                    ["NServiceBus.MessageId"] = MessageAttributeValue.FromString(MessageId),
                });
        }
    }

    /// <summary>A payload store holding objects at the keys given, in any bucket, and recording what it was asked for.</summary>
    private sealed class KeyedStore : IPayloadStore
    {
        public Dictionary<(string Bucket, string Key), byte[]> Objects { get; } = [];

        public List<(string Bucket, string Key)> Fetched { get; } = [];

        public string Bucket => "missive-payloads";

        public Task<PayloadLocation> PutAsync(ReadOnlyMemory<byte> payload, CancellationToken cancellationToken = default) => throw new NotSupportedException();

        public Task<ReadOnlyMemory<byte>> GetAsync(PayloadLocation location, long maxLength, CancellationToken cancellationToken = default)
        {
            Fetched.Add((location.Bucket, location.Key));
            return Objects.TryGetValue((location.Bucket, location.Key), out byte[]? body)
                ? Task.FromResult<ReadOnlyMemory<byte>>(body)
                : Task.FromException<ReadOnlyMemory<byte>>(new MessageTransportException($"S3 GetObject on {location}: NoSuchKey") { ErrorCode = "NoSuchKey", StatusCode = 404 });
        }

        public Task DeleteAsync(PayloadLocation location, CancellationToken cancellationToken = default) => throw new NotSupportedException();
    }

    [Theory]
    [InlineData("default encoder")] // '+' as \u002B, as the transport's own serializer context writes it
    [InlineData("no escapes")] // as a relaxed encoder or Newtonsoft writes it
    [InlineData("slash escaped")]
    [InlineData("letters escaped")]
    public void TheWrappedBody_IsDecoded_WhateverJsonEscapesItCarries(string escaping)
    {
        const string Json = "{\"Parcel\":\"???>>>\",\"Items\":7}"; // its base64 has both '+' and '/'
        string base64 = Convert.ToBase64String(Encoding.UTF8.GetBytes(Json));
        Assert.Contains('+', base64);
        Assert.Contains('/', base64);
        string written = escaping switch
        {
            "default encoder" => JsonSerializer.Serialize(base64),
            "no escapes" => "\"" + base64 + "\"",
            "slash escaped" => "\"" + base64.Replace("/", "\\/", StringComparison.Ordinal) + "\"",
            _ => "\"" + base64.Replace("P", "\\u0050", StringComparison.Ordinal).Replace("+", "\\u002b", StringComparison.Ordinal) + "\"",
        };
        string headers = JsonSerializer.Serialize(Headers(typeof(Shipping.Dispatched).FullName!));

        InboundMessage inbound = Reader(fast: true).Read(Message("{\"Body\":" + written + ",\"S3BodyKey\":null,\"Headers\":" + headers + "}"), Rules());

        Assert.Equal(new Shipping.Dispatched("???>>>", 7), Assert.IsType<MessageEnvelope<Shipping.Dispatched>>(inbound.Envelope).Message);
    }

    [Theory]
    [InlineData("wrapped, '+' escaped", true)]
    [InlineData("wrapped, no escapes", true)]
    [InlineData("unwrapped base64", true)]
    [InlineData("unwrapped JSON", true)]
    [InlineData("wrapped, not base64", false)]
    [InlineData("wrapped, not the type", false)]
    public void EveryBufferTheReadRents_GoesBackOnceAndCleared_ReadOrRefused(string shape, bool reads)
    {
        const string Json = "{\"Parcel\":\"???>>>\",\"Items\":7}"; // its base64 has '+' and '/'
        string base64 = Convert.ToBase64String(Encoding.UTF8.GetBytes(Json));
        string headers = JsonSerializer.Serialize(Headers(typeof(Shipping.Dispatched).FullName!));
        var byName = new Dictionary<string, MessageAttributeValue> { ["MessageTypeFullName"] = MessageAttributeValue.FromString(typeof(Shipping.Dispatched).FullName!) };
        SqsMessage message = shape switch
        {
            "wrapped, '+' escaped" => Message("{\"Body\":" + JsonSerializer.Serialize(base64) + ",\"Headers\":" + headers + "}"),
            "wrapped, no escapes" => Message("{\"Body\":\"" + base64 + "\",\"Headers\":" + headers + "}"),
            "unwrapped base64" => Message(base64, byName),
            "unwrapped JSON" => Message(Json, byName),
            "wrapped, not base64" => Message("{\"Body\":\"*" + base64 + "\",\"Headers\":" + headers + "}"),
            _ => Message("{\"Body\":\"" + Convert.ToBase64String(Encoding.UTF8.GetBytes("{\"Items\":\"seven\"}")) + "\",\"Headers\":" + headers + "}"),
        };
        var pool = new CountingArrayPool();

        Exception? error = Record.Exception(() => Reader(fast: true, pool).Read(message, Rules()));

        Assert.Equal(reads, error is null);
        Assert.True(reads || error is InvalidEnvelopeException, error?.ToString());
        Assert.True(pool.Rents > 0);
        Assert.Equal((pool.Rents, 0, 0, 0), (pool.Returns, pool.Outstanding, pool.DoubleReturns, pool.DirtyReturns));
    }

    [Fact]
    public void MessagesOfTwoTypesInTurn_EachReadAsItsOwn_WithTheirTypesReadOnly()
    {
        // The enclosed types' header is read once for the messages that repeat it; each message still gets its own.
        var rules = new NativeMessageRules().WhenNServiceBus<Shipping.Dispatched>().WhenNServiceBus<OrderSubmitted>();
        SqsMessage parcel = Message(Wrapped("{\"Parcel\":\"P-1\",\"Items\":2}", Headers(typeof(Shipping.Dispatched).FullName + Assembly)));
        SqsMessage order = Message(Wrapped(OrderJson(), Headers(typeof(OrderSubmitted).FullName + Assembly)));

        MessageEnvelope[] read = [.. new[] { parcel, order, parcel, order }.Select(m => Reader(fast: true).Read(m, rules).Envelope!)];

        Assert.IsType<MessageEnvelope<Shipping.Dispatched>>(read[2]);
        Assert.IsType<MessageEnvelope<OrderSubmitted>>(read[3]);
        Assert.Equal([typeof(Shipping.Dispatched).FullName + Assembly], read[0].NServiceBusMetadata!.EnclosedMessageTypes);
        Assert.Equal([typeof(OrderSubmitted).FullName + Assembly], read[3].NServiceBusMetadata!.EnclosedMessageTypes);
        Assert.Throws<NotSupportedException>(() => ((IList<string>)read[0].NServiceBusMetadata!.EnclosedMessageTypes)[0] = "changed");
    }

    [Fact]
    public void HeaderValuesAnEndpointRepeats_AreEachMessagesOwn_WrittenWithEscapesOrWithout()
    {
        // The values of intent, endpoint and content type are matched against the last ones read; each message must
        // still get what it carries, whether its JSON escapes the characters or not.
        (string Intent, string Endpoint, string ContentType)[] sent =
        [
            ("Publish", "Sales", "application/json"),
            ("Publish", "Ventes-\u00e9", "application/json"), // the default encoder writes \u00E9
            ("Send", "Sales", "text/json"),
            ("Send", "Sales", "text/json"),
        ];
        SqsMessage[] messages = [.. sent.Select(s =>
        {
            Dictionary<string, string> headers = Headers(typeof(OrderSubmitted).FullName!);
            headers["NServiceBus.MessageIntent"] = s.Intent;
            headers["NServiceBus.OriginatingEndpoint"] = s.Endpoint;
            headers["NServiceBus.ContentType"] = s.ContentType;
            return Message(Wrapped(OrderJson(), headers));
        })];
        // The same intent and endpoint once more, escaped where nothing needs escaping.
        messages = [.. messages, Message(messages[0].Body.Replace("\"Publish\"", "\"Pub\\u006cish\"", StringComparison.Ordinal).Replace("\"Sales\"", "\"\\u0053ales\"", StringComparison.Ordinal))];
        sent = [.. sent, sent[0]];

        NServiceBusMetadata[] read = [.. messages.Select(m => Reader(fast: true).Read(m, Rules()).Envelope!.NServiceBusMetadata!)];

        Assert.Contains("\\u00e9", messages[1].Body, StringComparison.OrdinalIgnoreCase);
        Assert.Contains("Pub\\u006cish", messages[4].Body, StringComparison.Ordinal);
        Assert.Equal(sent.Select(s => ((string?)s.Intent, (string?)s.Endpoint, s.ContentType)), read.Select(m => (m.MessageIntent, m.OriginatingEndpoint, m.Headers["NServiceBus.ContentType"])));
    }

    [Fact]
    public void AWrappedBody_WithAnEscapeOutsideBase64_IsMalformed()
    {
        string headers = JsonSerializer.Serialize(Headers(typeof(Shipping.Dispatched).FullName!));

        var error = Assert.Throws<InvalidEnvelopeException>(() => Reader(fast: true).Read(Message("{\"Body\":\"e30\\u00e9\",\"S3BodyKey\":null,\"Headers\":" + headers + "}"), Rules()));

        Assert.Equal(InvalidEnvelopeReason.Malformed, error.Reason);
        Assert.Contains("Body is not base64", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void AMessageWithoutTimeSent_TakesTheTimeSqsStoredIt()
    {
        Dictionary<string, string> headers = Headers(typeof(OrderSubmitted).FullName!);
        headers.Remove("NServiceBus.TimeSent");

        MessageEnvelope envelope = Reader(fast: true).Read(Message(Wrapped(OrderJson(), headers)), Rules()).Envelope!;

        Assert.Equal(DateTimeOffset.FromUnixTimeMilliseconds(1762180029441), envelope.Time); // the message's SentTimestamp
    }

    [Theory]
    [InlineData("2026-12-01 09:30:00:000001 Z", true)]
    [InlineData("2024-02-29 23:59:59:999999 Z", true)]
    [InlineData("2026-02-29 09:30:00:000000 Z", false)] // no such day
    [InlineData("2026-12-01 24:00:00:000000 Z", false)]
    [InlineData("2026-12-01 09:30:00:00000 Z", false)] // five digits of fraction
    [InlineData("2026-12-01T09:30:00:000000 Z", false)]
    public void TimeSent_IsReadToTheMicrosecond_InNServiceBusFormatOnly(string timeSent, bool valid)
    {
        Dictionary<string, string> headers = Headers(typeof(OrderSubmitted).FullName!);
        headers["NServiceBus.TimeSent"] = timeSent;
        SqsMessage message = Message(Wrapped(OrderJson(), headers));

        if (valid)
        {
            DateTimeOffset expected = DateTimeOffset.ParseExact(timeSent, "yyyy-MM-dd HH:mm:ss:ffffff 'Z'", System.Globalization.CultureInfo.InvariantCulture, System.Globalization.DateTimeStyles.AssumeUniversal);
            Assert.Equal(expected, Reader(fast: true).Read(message, Rules()).Envelope!.Time);
        }
        else
        {
            Assert.Equal(InvalidEnvelopeReason.Malformed, Assert.Throws<InvalidEnvelopeException>(() => Reader(fast: true).Read(message, Rules())).Reason);
        }
    }

    [Fact]
    public void OneNameForTwoTypes_IsRefused_NamingBoth()
    {
        var error = Assert.Throws<InvalidOperationException>(() => new NativeMessageRules()
            .WhenNServiceBus<OrderSubmitted>("Shared.Thing")
            .WhenNServiceBus<Shipping.Dispatched>("Shared.Thing, Shared"));

        Assert.Contains("Missive.Tests.Interop.OrderSubmitted", error.Message, StringComparison.Ordinal);
        Assert.Contains("Missive.Tests.Interop.Shipping+Dispatched", error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("Ns.Type", "Ns.Type")]
    [InlineData("Ns.Outer+Inner, Asm, Version=1.0.0.0, Culture=neutral, PublicKeyToken=null", "Ns.Outer+Inner")]
    [InlineData("Ns.Batch`1[[Ns.Line, Asm, Version=1.0.0.0, Culture=neutral, PublicKeyToken=null]], Asm", "Ns.Batch`1[[Ns.Line, Asm, Version=1.0.0.0, Culture=neutral, PublicKeyToken=null]]")]
    public void AnEnclosedTypeEntry_IsMatchedByItsFullName(string entry, string fullName)
        => Assert.Equal(fullName, NServiceBusMessage.FullNameOf(entry));

    [Fact]
    public void AGenericTypesOwnFullName_IsWhatItsAssemblyQualifiedNameGivesUpToItsAssembly()
        => Assert.Equal(typeof(Batch<Shipping.Dispatched>).FullName, NServiceBusMessage.FullNameOf(typeof(Batch<Shipping.Dispatched>).AssemblyQualifiedName!));

    [Theory]
    [MemberData(nameof(Serializers))]
    public void HeaderNamesWrittenWithEscapes_AreTheHeadersTheySpell(bool fast)
    {
        // A writer may escape any character of a name; NServiceBus.MessageIx, as long as NServiceBus.MessageId, is
        // another header, kept as it is.
        string wrapped = Wrapped(OrderJson(), Headers(typeof(OrderSubmitted).FullName!))
            .Replace("\"NServiceBus.MessageId\"", "\"NServiceBus.Message\\u0049d\"", StringComparison.Ordinal)
            .Replace("\"NServiceBus.OriginatingEndpoint\"", "\"NServiceBus.\\u004friginatingEndpoint\"", StringComparison.Ordinal)
            .Replace("\"NServiceBus.TimeSent\"", "\"NServiceBus.MessageIx\":\"other\",\"NServiceBus.Version\":\"9.2.3\",\"NServiceBus.TimeSent\"", StringComparison.Ordinal);
        Assert.Contains("Message\\u0049d", wrapped, StringComparison.Ordinal);

        var envelope = Assert.IsType<MessageEnvelope<OrderSubmitted>>(Reader(fast).Read(Message(wrapped), Rules()).Envelope);

        Assert.Equal(MessageId, envelope.Id);
        Assert.Equal("Sales", envelope.Source);
        Assert.Equal("other", envelope.NServiceBusMetadata!.Headers["NServiceBus.MessageIx"]);
        Assert.Equal(MessageId, envelope.NServiceBusMetadata.Headers["NServiceBus.MessageId"]);
        Assert.Equal("9.2.3", envelope.NServiceBusMetadata.Headers["NServiceBus.Version"]);
    }

    /// <summary>The order as an NServiceBus endpoint's JSON serializer writes it; its base64 has a '+' (from "ada>>>").</summary>
    private static string OrderJson()
        => "{\"OrderId\":\"63276a04-4452-430f-a5df-ae1d31727408\",\"Customer\":\"ada>>>\",\"Total\":42.50,\"SubmittedAt\":\"2026-12-01T09:30:00+00:00\",\"Lines\":[\"book\",\"pen\"]}";

    /// <summary>The headers an NServiceBus 9 endpoint sends with a published event (names from its Headers class).</summary>
    private static Dictionary<string, string> Headers(string enclosedMessageTypes) => new()
    {
        ["NServiceBus.MessageId"] = MessageId,
        ["NServiceBus.EnclosedMessageTypes"] = enclosedMessageTypes,
        ["NServiceBus.ConversationId"] = "conversation-1",
        ["NServiceBus.CorrelationId"] = "correlation-1",
        ["NServiceBus.MessageIntent"] = "Publish",
        ["NServiceBus.OriginatingEndpoint"] = "Sales",
        ["NServiceBus.TimeSent"] = "2026-12-01 09:30:00:123456 Z",
        ["NServiceBus.ContentType"] = "application/json",
        ["traceparent"] = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
        ["Tenant"] = "eu-1",
    };

    /// <summary>The wrapped transport message, as the transport serializes it (its property order, the default encoder).</summary>
    private static string Wrapped(string json, Dictionary<string, string> headers)
        => JsonSerializer.Serialize(new WrappedMessage(Convert.ToBase64String(Encoding.UTF8.GetBytes(json)), null, headers));

    private sealed record WrappedMessage(string Body, string? S3BodyKey, Dictionary<string, string> Headers);

    private static InboundMessageReader Reader(bool fast, System.Buffers.ArrayPool<byte>? pool = null)
    {
        var map = new MessageTypeMap(new SerializationOptions { JsonSerializerContext = InteropJsonContext.Default, BufferPool = pool ?? System.Buffers.ArrayPool<byte>.Shared });
        map.Add<Order>(TestSerializers.OrderType);
        map.Add<OrderSubmitted>("interop.order-submitted");
        map.Add<Shipping.Dispatched>("interop.dispatched");
        EnvelopeSerializer json = fast ? new Utf8JsonEnvelopeSerializer(map) : new StandardJsonEnvelopeSerializer(map);
        return TestSerializers.Inbound(json, null, map.Options);
    }

    private static SqsMessage Message(string body, IReadOnlyDictionary<string, MessageAttributeValue>? attributes = null) => new()
    {
        MessageId = "sqs-message-1",
        ReceiptHandle = "handle-1",
        Body = body,
        MessageAttributes = attributes ?? new Dictionary<string, MessageAttributeValue>(),
        SystemAttributes = new Dictionary<string, string> { ["SentTimestamp"] = "1762180029441" },
    };
}
