using System;

#if MISSIVE_AWS
namespace Missive.Aws.Lexing; // the same source compiled into Missive.Aws, whose SQS receive answer reads bodies with it
#else
namespace Missive.Lexing;
#endif

/// <summary>JSON's whitespace between tokens: space, tab, line feed and carriage return.</summary>
internal static class JsonWhitespace
{
    /// <summary>
    /// The index of the first byte at or after <paramref name="from"/> that is not whitespace, or -1. Between tokens
    /// there is mostly none, or a little (a space, a line break and an indent): a loop, not a vectorized search,
    /// which costs more to set up than it saves there.
    /// </summary>
    public static int Skip(ReadOnlySpan<byte> span, int from)
    {
        while ((uint)from < (uint)span.Length)
        {
            if (span[from] is not ((byte)' ' or (byte)'\t' or (byte)'\r' or (byte)'\n'))
            {
                return from;
            }

            from++;
        }

        return -1;
    }
}
