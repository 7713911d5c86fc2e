using System.Text.Json;
using Missive.Json;
using Missive.Serialization;

namespace Missive.Benchmarks;

/// <summary>
/// The conventional receive path the baselines measure: one <see cref="JsonDocument"/> per wrapper
/// layer, the inner envelope taken out as a string, metadata read as strings, then the DOM-based
/// <see cref="StandardJsonEnvelopeSerializer"/> on that string.
/// </summary>
public static class ConventionalInbound
{
    public static MessageEnvelope Read(string body, StandardJsonEnvelopeSerializer standard)
    {
        using JsonDocument document = JsonDocument.Parse(body);
        JsonElement root = document.RootElement;
        if (root.TryGetProperty("Type", out JsonElement type) && type.GetString() == "Notification"
            && root.TryGetProperty("MessageId", out JsonElement messageId) && root.TryGetProperty("TopicArn", out JsonElement topicArn))
        {
            MessageEnvelope envelope = standard.Deserialize(root.GetProperty("Message").GetString()!);
            _ = (messageId.GetString(), topicArn.GetString(), root.GetProperty("Timestamp").GetString(), root.GetProperty("UnsubscribeURL").GetString());
            return envelope;
        }

        if (root.TryGetProperty("detail", out JsonElement detail) && root.TryGetProperty("detail-type", out JsonElement detailType)
            && root.TryGetProperty("source", out JsonElement source) && root.TryGetProperty("time", out _))
        {
            MessageEnvelope envelope = standard.Deserialize(detail.GetRawText());
            _ = (detailType.GetString(), source.GetString(), root.GetProperty("id").GetString());
            return envelope;
        }

        return standard.Deserialize(body);
    }
}
