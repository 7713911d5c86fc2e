using System;

namespace Missive;

/// <summary>
/// Thrown when an envelope cannot be read (hostile, truncated or invalid input) or cannot be
/// written (an envelope that breaks the CloudEvents rules).
/// </summary>
/// <remarks>
/// The message says what was wrong and where, and never contains message content or attribute
/// values unless <c>SerializationOptions.LogMessageContent</c> is on. The input that failed is kept
/// in <see cref="RawBody"/> so that nothing is lost: callers can dead-letter or inspect it.
/// </remarks>
public sealed class InvalidEnvelopeException : MissiveException
{
    /// <summary>Creates the exception.</summary>
    /// <param name="reason">Why the envelope is invalid.</param>
    /// <param name="message">What was wrong, without content.</param>
    /// <param name="position">The byte offset in the input where the problem was found, or -1.</param>
    /// <param name="attributeName">The attribute concerned, if any.</param>
    /// <param name="innerException">The cause, if any.</param>
    public InvalidEnvelopeException(InvalidEnvelopeReason reason, string message, long position = -1, string? attributeName = null, Exception? innerException = null)
        : base(message, innerException)
    {
        Reason = reason;
        Position = position;
        AttributeName = attributeName;
    }

    /// <summary>Gets why the envelope is invalid.</summary>
    public InvalidEnvelopeReason Reason { get; }

    /// <summary>Gets the byte offset in the input where the problem was found, or -1 when unknown or when writing.</summary>
    public long Position { get; }

    /// <summary>Gets the name of the attribute concerned, or <c>null</c>.</summary>
    public string? AttributeName { get; }

    /// <summary>Gets the complete input that failed to read (empty when writing, or when the input was over the size limit).</summary>
    public ReadOnlyMemory<byte> RawBody { get; internal set; }

    /// <summary>
    /// Gets whether the failure came while the data was read, or after it (the application's serializer or converter
    /// was called): a reader that reads speculatively must not swallow it and read again, which would call that code
    /// a second time for the same message.
    /// </summary>
    internal bool DataReadFailed { get; set; }

    /// <summary>Gets the envelope's 'type' that no registration names (<see cref="InvalidEnvelopeReason.UnknownMessageType"/>), for logs: metadata, never content.</summary>
    internal string? UnknownType { get; set; }
}
