using System;
using System.Text.Unicode;
using System.Threading;

namespace Missive.Lexing;

/// <summary>
/// A small, bounded set of strings that recur from message to message (an application's <c>source</c>, extension
/// names, topic ARNs, SNS attribute names, EventBridge sources and detail types), each kept with its UTF-8 bytes.
/// Reading, an unescaped string token whose bytes are those of a kept string is that string, so it is neither
/// decoded nor allocated again.
/// </summary>
/// <remarks>
/// The first <see cref="Capacity"/> distinct strings offered are kept for the life of the serializer settings, and
/// nothing is ever evicted: a lookup stays a few comparisons, and a stream of distinct values cannot make the cache
/// allocate per message. Readers on many threads share it; an addition swaps in a copy of the array.
/// </remarks>
internal sealed class KnownStrings
{
    /// <summary>How many strings are kept.</summary>
    public const int Capacity = 32;

    /// <summary>The longest string kept, in UTF-16 code units.</summary>
    public const int MaxLength = 256;

    private Entry[] _entries = [];

    /// <summary>Gets the kept string whose UTF-8 bytes are <paramref name="utf8"/> (unescaped text), or <c>null</c>.</summary>
    public string? Find(ReadOnlySpan<byte> utf8)
    {
        foreach (Entry entry in Volatile.Read(ref _entries))
        {
            byte[] known = entry.Utf8;
            if (known.Length == utf8.Length && utf8.SequenceEqual(known)) // most entries differ in length: no call for them
            {
                return entry.Value;
            }
        }

        return null;
    }

    /// <summary>Keeps <paramref name="value"/> if there is room, it is short enough and it is valid UTF-16.</summary>
    public void TryAdd(string value)
    {
        if (value.Length > MaxLength || Volatile.Read(ref _entries).Length == Capacity)
        {
            return;
        }

        byte[] utf8 = new byte[value.Length * 3];
        if (Utf8.FromUtf16(value, utf8, out _, out int written, replaceInvalidSequences: false) != System.Buffers.OperationStatus.Done)
        {
            return; // a lone surrogate has no UTF-8 form to match
        }

        var added = new Entry(value, utf8[..written]);
        while (true)
        {
            Entry[] current = Volatile.Read(ref _entries);
            if (current.Length == Capacity || Contains(current, value))
            {
                return;
            }

            var next = new Entry[current.Length + 1];
            current.CopyTo(next, 0);
            next[^1] = added;
            if (ReferenceEquals(Interlocked.CompareExchange(ref _entries, next, current), current))
            {
                return;
            }
        }
    }

    private static bool Contains(Entry[] entries, string value)
    {
        foreach (Entry entry in entries)
        {
            if (string.Equals(entry.Value, value, StringComparison.Ordinal))
            {
                return true;
            }
        }

        return false;
    }

    /// <summary>A kept string and its UTF-8 bytes, stored in the array itself (one load fewer per comparison).</summary>
    private readonly record struct Entry(string Value, byte[] Utf8);
}
