using System;
using System.Collections.Generic;
using System.Text.Json;
using System.Threading;
using System.Threading.Tasks;
using Missive.Aws.Protocol;
using Missive.Buffers;
using Missive.Transport;

namespace Missive.Aws.EventBridge;

/// <summary>
/// Amazon EventBridge's PutEvents over AWS JSON 1.1 (https://docs.aws.amazon.com/eventbridge/latest/APIReference/API_PutEvents.html):
/// <c>X-Amz-Target: AWSEvents.PutEvents</c>, entries with <c>Source</c>, <c>DetailType</c>, <c>Detail</c>,
/// <c>EventBusName</c>, <c>Resources</c> and <c>Time</c> (epoch seconds). An HTTP 200 answer can still fail
/// entries (<c>FailedEntryCount</c>, an <c>ErrorCode</c> per entry): a failed entry is an error, never dropped.
/// </summary>
internal sealed class EventBridgeClient
{
    private static readonly AwsContentType ContentType = new("application/x-amz-json-1.1");
    private const string Target = "AWSEvents.PutEvents";

    private readonly AwsServiceClient _service;

    private readonly BatchLimits _putEventsLimits;

    public EventBridgeClient(AwsServiceClient service, BatchLimits putEventsLimits)
    {
        _service = service;
        _putEventsLimits = putEventsLimits;
    }

    /// <summary>Asks whether an event bus exists (<c>DescribeEventBus</c>, by name or ARN); fails when it does not.</summary>
    public async Task DescribeEventBusAsync(string eventBus, CancellationToken cancellationToken)
    {
        using PooledBufferWriter body = AwsJson.Write(eventBus, static (w, name) => w.WriteString("Name", name));
        using AwsResponse answer = await _service.PostAsync("DescribeEventBus", ContentType, "AWSEvents.DescribeEventBus", body.WrittenMemory, TimeSpan.Zero, AwsAnswer.DefaultLimit, cancellationToken, resource: $"event bus '{eventBus}'").ConfigureAwait(false);
    }

    /// <summary>Puts one event; a transient entry failure (throttling, an internal failure) is retried like a failed call.</summary>
    /// <exception cref="MessageTransportException">The call or the entry failed for good.</exception>
    public async Task<string> PutEventAsync(EventBridgeEntry entry, CancellationToken cancellationToken)
    {
        using PooledBufferWriter body = Body([(0, entry)], 0, 1);
        string? eventId = null;
        using AwsResponse answer = await _service.PostAsync("PutEvents", ContentType, Target, body.WrittenMemory, TimeSpan.Zero, AwsAnswer.DefaultLimit, cancellationToken, resource: $"event bus '{entry.EventBusName}'", checkAnswer: response =>
        {
            BatchEntryResult result = ReadAnswer(response, 1)[0];
            if (result.Succeeded)
            {
                eventId = result.MessageId;
                return null;
            }

            return new AwsServiceFailure($"The event was not put on bus '{entry.EventBusName}': {result.ErrorMessage}", result.ErrorCode, response.RequestId, 200, result.SenderFault);
        }).ConfigureAwait(false);
        return eventId!;
    }

    /// <summary>Puts events in calls within EventBridge's batch limits (<see cref="BatchCalls.EventBridgePutEvents"/>); one result per entry, in order, each with its entry's index. Failed entries are not retried here.</summary>
    public async Task<BatchEntryResult[]> PutEventBatchAsync(IReadOnlyList<(int Index, EventBridgeEntry Entry)> entries, CancellationToken cancellationToken)
    {
        BatchEntryResult[] results = await BatchCalls.CallEachAsync(
            entries,
            _putEventsLimits,
            static entry => BatchCalls.EventBridgeEntrySize(entry.Entry),
            fifoGroup: null,
            "EventBridge PutEvents",
            PutEventsCallAsync,
            cancellationToken).ConfigureAwait(false);
        for (int i = 0; i < results.Length; i++)
        {
            results[i] = results[i] with { Index = entries[i].Index };
        }

        return results;
    }

