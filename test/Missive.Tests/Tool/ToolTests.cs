using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text;
using System.Text.Json;
using System.Threading.Tasks;
using Microsoft.Extensions.DependencyInjection;
using Missive.Aws;
using Missive.Offload;
using Missive.Serialization;
using Missive.Tests.Aws;
using Missive.Tests.Infrastructure;
using Missive.Tests.Interop;
using Missive.Tool;
using Missive.Transport;

namespace Missive.Tests.Tool;

/// <summary>
/// The operator's tool run as an operator runs it (its command line, in process), against the local endpoint (fauxqs
/// behind the signing proxy) and the local S3: peek decodes every kind of body, why names the reader's reason for each
/// unreadable kind, send and stats work, and bad input gets one line and a non-zero exit code.
/// </summary>
[Collection(AwsEmulatorCollection.Name)]
public sealed class ToolTests(AwsEmulatorFixture fixture, S3PayloadStoreTests.S3Emulator s3) : IClassFixture<S3PayloadStoreTests.S3Emulator>
{
    [EmulatorFact]
    public async Task Peek_ShowsEachKindOfBodyDecoded_AndLeavesThemInTheQueue()
    {
        string queue = AwsTransportSqsTests.NewName("peek");
        await fixture.Emulator.CreateQueueAsync(queue);
        string topic = await fixture.Emulator.CreateTopicAsync(AwsTransportSqsTests.NewName("peek-topic"));
        await fixture.Emulator.SubscribeAsync(topic, queue, raw: false);
        using ServiceProvider services = Bodies.Services();
        OutboundMessageWriter writer = services.GetRequiredService<OutboundMessageWriter>();
        using AwsTransport transport = fixture.Emulator.CreateTransport();
        using S3PayloadStore store = s3.Store();
        var ids = new Dictionary<string, string>();
        ids["json"] = await transport.SendAsync(writer.ToSqs(Bodies.Envelope(1), queue));
        ids["protobuf"] = await transport.SendAsync(writer.ToSqs(Bodies.Envelope(2), queue, EnvelopeFormat.Protobuf));
        MessageEnvelope<Order> large = Bodies.Envelope(3);
        large.Message.CustomerName = new string('c', 3 * 1024 * 1024); // over SQS's 1 MiB: why it was claim-checked
        PayloadLocation stored = await store.PutAsync(writer.ToSqs(large, queue).Utf8Body);
        ids["claim-check"] = await transport.SendAsync(new SqsSendRequest
        {
            QueueName = queue,
            Body = PayloadPointer.Write(stored, PayloadPointer.ClassName),
            MessageAttributes = new Dictionary<string, MessageAttributeValue> { [PayloadPointer.SizeAttribute] = MessageAttributeValue.FromNumber("1234") },
        });
        await transport.PublishAsync(writer.ToSns(Bodies.Envelope(4), topic));
        ids["native"] = await transport.SendAsync(new SqsSendRequest { QueueName = queue, Body = "{\"parcel\":\"P-9\",\"items\":2}" });
        ids["masstransit"] = await transport.SendAsync(new SqsSendRequest { QueueName = queue, Body = Encoding.UTF8.GetString(MassTransitBodies.Serialize(new Shipping.Dispatched("P-7", 3))) });

        (int exit, string output, string error) = await RunAsync("peek", queue, "--max-messages", "20", "--output", "json", "--payload-bucket", store.Bucket, "--s3-endpoint-url", s3.Endpoint.ToString());

        Assert.True(exit == 0, error);
        using JsonDocument shown = JsonDocument.Parse(output);
        Dictionary<string, JsonElement> byId = shown.RootElement.EnumerateArray().ToDictionary(m => m.GetProperty("messageId").GetString()!, m => m.Clone());
        Assert.Equal(6, byId.Count);
        Assert.Equal("CloudEvents envelope (JSON)", byId[ids["json"]].GetProperty("shape").GetString());
        Assert.Equal("ORD-1", byId[ids["json"]].GetProperty("data").GetProperty("OrderId").GetString());
        Assert.Equal("CloudEvents envelope (protobuf)", byId[ids["protobuf"]].GetProperty("shape").GetString());
        Assert.Equal("ORD-2", byId[ids["protobuf"]].GetProperty("data").GetProperty("OrderId").GetString());
        Assert.Equal(stored.ToString(), byId[ids["claim-check"]].GetProperty("payload").GetString());
        Assert.Equal("ORD-3", byId[ids["claim-check"]].GetProperty("data").GetProperty("OrderId").GetString());
        Assert.Equal(3 * 1024 * 1024, byId[ids["claim-check"]].GetProperty("data").GetProperty("CustomerName").GetString()!.Length);
        JsonElement wrapped = byId.Values.Single(m => m.GetProperty("shape").GetString()!.Contains("in an SNS notification from " + topic, StringComparison.Ordinal));
        Assert.Equal("ORD-4", wrapped.GetProperty("data").GetProperty("OrderId").GetString());
        Assert.Equal(Bodies.Type, wrapped.GetProperty("envelope").GetProperty("type").GetString());
        Assert.Equal("plain JSON", byId[ids["native"]].GetProperty("shape").GetString());
        Assert.Equal("P-9", byId[ids["native"]].GetProperty("data").GetProperty("parcel").GetString());
        Assert.StartsWith("a MassTransit envelope (urn:message:Missive.Tests.Interop:Shipping+Dispatched)", byId[ids["masstransit"]].GetProperty("shape").GetString(), StringComparison.Ordinal);

        (_, string again, _) = await RunAsync("peek", queue, "--max-messages", "20", "--output", "json");
        using JsonDocument second = JsonDocument.Parse(again);
        Assert.Equal(6, second.RootElement.GetArrayLength()); // nothing consumed: all there, visible again at once
    }

