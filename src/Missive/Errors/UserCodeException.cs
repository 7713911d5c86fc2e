using System;

namespace Missive;

/// <summary>
/// Thrown to the caller when code of the application that Missive calls on its behalf failed: a publish middleware, a
/// FIFO id selector. <see cref="Seam"/> names which; <see cref="UserExceptionType"/> the type of what it threw. The
/// message never holds the application's own exception message, which may hold message content, and the application's
/// exception is the <see cref="Exception.InnerException"/> only when <c>SerializationOptions.LogMessageContent</c> is on.
/// </summary>
public sealed class UserCodeException : MissiveException
{
    /// <summary>Creates the exception.</summary>
    /// <param name="seam">Where the application's code was called (for example <c>publish middleware StampTenant</c>).</param>
    /// <param name="userExceptionType">The full name of the type the application's code threw, or <c>null</c> when it did not throw.</param>
    /// <param name="message">What went wrong, without content.</param>
    /// <param name="innerException">The application's exception (content logging on), or <c>null</c>.</param>
    public UserCodeException(string seam, string? userExceptionType, string message, Exception? innerException)
        : base(message, innerException)
    {
        Seam = seam;
        UserExceptionType = userExceptionType;
    }

    /// <summary>Gets where the application's code was called.</summary>
    public string Seam { get; }

    /// <summary>Gets the full name of the type the application's code threw, or <c>null</c> when it answered something Missive cannot use.</summary>
    public string? UserExceptionType { get; }

    /// <summary>Wraps what the application's code at <paramref name="seam"/> threw.</summary>
    internal static UserCodeException Threw(string seam, Exception thrown, bool logMessageContent)
    {
        string type = thrown.GetType().FullName ?? thrown.GetType().Name;
        string detail = logMessageContent ? ": " + thrown.Message : WithheldNote;
        return new(seam, type, $"The {seam} threw {type}{detail}.", ContentSafety.Inner(thrown, logMessageContent));
    }

    private const string WithheldNote = " (its message is not shown: content logging is off)";
}
