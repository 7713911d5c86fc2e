namespace Missive.Transport;

/// <summary>What an EventBridge rule matches, with its UTF-8 forms for comparing in place.</summary>
internal sealed class EventBridgeRule(string source, string? detailType)
{
    public string Source { get; } = source;

    public string? DetailType { get; } = detailType;

    public byte[] SourceUtf8 { get; } = System.Text.Encoding.UTF8.GetBytes(source);

    public byte[]? DetailTypeUtf8 { get; } = detailType is null ? null : System.Text.Encoding.UTF8.GetBytes(detailType);
}
