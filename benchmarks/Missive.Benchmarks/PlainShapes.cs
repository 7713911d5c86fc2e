using System;
using System.Collections.Generic;
using System.Text.Json.Serialization;

namespace Missive.Benchmarks;

/// <summary>
/// A CloudEvents JSON envelope as plain classes, for the same-bytes floor: System.Text.Json reading the very bytes
/// Missive reads (the envelope with its attributes and data), with no CloudEvents rules applied.
/// </summary>
public sealed class PlainCloudEvent
{
    [JsonPropertyName("id")]
    public string? Id { get; set; }

    [JsonPropertyName("source")]
    public string? Source { get; set; }

    [JsonPropertyName("specversion")]
    public string? SpecVersion { get; set; }

    [JsonPropertyName("type")]
    public string? Type { get; set; }

    [JsonPropertyName("time")]
    public DateTimeOffset? Time { get; set; }

    [JsonPropertyName("datacontenttype")]
    public string? DataContentType { get; set; }

    [JsonPropertyName("traceparent")]
    public string? TraceParent { get; set; }

    [JsonPropertyName("data")]
    public OrderPlaced? Data { get; set; }
}

/// <summary>
/// An EventBridge event, as EventBridge delivers it to an SQS target, as plain classes (the same-bytes floor): its
/// <c>detail</c> an envelope (<see cref="PlainCloudEvent"/>) or a native message (the order itself).
/// </summary>
public sealed class PlainEventBridgeEvent<TDetail>
{
    [JsonPropertyName("version")]
    public string? Version { get; set; }

    [JsonPropertyName("id")]
    public string? Id { get; set; }

    [JsonPropertyName("detail-type")]
    public string? DetailType { get; set; }

    [JsonPropertyName("source")]
    public string? Source { get; set; }

    [JsonPropertyName("account")]
    public string? Account { get; set; }

    [JsonPropertyName("time")]
    public DateTimeOffset? Time { get; set; }

    [JsonPropertyName("region")]
    public string? Region { get; set; }

    [JsonPropertyName("resources")]
    public List<string>? Resources { get; set; }

    [JsonPropertyName("detail")]
    public TDetail? Detail { get; set; }
}
