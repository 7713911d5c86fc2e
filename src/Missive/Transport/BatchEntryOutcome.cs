namespace Missive.Transport;

/// <summary>
/// What became of one entry of a batch call: the one rule every batcher and transport of the bus reads an entry's
/// result by (<see cref="BatchEntryResult.Outcome"/>).
/// </summary>
public enum BatchEntryOutcome : byte
{
    /// <summary>The service took the entry.</summary>
    Succeeded,

    /// <summary>The service refused the entry for its own content or parameters: sending it again unchanged fails again.</summary>
    Refused,

    /// <summary>
    /// A visibility change or delete whose receipt handle the service no longer accepts (the message was received again,
    /// deleted, or its receipt expired): nothing done with that receipt can succeed.
    /// </summary>
    ReceiptGone,

    /// <summary>
    /// The service did not take the entry: it never reached the service (cancelled before its call, or its call was
    /// refused whole), or the service failed it on its side. Sending it again is safe.
    /// </summary>
    NotSent,

    /// <summary>
    /// The call carrying the entry may have reached the service (a timeout, a cancellation while it was under way, a
    /// connection lost after sending, a server error): the service may have taken it, and sending it again may deliver
    /// it twice.
    /// </summary>
    Unknown,
}
