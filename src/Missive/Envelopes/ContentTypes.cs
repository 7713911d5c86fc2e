using System;

namespace Missive;

/// <summary>Content types that Missive reads and writes.</summary>
public static class ContentTypes
{
    /// <summary>The CloudEvents JSON format, structured mode.</summary>
    public const string CloudEventsJson = "application/cloudevents+json";

    /// <summary>The CloudEvents JSON batch format.</summary>
    public const string CloudEventsBatchJson = "application/cloudevents-batch+json";

    /// <summary>The CloudEvents protobuf format.</summary>
    public const string CloudEventsProtobuf = "application/cloudevents+protobuf";

    /// <summary>The CloudEvents protobuf batch format.</summary>
    public const string CloudEventsBatchProtobuf = "application/cloudevents-batch+protobuf";

    /// <summary>JSON data: the default <c>datacontenttype</c> of JSON message types.</summary>
    public const string ApplicationJson = "application/json";

    /// <summary>Opaque bytes: the default <c>datacontenttype</c> of binary message types.</summary>
    public const string ApplicationOctetStream = "application/octet-stream";

    /// <summary>Plain text.</summary>
    public const string TextPlain = "text/plain";

    /// <summary><see cref="ApplicationJson"/> as UTF-8, for readers that match it without decoding.</summary>
    internal static ReadOnlySpan<byte> ApplicationJsonUtf8 => "application/json"u8;
}
