using System;

namespace Missive;

/// <summary>The root of every exception Missive throws for its own reasons.</summary>
public class MissiveException : Exception
{
    /// <summary>Creates the exception.</summary>
    public MissiveException()
    {
    }

    /// <summary>Creates the exception with a message.</summary>
    /// <param name="message">What went wrong.</param>
    public MissiveException(string message)
        : base(message)
    {
    }

    /// <summary>Creates the exception with a message and a cause.</summary>
    /// <param name="message">What went wrong.</param>
    /// <param name="innerException">The cause.</param>
    public MissiveException(string message, Exception? innerException)
        : base(message, innerException)
    {
    }
}
