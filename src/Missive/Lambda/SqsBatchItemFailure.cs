namespace Missive.Lambda;

/// <summary>A record Lambda should deliver again: one entry of the <c>batchItemFailures</c> of a partial batch response.</summary>
/// <param name="ItemIdentifier">The record's <c>messageId</c>.</param>
public sealed record SqsBatchItemFailure(string ItemIdentifier);