    [EmulatorFact]
    public async Task Why_NamesTheReadersReason_ForEachKindThatWouldNotBeHandled()
    {
        string queue = AwsTransportSqsTests.NewName("why");
        await fixture.Emulator.CreateQueueAsync(queue);
        using ServiceProvider services = Bodies.Services();
        OutboundMessageWriter writer = services.GetRequiredService<OutboundMessageWriter>();
        using AwsTransport transport = fixture.Emulator.CreateTransport();
        var expected = new Dictionary<string, string>
        {
            [await transport.SendAsync(writer.ToSqs(Bodies.Envelope(1), queue))] = "UnregisteredType",
            [await transport.SendAsync(new SqsSendRequest { QueueName = queue, Body = "{\"specversion\":\"1.0\",\"id\":\"e-1\",\"source\":\"/shop\",\"data\":{}}" })] = "MissingAttribute",
            [await transport.SendAsync(new SqsSendRequest { QueueName = queue, Body = "{\"specversion\":\"1.0\",\"id\":\"e-2\",\"source\":\"/shop\",\"type\":\"t\",\"time\":\"yesterday\"}" })] = "InvalidAttribute",
            [await transport.SendAsync(new SqsSendRequest { QueueName = queue, Body = Encoding.UTF8.GetString(MassTransitBodies.Serialize(new Shipping.Dispatched("P-7", 3))) })] = "NoNativeRuleMatched",
            [await transport.SendAsync(new SqsSendRequest { QueueName = queue, Body = PayloadPointer.Write(new PayloadLocation("missive-payloads", "gone"), PayloadPointer.ClassName), MessageAttributes = new Dictionary<string, MessageAttributeValue> { [PayloadPointer.SizeAttribute] = MessageAttributeValue.FromNumber("10") } })] = "PayloadUnavailable",
            [await transport.SendAsync(new SqsSendRequest { QueueName = queue, Body = "not json at all" })] = "Malformed",
        };

        (int exit, string output, string error) = await RunAsync("why", queue, "--max-messages", "20", "--output", "json", "--registered-type", "shop.invoice.sent");

        Assert.True(exit == 0, error);
        using JsonDocument shown = JsonDocument.Parse(output);
        Dictionary<string, string> verdicts = shown.RootElement.EnumerateArray().ToDictionary(m => m.GetProperty("messageId").GetString()!, m => m.GetProperty("verdict").GetString()!);
        Assert.Equal(expected.OrderBy(p => p.Key), verdicts.OrderBy(p => p.Key));
        string because = shown.RootElement.EnumerateArray().Single(m => m.GetProperty("verdict").GetString() == "NoNativeRuleMatched").GetProperty("because").GetString()!;
        Assert.Contains("WhenMassTransit<T>()", because, StringComparison.Ordinal);

        (_, string text, _) = await RunAsync("why", queue, "--max-messages", "20", "--registered-type", "shop.invoice.sent");
        Assert.Contains("Summary: 1 InvalidAttribute, 1 Malformed, 1 MissingAttribute, 1 NoNativeRuleMatched, 1 PayloadUnavailable, 1 UnregisteredType", text, StringComparison.Ordinal);
    }

