using System;

namespace Missive;

/// <summary>Thrown when a transport refuses a call: an unknown queue, topic or bus, or a message over its limits or rules.</summary>
public sealed class MessageTransportException : MissiveException
{
    /// <summary>Creates the exception.</summary>
    /// <param name="message">What was refused and why.</param>
    public MessageTransportException(string message)
        : base(message)
    {
    }

    /// <summary>Creates the exception with a cause.</summary>
    /// <param name="message">What was refused and why.</param>
    /// <param name="innerException">The cause.</param>
    public MessageTransportException(string message, Exception? innerException)
        : base(message, innerException)
    {
    }
}
