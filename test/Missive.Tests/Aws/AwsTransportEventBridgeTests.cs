using System;
using System.Collections.Generic;
using System.Linq;
using System.Text.Json;
using System.Text.Json.Nodes;
using System.Threading.Tasks;
using Missive.Aws;
using Missive.Transport;

namespace Missive.Tests.Aws;

/// <summary>
/// EventBridge has no emulator here: PutEvents goes to the proxy, which records it and answers with the
/// documented response shape. Missive's request is compared with the AWS SDK for JavaScript's request for
/// the same entry, captured the same way.
/// </summary>
[Collection(AwsEmulatorCollection.Name)]
public sealed class AwsTransportEventBridgeTests(AwsEmulatorFixture fixture)
{
    private AwsEmulator Emulator => fixture.Emulator;

    [EmulatorFact]
    public async Task PutEvent_SendsTheSameRequestAsTheJavaScriptSdk()
    {
        var time = new DateTimeOffset(2025, 11, 3, 14, 27, 9, 441, TimeSpan.Zero);
        var entry = new EventBridgeEntry
        {
            EventBusName = "orders-bus",
            Source = "/orders",
            DetailType = "Orders.OrderPlaced",
            Detail = "{\"id\":\"1\",\"specversion\":\"1.0\",\"note\":\"Zoë\"}",
            Resources = ["arn:aws:s3:::bucket"],
            Time = time,
        };
        using AwsTransport transport = Emulator.CreateTransport();
        await Emulator.ResetAsync();

        string eventId = await transport.PutEventAsync(entry);
        using JsonDocument js = await Emulator.JsClientAsync(new JsonObject
        {
            ["op"] = "putEvents",
            ["entries"] = new JsonArray(new JsonObject
            {
                ["EventBusName"] = entry.EventBusName,
                ["Source"] = entry.Source,
                ["DetailType"] = entry.DetailType,
                ["Detail"] = entry.Detail,
                ["Resources"] = new JsonArray("arn:aws:s3:::bucket"),
                ["Time"] = time.ToUnixTimeMilliseconds() / 1000m,
            }),
        });

        Assert.Equal("00000000-0000-0000-0000-000000000000", eventId);
        List<ProxyRequest> captured = await Emulator.CapturedAsync();
        Assert.Equal(2, captured.Count);
        (ProxyRequest ours, ProxyRequest theirs) = (captured[0], captured[1]);
        foreach (string header in new[] { "content-type", "x-amz-target" })
        {
            Assert.Equal(theirs.Headers[header], ours.Headers[header]);
        }

        Assert.Equal("application/x-amz-json-1.1", ours.Headers["content-type"]);
        Assert.Equal("AWSEvents.PutEvents", ours.Headers["x-amz-target"]);
        Assert.Equal(Normalize(theirs.Body), Normalize(ours.Body));
        Assert.Equal(0, (await Emulator.StatsAsync()).Rejected);
    }

    [EmulatorFact]
    public async Task PutEvent_AFailedEntryInAnHttp200Answer_IsAnError()
    {
        using AwsTransport transport = Emulator.CreateTransport();
        await Emulator.ResetAsync();
        await Emulator.SetEventBridgeAnswerAsync("{\"FailedEntryCount\":1,\"Entries\":[{\"ErrorCode\":\"MalformedDetail\",\"ErrorMessage\":\"Detail is malformed.\"}]}");

        var e = await Assert.ThrowsAsync<MessageTransportException>(() => transport.PutEventAsync(new EventBridgeEntry { EventBusName = "b", Source = "/s", DetailType = "t", Detail = "{}" }));

        Assert.Equal("MalformedDetail", e.ErrorCode);
        Assert.Contains("Detail is malformed.", e.Message, StringComparison.Ordinal);
        Assert.Equal(200, e.StatusCode);
        Assert.Single(await Emulator.CapturedAsync()); // not transient: not retried
        await Emulator.ResetAsync();
    }

    [EmulatorFact]
    public async Task PutEvents_MixedOutcomes_AreReportedEntryByEntry()
    {
        // One attempt: the answer is scripted for three entries, and a throttled entry is otherwise sent again alone.
        using AwsTransport transport = Emulator.CreateTransport(o => o.MaxAttempts = 1);
        await Emulator.ResetAsync();
        await Emulator.SetEventBridgeAnswerAsync("{\"FailedEntryCount\":1,\"Entries\":[{\"EventId\":\"e-0\"},{\"ErrorCode\":\"ThrottlingException\",\"ErrorMessage\":\"Rate exceeded.\"},{\"EventId\":\"e-2\"}]}");
        var entries = Enumerable.Range(0, 3).Select(i => new EventBridgeEntry { EventBusName = "b", Source = "/s", DetailType = "t" + i, Detail = "{}" }).ToList();

        IReadOnlyList<BatchEntryResult> results = await transport.PutEventBatchAsync(entries);

        Assert.Equal(["e-0", null, "e-2"], results.Select(r => r.MessageId));
        Assert.Equal("ThrottlingException", results[1].ErrorCode);
        Assert.False(results[1].SenderFault);
        await Emulator.ResetAsync();
    }

    /// <summary>The request body with members sorted and numbers compared as decimals, so member order and number spelling do not count.</summary>
    private static string Normalize(string body)
    {
        JsonNode node = JsonNode.Parse(body)!;
        return Sort(node)!.ToJsonString();

        static JsonNode? Sort(JsonNode? node) => node switch
        {
            JsonObject o => new JsonObject(o.OrderBy(p => p.Key, StringComparer.Ordinal).Select(p => KeyValuePair.Create(p.Key, Sort(p.Value)))),
            JsonArray a => new JsonArray(a.Select(Sort).ToArray()),
            JsonValue v when v.GetValueKind() == JsonValueKind.Number => JsonValue.Create(v.GetValue<decimal>()),
            _ => node?.DeepClone(),
        };
    }
}