    [EmulatorFact]
    public async Task Send_PutsAnEnvelopeOnTheQueue_ThatMissivesReaderReads_AndStatsCountsIt()
    {
        string queue = AwsTransportSqsTests.NewName("send");
        await fixture.Emulator.CreateQueueAsync(queue);
        string file = Path.Combine(Path.GetTempPath(), $"missive-send-{Guid.NewGuid():N}.json");
        await File.WriteAllTextAsync(file, "{\"OrderId\":\"ORD-77\",\"Total\":12.5}");
        try
        {
            (int exit, string output, string error) = await RunAsync("send", queue, "--type", Bodies.Type, "--source", "/ops", "--file", file, "--format", "protobuf");
            Assert.True(exit == 0, error);
            Assert.StartsWith($"Sent {Bodies.Type} ", output, StringComparison.Ordinal);
        }
        finally
        {
            File.Delete(file);
        }

        (int statsExit, string stats, _) = await RunAsync("stats", queue, "--output", "json");
        Assert.Equal(0, statsExit);
        using (JsonDocument counts = JsonDocument.Parse(stats))
        {
            Assert.Equal(1, counts.RootElement[0].GetProperty("waiting").GetInt32());
        }

        using AwsTransport transport = fixture.Emulator.CreateTransport();
        SqsMessage received = Assert.Single(await transport.ReceiveAsync(queue, 10, TimeSpan.FromSeconds(1)));
        using ServiceProvider services = Bodies.Services();
        var envelope = Assert.IsType<MessageEnvelope<Order>>(services.GetRequiredService<InboundMessageReader>().Read(received).Envelope);
        Assert.Equal(("ORD-77", 12.5m, "/ops"), (envelope.Message.OrderId, envelope.Message.Total, envelope.Source));
    }

    [EmulatorFact]
    public async Task Send_ToATopic_ReachesItsSubscribedQueue_AsAnEnvelope()
    {
        string queue = AwsTransportSqsTests.NewName("send-topic");
        await fixture.Emulator.CreateQueueAsync(queue);
        string topic = await fixture.Emulator.CreateTopicAsync(AwsTransportSqsTests.NewName("send-topic"));
        await fixture.Emulator.SubscribeAsync(topic, queue, raw: true);
        string file = Path.Combine(Path.GetTempPath(), $"missive-send-{Guid.NewGuid():N}.json");
        await File.WriteAllTextAsync(file, "{\"OrderId\":\"ORD-78\",\"Total\":3}");
        try
        {
            (int exit, string output, string error) = await RunAsync("send", topic, "--topic", "--type", Bodies.Type, "--file", file);
            Assert.True(exit == 0, error);
            Assert.Contains($"to {topic}", output, StringComparison.Ordinal);
        }
        finally
        {
            File.Delete(file);
        }

        using AwsTransport transport = fixture.Emulator.CreateTransport();
        SqsMessage received = Assert.Single(await transport.ReceiveAsync(queue, 10, TimeSpan.FromSeconds(2)));
        using ServiceProvider services = Bodies.Services();
        var envelope = Assert.IsType<MessageEnvelope<Order>>(services.GetRequiredService<InboundMessageReader>().Read(received).Envelope);
        Assert.Equal(("ORD-78", "/missive/tool"), (envelope.Message.OrderId, envelope.Source));
    }

    [Fact]
    public async Task NoCredentialsAnywhere_IsOneLine_SayingWhereTheyAreLookedFor()
    {
        string nowhere = Path.Combine(Path.GetTempPath(), "missive-no-aws-" + Guid.NewGuid().ToString("N"));
        var error = new StringWriter();
        int exit;
        using (new EnvironmentScope(("AWS_ACCESS_KEY_ID", ""), ("AWS_SECRET_ACCESS_KEY", ""), ("AWS_SESSION_TOKEN", ""), ("AWS_PROFILE", ""), ("AWS_SHARED_CREDENTIALS_FILE", nowhere), ("AWS_CONFIG_FILE", nowhere), ("AWS_EC2_METADATA_DISABLED", "true"), ("AWS_CONTAINER_CREDENTIALS_FULL_URI", ""), ("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", ""), ("AWS_WEB_IDENTITY_TOKEN_FILE", "")))
        {
            exit = await ToolCommands.RunAsync(["stats", "orders", "--endpoint-url", "http://127.0.0.1:9", "--region", "eu-west-1"], new StringWriter(), error);
        }

        Assert.Equal(1, exit);
        Assert.Equal("missive: No AWS credentials found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE or --profile, or run where a role provides them.", error.ToString().Trim());
    }

