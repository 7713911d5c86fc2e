using System;
using System.Runtime.InteropServices;

namespace Missive;

/// <summary>
/// How an exception thrown by the application's code (a handler, a serializer, a converter, a middleware) reaches Missive's
/// exceptions and logs when <c>SerializationOptions.LogMessageContent</c> is off, since its message may hold message
/// content: Missive's exception names its type and does not carry it; a log gets a stand-in that keeps its type and stack
/// trace (and those of its inner exceptions) but not its message. With content logging on, both carry it whole.
/// </summary>
internal static class ContentSafety
{
    /// <summary>
    /// Whether an exception ends the process's ability to go on, and must never be caught and turned into a message's
    /// failure. Everything else the application's code throws, <see cref="OperationCanceledException"/> included when it is
    /// not the caller's or the host's own cancellation, is a failure of that code.
    /// </summary>
    public static bool IsFatal(Exception e) => e is OutOfMemoryException or AccessViolationException or SEHException or StackOverflowException;

    /// <summary>The exception as it may be attached to Missive's own: whole with content logging on, else not at all.</summary>
    public static Exception? Inner(Exception thrown, bool logMessageContent) => logMessageContent ? thrown : null;

    /// <summary>
    /// The exception as it may go into a log: whole with content logging on, or when it is Missive's own (whose messages
    /// hold no content); else the stand-in with its type and stack trace.
    /// </summary>
    public static Exception ForLog(Exception thrown, bool logMessageContent)
        => logMessageContent || thrown is MissiveException or IContentFreeException ? thrown : new Withheld(thrown);

    /// <summary>The type name and stack trace of an exception, its message left out (and so for every inner exception).</summary>
    private sealed class Withheld : Exception
    {
        private readonly string? _stackTrace;

        public Withheld(Exception original)
            : base($"{original.GetType().FullName} (its message is not shown: SerializationOptions.LogMessageContent is off)", original.InnerException is { } inner ? new Withheld(inner) : null)
        {
            _stackTrace = original.StackTrace;
            HResult = original.HResult;
        }

        public override string? StackTrace => _stackTrace;
    }
}
