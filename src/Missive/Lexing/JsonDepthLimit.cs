using System;
using System.Buffers;
using System.Text.Json;

namespace Missive.Lexing;

/// <summary>
/// Tells a <see cref="Utf8JsonReader"/> that failed on its depth limit apart from one that failed on malformed JSON
/// (System.Text.Json reports both as a <see cref="JsonException"/>), so the first can be reported as
/// a limit exceeded rather than malformed input.
/// </summary>
internal static class JsonDepthLimit
{
    /// <summary>Whether the reader stopped because the next container in <paramref name="source"/> would go past <paramref name="maxDepth"/>.</summary>
    public static bool WasExceeded(ref Utf8JsonReader reader, int maxDepth, in ReadOnlySequence<byte> source)
    {
        if (!OpenedAtTheDeepestLevel(ref reader, maxDepth))
        {
            return false;
        }

        var rest = new SequenceReader<byte>(source.Slice(reader.BytesConsumed));
        rest.AdvancePastAny((byte)' ', (byte)'\t', (byte)'\r', (byte)'\n');
        return rest.TryPeek(out byte next) && Opens(next);
    }

    /// <summary>Whether the reader stopped because the next container in <paramref name="source"/> would go past <paramref name="maxDepth"/>.</summary>
    public static bool WasExceeded(ref Utf8JsonReader reader, int maxDepth, ReadOnlySpan<byte> source)
    {
        if (!OpenedAtTheDeepestLevel(ref reader, maxDepth))
        {
            return false;
        }

        int next = JsonWhitespace.Skip(source, (int)reader.BytesConsumed);
        return next >= 0 && Opens(source[next]);
    }

    /// <summary>The last token read opened a container at the deepest level allowed.</summary>
    private static bool OpenedAtTheDeepestLevel(ref Utf8JsonReader reader, int maxDepth)
        => reader.TokenType is JsonTokenType.StartArray or JsonTokenType.StartObject && reader.CurrentDepth >= maxDepth - 1;

    private static bool Opens(byte next) => next is (byte)'[' or (byte)'{';
}