    [EmulatorFact]
    public async Task AnUnfilteredRedrive_WhereTheServiceHasNoMoveTask_MovesByReceive_ToTheQueueWhosePolicyNamesTheDeadLetterQueue()
    {
        string dlq = AwsTransportSqsTests.NewName("plain-dlq"), source = AwsTransportSqsTests.NewName("plain-source");
        await fixture.Emulator.CreateQueueAsync(dlq);
        await fixture.Emulator.CreateQueueAsync(source, new Dictionary<string, string> { ["RedrivePolicy"] = $"{{\"deadLetterTargetArn\":\"{AwsEmulator.QueueArn(dlq)}\",\"maxReceiveCount\":\"3\"}}" });
        using AwsTransport transport = fixture.Emulator.CreateTransport();
        for (int i = 0; i < 3; i++)
        {
            await transport.SendAsync(new SqsSendRequest { QueueName = dlq, Body = "{\"n\":" + i + "}" });
        }

        (int exit, string output, string error) = await RunAsync("redrive", dlq);

        Assert.True(exit == 0, error);
        Assert.Contains("no message move task", error, StringComparison.Ordinal);
        Assert.Contains($"Moved 3 from {dlq} to {source}", output, StringComparison.Ordinal);
        Assert.Equal(3, (await transport.ReceiveAsync(source, 10, TimeSpan.FromSeconds(1))).Count);
    }

    [EmulatorFact]
    public async Task BadInput_GetsOneLine_AndANonZeroExitCode_WithoutAStackTrace()
    {
        (int missing, _, string missingError) = await RunAsync("peek", "no-such-queue-" + Guid.NewGuid().ToString("N")[..8]);
        Assert.Equal(1, missing);
        Assert.Contains("does not exist", missingError, StringComparison.Ordinal);
        Assert.Single(missingError.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.DoesNotContain("   at ", missingError, StringComparison.Ordinal);

        var unreachableError = new StringWriter();
        using (new EnvironmentScope(("AWS_ACCESS_KEY_ID", "AKIDNOWHERE"), ("AWS_SECRET_ACCESS_KEY", "nowhere")))
        {
            int unreachable = await ToolCommands.RunAsync(["stats", "orders", "--endpoint-url", "http://127.0.0.1:9", "--region", "eu-west-1"], new StringWriter(), unreachableError);
            Assert.Equal(1, unreachable);
        }

        Assert.Contains("Connection refused", unreachableError.ToString(), StringComparison.Ordinal);
        Assert.Contains("Endpoint http://127.0.0.1:9, signing region eu-west-1", unreachableError.ToString(), StringComparison.Ordinal);

        (int usage, _, string usageError) = await RunAsync("peek");
        Assert.Equal(2, usage);
        Assert.Contains("missive --help", usageError, StringComparison.Ordinal);

        (int verbose, _, string verboseError) = await RunAsync("peek", "no-such-queue-x", "--verbose");
        Assert.Equal(1, verbose);
        Assert.Contains("   at ", verboseError, StringComparison.Ordinal); // the stack only when asked
    }

    /// <summary>Runs the tool's command line against the local endpoint, as a shell with its variables set would.</summary>
    internal async Task<(int Exit, string Output, string Error)> RunAsync(params string[] args)
    {
        var output = new StringWriter();
        var error = new StringWriter();
        using var credentials = new EnvironmentScope(("AWS_ACCESS_KEY_ID", AwsEmulator.Credentials.GetCredentials().AccessKey), ("AWS_SECRET_ACCESS_KEY", AwsEmulator.Credentials.GetCredentials().SecretKey));
        int exit = await ToolCommands.RunAsync([.. args, "--endpoint-url", fixture.Emulator.Proxy.ToString(), "--region", AwsEmulator.Region], output, error);
        return (exit, output.ToString(), error.ToString());
    }
}

/// <summary>The bodies the tool's tests put on queues: orders in Missive's envelopes, written as a publisher writes them.</summary>
internal static class Bodies
{
    public const string Type = "tool.order-placed";

    public static ServiceProvider Services()
    {
        var services = new ServiceCollection();
        services.AddMessageBus(bus => bus
            .AddMessageType<Order>(Type)
            .ConfigureSerialization(o => o.JsonSerializerContext = TestJsonContext.Default)
            .EnableExperimentalFeatures());
        services.AddSingleton(p => new OutboundMessageWriter(p.GetRequiredService<IEnvelopeSerializerProvider>()));
        return services.BuildServiceProvider();
    }

    public static MessageEnvelope<Order> Envelope(int number) => new()
    {
        Id = "order-" + number,
        Source = "/shop",
        Type = Type,
        Time = new DateTimeOffset(2026, 12, 2, 9, 0, 0, TimeSpan.Zero).AddSeconds(number),
        DataContentType = ContentTypes.ApplicationJson,
        Message = new Order { OrderId = "ORD-" + number, Total = number },
    };
}
