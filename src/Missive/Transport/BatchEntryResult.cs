namespace Missive.Transport;

/// <summary>The outcome of one entry of a batch call: each entry of a batch succeeds or fails on its own.</summary>
/// <param name="Index">The entry's position in the batch that was asked for.</param>
/// <param name="MessageId">The message id a send or publish entry was given, or <c>null</c>.</param>
/// <param name="ErrorCode">The error code of a failed entry, or <c>null</c> when it succeeded.</param>
/// <param name="ErrorMessage">What the service said of a failed entry, or <c>null</c>.</param>
/// <param name="SenderFault">Whether a failed entry was the caller's fault (retrying it unchanged will fail again).</param>
public readonly record struct BatchEntryResult(int Index, string? MessageId, string? ErrorCode, string? ErrorMessage, bool SenderFault)
{
    /// <summary>Gets whether the entry succeeded.</summary>
    public bool Succeeded => ErrorCode is null;

    /// <summary>Creates the result of an entry that succeeded.</summary>
    /// <param name="index">The entry's position in the batch.</param>
    /// <param name="messageId">The message id it was given, or <c>null</c>.</param>
    /// <returns>The result.</returns>
    public static BatchEntryResult Success(int index, string? messageId) => new(index, messageId, null, null, false);

    /// <summary>Creates the result of an entry that failed with <paramref name="error"/>.</summary>
    /// <param name="index">The entry's position in the batch.</param>
    /// <param name="error">The failure. Must not be null.</param>
    /// <returns>The result; a transient failure is not the sender's fault.</returns>
    public static BatchEntryResult Failure(int index, MessageTransportException error)
    {
        System.ArgumentNullException.ThrowIfNull(error);
        return new(index, null, error.ErrorCode ?? "Failed", error.Message, !error.IsTransient);
    }
}