    /// <summary>One <c>PutEvents</c> call over <paramref name="entries"/>[start..end).</summary>
    private async Task PutEventsCallAsync(IReadOnlyList<(int Index, EventBridgeEntry Entry)> entries, int start, int end, BatchEntryResult[] results, CancellationToken cancellationToken)
    {
        using PooledBufferWriter body = Body(entries, start, end);
        using AwsResponse response = await _service.PostAsync("PutEvents", ContentType, Target, body.WrittenMemory, TimeSpan.Zero, AwsAnswer.DefaultLimit, cancellationToken, resource: Buses(entries, start, end)).ConfigureAwait(false);
        BatchEntryResult[] chunk = ReadAnswer(response, end - start);
        for (int i = 0; i < chunk.Length; i++)
        {
            results[start + i] = chunk[i] with { Index = start + i };
        }
    }

    /// <summary>The event buses of a call, for errors.</summary>
    private static string Buses(IReadOnlyList<(int Index, EventBridgeEntry Entry)> entries, int start, int end)
    {
        var names = new List<string>();
        for (int i = start; i < end; i++)
        {
            if (!names.Contains(entries[i].Entry.EventBusName))
            {
                names.Add(entries[i].Entry.EventBusName);
            }
        }

        return (names.Count == 1 ? "event bus '" : "event buses '") + string.Join("', '", names) + "'";
    }

    private static PooledBufferWriter Body(IReadOnlyList<(int Index, EventBridgeEntry Entry)> entries, int start, int end)
        => AwsJson.Write((entries, start, end), static (w, s) =>
        {
            w.WriteStartArray("Entries");
            for (int i = s.start; i < s.end; i++)
            {
                EventBridgeEntry entry = s.entries[i].Entry;
                w.WriteStartObject();
                if (entry.Time is { } time)
                {
                    w.WriteNumber("Time", time.ToUnixTimeMilliseconds() / 1000m);
                }

                w.WriteString("Source", entry.Source);
                if (entry.Resources.Count > 0)
                {
                    w.WriteStartArray("Resources");
                    foreach (string resource in entry.Resources)
                    {
                        w.WriteStringValue(resource);
                    }

                    w.WriteEndArray();
                }

                w.WriteString("DetailType", entry.DetailType);
                w.WriteString("Detail", entry.Detail);
                w.WriteString("EventBusName", entry.EventBusName);
                w.WriteEndObject();
            }

            w.WriteEndArray();
        });

    /// <summary>Reads <c>{"FailedEntryCount": n, "Entries": [{"EventId"} | {"ErrorCode", "ErrorMessage"}]}</c>; entries answer in request order.</summary>
    private static BatchEntryResult[] ReadAnswer(AwsResponse response, int count)
    {
        var results = new BatchEntryResult[count];
        JsonElement list = default;
        using JsonDocument? document = TryParse(response);
        if (document is not null)
        {
            list = AwsJson.Property(document.RootElement, "Entries");
        }

        int i = 0;
        if (list.ValueKind == JsonValueKind.Array)
        {
            foreach (JsonElement entry in list.EnumerateArray())
            {
                if (i == count)
                {
                    break;
                }

                string? code = AwsJson.String(entry, "ErrorCode");
                results[i] = code is null
                    ? BatchEntryResult.Success(i, AwsJson.Id(entry, "EventId", "EventBridge PutEvents"))
                    : new BatchEntryResult(i, null, code, AwsJson.String(entry, "ErrorMessage"), SenderFault: !AwsErrorCodes.IsThrottling(code, null) && !AwsErrorCodes.IsTransient(code, null));
                i++;
            }
        }

        for (; i < count; i++)
        {
            results[i] = new BatchEntryResult(i, null, "NoAnswer", "EventBridge did not report on this entry.", false);
        }

        return results;
    }

    private static JsonDocument? TryParse(AwsResponse response)
    {
        try
        {
            return AwsJson.Parse(response, "EventBridge PutEvents");
        }
        catch (MessageTransportException)
        {
            return null; // every entry is then reported as not answered
        }
    }
}
