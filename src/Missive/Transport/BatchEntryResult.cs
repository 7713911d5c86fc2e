using System;

namespace Missive.Transport;

/// <summary>The outcome of one entry of a batch call: each entry of a batch succeeds or fails on its own.</summary>
/// <param name="Index">The entry's position in the batch that was asked for.</param>
/// <param name="MessageId">The message id a send or publish entry was given, or <c>null</c>.</param>
/// <param name="ErrorCode">The error code of a failed entry, or <c>null</c> when it succeeded.</param>
/// <param name="ErrorMessage">What the service said of a failed entry, or <c>null</c>.</param>
/// <param name="SenderFault">Whether a failed entry was the caller's fault (retrying it unchanged will fail again).</param>
public readonly record struct BatchEntryResult(int Index, string? MessageId, string? ErrorCode, string? ErrorMessage, bool SenderFault)
{
    private readonly byte _given; // the outcome given, plus one; 0 when it follows from the other members (a byte keeps the struct at its old size)

    /// <summary>Gets whether the entry succeeded.</summary>
    public bool Succeeded => ErrorCode is null;

    /// <summary>
    /// Gets what became of the entry. Unless it was given, it follows from the other members as a service's per-entry
    /// answer reads: no error code, <see cref="BatchEntryOutcome.Succeeded"/>; a receipt code
    /// (<see cref="IsReceiptGone"/>), <see cref="BatchEntryOutcome.ReceiptGone"/>; the sender's fault,
    /// <see cref="BatchEntryOutcome.Refused"/>; else (the service failed the entry on its side),
    /// <see cref="BatchEntryOutcome.NotSent"/>.
    /// </summary>
    public BatchEntryOutcome Outcome
    {
        get => _given != 0 ? (BatchEntryOutcome)(_given - 1)
            : ErrorCode is null ? BatchEntryOutcome.Succeeded
            : IsReceiptGone(ErrorCode, ErrorMessage) ? BatchEntryOutcome.ReceiptGone
            : SenderFault ? BatchEntryOutcome.Refused
            : BatchEntryOutcome.NotSent;
        init => _given = (byte)(value + 1);
    }

    /// <summary>Creates the result of an entry that succeeded.</summary>
    /// <param name="index">The entry's position in the batch.</param>
    /// <param name="messageId">The message id it was given, or <c>null</c>.</param>
    /// <returns>The result.</returns>
    public static BatchEntryResult Success(int index, string? messageId) => new(index, messageId, null, null, false);

    /// <summary>
    /// Creates the result of an entry whose call failed with <paramref name="error"/>: <see cref="BatchEntryOutcome.Refused"/>
    /// when the failure is not transient, else <see cref="BatchEntryOutcome.Unknown"/> (a call that failed in passing may
    /// have reached the service), unless the error's code says the receipt is gone.
    /// </summary>
    /// <param name="index">The entry's position in the batch.</param>
    /// <param name="error">The failure. Must not be null.</param>
    /// <returns>The result; a transient failure is not the sender's fault.</returns>
    public static BatchEntryResult Failure(int index, MessageTransportException error)
    {
        ArgumentNullException.ThrowIfNull(error);
        BatchEntryOutcome outcome = IsReceiptGone(error.ErrorCode, error.Message) ? BatchEntryOutcome.ReceiptGone
            : error.IsTransient ? BatchEntryOutcome.Unknown
            : BatchEntryOutcome.Refused;
        return Failure(index, error, outcome);
    }

    /// <summary>Creates the result of an entry that failed with <paramref name="error"/>, with what became of it.</summary>
    /// <param name="index">The entry's position in the batch.</param>
    /// <param name="error">The failure. Must not be null.</param>
    /// <param name="outcome">What became of the entry; not <see cref="BatchEntryOutcome.Succeeded"/>.</param>
    /// <returns>The result; it is the sender's fault when the failure is not transient, or when <paramref name="outcome"/> is <see cref="BatchEntryOutcome.Refused"/> or <see cref="BatchEntryOutcome.ReceiptGone"/>.</returns>
    /// <exception cref="ArgumentException"><paramref name="outcome"/> is <see cref="BatchEntryOutcome.Succeeded"/>.</exception>
    public static BatchEntryResult Failure(int index, MessageTransportException error, BatchEntryOutcome outcome)
    {
        ArgumentNullException.ThrowIfNull(error);
        if (outcome == BatchEntryOutcome.Succeeded)
        {
            throw new ArgumentException("A failed entry cannot have succeeded.", nameof(outcome));
        }

        bool senderFault = !error.IsTransient || outcome is BatchEntryOutcome.Refused or BatchEntryOutcome.ReceiptGone;
        return new(index, null, error.ErrorCode ?? "Failed", error.Message, senderFault) { Outcome = outcome };
    }

    /// <summary>
    /// Whether an error says that a receipt handle is no longer accepted: SQS's <c>ReceiptHandleIsInvalid</c> and
    /// <c>MessageNotInflight</c> (also with the <c>AWS.SimpleQueueService.</c> prefix of the query protocol's codes), or
    /// an <c>InvalidParameterValue</c> whose message names the receipt handle (SQS's answer for an expired one).
    /// </summary>
    /// <param name="errorCode">The error code, or <c>null</c>.</param>
    /// <param name="errorMessage">What the service said, or <c>null</c>.</param>
    /// <returns><c>true</c> when the receipt is gone.</returns>
    public static bool IsReceiptGone(string? errorCode, string? errorMessage)
        => errorCode is "ReceiptHandleIsInvalid" or "InvalidReceiptHandle" or "MessageNotInflight"
            or "AWS.SimpleQueueService.ReceiptHandleIsInvalid" or "AWS.SimpleQueueService.MessageNotInflight"
        || (errorCode is "InvalidParameterValue" or "AWS.SimpleQueueService.InvalidParameterValue"
            && errorMessage is not null
            && (errorMessage.Contains("ReceiptHandle", StringComparison.OrdinalIgnoreCase) || errorMessage.Contains("receipt handle", StringComparison.OrdinalIgnoreCase)));
}
