using System;
using System.Buffers;
using System.Globalization;
using System.Text;
using System.Text.Unicode;
using System.Xml;

namespace Missive.Aws.Protocol;

/// <summary>
/// Walks the elements of a Query-protocol XML answer (SNS's answers and errors) over its UTF-8 bytes, without an
/// <see cref="XmlReader"/> (whose buffers cost some 10 KB per answer): start and end tags matched, text and CDATA read
/// with the XML entities and character references decoded, comments and processing instructions skipped; a document
/// type declaration (DTD) is refused, as is anything that is not well-formed in these respects.
/// </summary>
internal static class AwsXml
{
    /// <summary>The deepest nesting read (SNS answers go four deep).</summary>
    public const int MaxDepth = 32;

    /// <summary>Handles one element; returns <c>true</c> when it read the element's text (<see cref="XmlScan.ReadText"/>), which consumed the element.</summary>
    public delegate bool ElementHandler<TState>(ref XmlScan scan, ref TState state);

    /// <summary>Calls <paramref name="onElement"/> for every element, in document order (namespace prefixes dropped: compare <see cref="XmlScan.LocalName"/>).</summary>
    /// <exception cref="XmlException">The body is not UTF-8, or not well-formed XML.</exception>
    public static void Walk<TState>(ReadOnlySpan<byte> body, ref TState state, ElementHandler<TState> onElement)
    {
        if (!Utf8.IsValid(body))
        {
            throw new XmlException("The answer is not UTF-8.");
        }

        Span<int> open = stackalloc int[MaxDepth * 2];
        var scan = new XmlScan(body, open);
        while (scan.NextElement())
        {
            onElement(ref scan, ref state);
        }
    }
}
