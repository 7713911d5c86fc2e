using System;
using System.Text.Json;

namespace Missive.Transport;

/// <summary>
/// Missive's convention for a protobuf envelope in an EventBridge event, both halves: an event's
/// <c>detail</c> must be a JSON object, so the base64 envelope travels as
/// <c>{"contentType":"application/cloudevents+protobuf","body":"…base64…"}</c>.
/// </summary>
internal static class EventBridgeProtobufDetail
{
    /// <summary>The member that names the content type.</summary>
    public const string ContentTypeMember = "contentType";

    /// <summary>The member that holds the base64 envelope.</summary>
    public const string BodyMember = "body";

    /// <summary>Writes the detail around a base64 envelope (base64 needs no JSON escaping).</summary>
    public static string Write(string base64Envelope)
        => $"{{\"{ContentTypeMember}\":\"{ContentTypes.CloudEventsProtobuf}\",\"{BodyMember}\":\"{base64Envelope}\"}}";

    /// <summary>
    /// Recognises the convention in a detail object and gives the range of the base64 text inside it;
    /// <c>false</c> for any other detail, which is then read as a JSON envelope.
    /// </summary>
    public static bool TryUnwrap(ReadOnlySpan<byte> detail, JsonReaderOptions options, out Range body)
    {
        body = default;
        var reader = new Utf8JsonReader(detail, options);
        reader.Read();
        if (!reader.Read() || reader.TokenType != JsonTokenType.PropertyName || !reader.ValueTextEquals(ContentTypeMember)
            || !reader.Read() || reader.TokenType != JsonTokenType.String || !reader.ValueTextEquals(ContentTypes.CloudEventsProtobuf)
            || !reader.Read() || reader.TokenType != JsonTokenType.PropertyName || !reader.ValueTextEquals(BodyMember)
            || !reader.Read() || reader.TokenType != JsonTokenType.String || reader.ValueIsEscaped)
        {
            return false;
        }

        int start = (int)reader.TokenStartIndex + 1; // inside the quotes
        body = new Range(start, start + reader.ValueSpan.Length);
        return true;
    }
}
