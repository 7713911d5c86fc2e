using System;

namespace Missive.Transport;

/// <summary>
/// The one rule by which the bus, the in-memory broker and the AWS transport tell a FIFO queue or topic: SQS and SNS
/// require a FIFO queue's or topic's name to end in <c>.fifo</c>, so its name, URL and ARN all do.
/// </summary>
/// <remarks>
/// A queue configured under another name (for example a name mapped to a FIFO queue's URL) would hide it: the AWS
/// transport's options refuse such a name at startup and say what to write.
/// </remarks>
public static class FifoRule
{
    /// <summary>The suffix of every FIFO queue's and topic's name.</summary>
    public const string Suffix = ".fifo";

    /// <summary>Gets whether a queue or topic, named by its name, URL or ARN, is FIFO.</summary>
    /// <param name="nameUrlOrArn">The name, URL or ARN. Must not be null.</param>
    /// <returns><c>true</c> when it ends in <c>.fifo</c> (a URL's trailing slash aside).</returns>
    public static bool IsFifo(string nameUrlOrArn)
    {
        ArgumentNullException.ThrowIfNull(nameUrlOrArn);
        return nameUrlOrArn.AsSpan().TrimEnd('/').EndsWith(Suffix, StringComparison.Ordinal);
    }
}
