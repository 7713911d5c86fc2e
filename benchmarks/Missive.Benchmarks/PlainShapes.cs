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

/// <summary>
/// MassTransit's JSON envelope as plain classes (the same-bytes floor), read with the options MassTransit reads it with
/// (<see cref="MassTransitFloorContext"/>): every member it writes, the host block included.
/// </summary>
public sealed class PlainMassTransitEnvelope<TMessage>
{
    public Guid? MessageId { get; set; }

    public Guid? RequestId { get; set; }

    public Guid? CorrelationId { get; set; }

    public Guid? ConversationId { get; set; }

    public Guid? InitiatorId { get; set; }

    public string? SourceAddress { get; set; }

    public string? DestinationAddress { get; set; }

    public string? ResponseAddress { get; set; }

    public string? FaultAddress { get; set; }

    public string[]? MessageType { get; set; }

    public TMessage? Message { get; set; }

    public DateTimeOffset? ExpirationTime { get; set; }

    public DateTimeOffset? SentTime { get; set; }

    public Dictionary<string, System.Text.Json.JsonElement>? Headers { get; set; }

    public PlainMassTransitHost? Host { get; set; }
}

/// <summary>The <c>host</c> block MassTransit writes in every envelope.</summary>
public sealed class PlainMassTransitHost
{
    public string? MachineName { get; set; }

    public string? ProcessName { get; set; }

    public int ProcessId { get; set; }

    public string? Assembly { get; set; }

    public string? AssemblyVersion { get; set; }

    public string? FrameworkVersion { get; set; }

    public string? MassTransitVersion { get; set; }

    public string? OperatingSystemVersion { get; set; }
}

/// <summary>The floor's metadata for MassTransit's bodies: camelCase names read in any case, numbers also from strings, as MassTransit reads them.</summary>
[JsonSourceGenerationOptions(PropertyNamingPolicy = JsonKnownNamingPolicy.CamelCase, PropertyNameCaseInsensitive = true, NumberHandling = JsonNumberHandling.AllowReadingFromString)]
[JsonSerializable(typeof(PlainMassTransitEnvelope<OrderPlaced>))]
public sealed partial class MassTransitFloorContext : JsonSerializerContext;

/// <summary>
/// NServiceBus's wrapped SQS transport message as plain classes (the same-bytes floor): its <c>Body</c> decoded from
/// base64 by System.Text.Json. Members in the order the transport's own <c>TransportMessage</c> declares and writes them.
/// </summary>
public sealed class PlainNServiceBusTransportMessage
{
    public Dictionary<string, string>? Headers { get; set; }

    public byte[]? Body { get; set; }

    public string? S3BodyKey { get; set; }
}
