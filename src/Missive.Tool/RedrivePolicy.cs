using System.Globalization;
using System.Text.Json;

namespace Missive.Tool;

/// <summary>A queue's <c>RedrivePolicy</c> attribute: where it dead-letters, after how many receives.</summary>
internal readonly record struct RedrivePolicy(string DeadLetterTargetArn, int MaxReceiveCount)
{
    /// <summary>The policy the attribute's JSON gives, or <c>null</c> when there is none (SQS writes the count as a string or a number).</summary>
    public static RedrivePolicy? Parse(string? json)
    {
        if (string.IsNullOrEmpty(json))
        {
            return null;
        }

        using JsonDocument document = JsonDocument.Parse(json);
        JsonElement root = document.RootElement;
        string target = root.TryGetProperty("deadLetterTargetArn", out JsonElement arn) ? arn.GetString() ?? "?" : "?";
        int max = !root.TryGetProperty("maxReceiveCount", out JsonElement count) ? 0
            : count.ValueKind == JsonValueKind.Number ? count.GetInt32()
            : int.Parse(count.GetString() ?? "0", NumberStyles.None, CultureInfo.InvariantCulture);
        return new RedrivePolicy(target, max);
    }
}
