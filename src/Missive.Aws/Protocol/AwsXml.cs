using System;
using System.IO;
using System.Runtime.InteropServices;
using System.Xml;

namespace Missive.Aws.Protocol;

/// <summary>Walks the elements of a Query-protocol XML answer, without DTDs or external resolution.</summary>
internal static class AwsXml
{
    /// <summary>
    /// Calls <paramref name="onElement"/> for every element, in document order (namespaces ignored: compare
    /// <see cref="XmlReader.LocalName"/>). It returns <c>true</c> when it read the element's content with
    /// <see cref="XmlReader.ReadElementContentAsString()"/>, which already moved the reader to the next node.
    /// </summary>
    /// <exception cref="XmlException">The body is not well-formed XML.</exception>
    public static void Walk(ReadOnlyMemory<byte> body, Func<XmlReader, bool> onElement)
    {
        MemoryStream stream = MemoryMarshal.TryGetArray(body, out ArraySegment<byte> segment)
            ? new MemoryStream(segment.Array!, segment.Offset, segment.Count, writable: false)
            : new MemoryStream(body.ToArray(), writable: false);
        using var reader = XmlReader.Create(stream, new XmlReaderSettings { DtdProcessing = DtdProcessing.Prohibit, XmlResolver = null, IgnoreWhitespace = true });
        reader.MoveToContent();
        while (!reader.EOF)
        {
            if (reader.NodeType == XmlNodeType.Element && onElement(reader))
            {
                continue;
            }

            reader.Read();
        }
    }
}
