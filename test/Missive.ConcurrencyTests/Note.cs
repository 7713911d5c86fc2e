namespace Missive.ConcurrencyTests;

/// <summary>The message the scenarios publish: an id the model reads back from the body, and a FIFO group.</summary>
public sealed class Note
{
    public string Id { get; set; } = string.Empty;

    public string Group { get; set; } = string.Empty;
}
