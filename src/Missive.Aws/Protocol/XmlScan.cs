using System;
using System.Buffers;
using System.Globalization;
using System.Text;
using System.Text.Unicode;
using System.Xml;

namespace Missive.Aws.Protocol;

/// <summary>A position in an XML document, moved from element to element (see <see cref="AwsXml"/>).</summary>
internal ref struct XmlScan
{
    private static readonly SearchValues<byte> NameEnd = SearchValues.Create(" \t\r\n/>"u8);
    private readonly ReadOnlySpan<byte> _xml;
    private readonly Span<int> _open; // start and length of each open element's name
    private int _depth;
    private int _position;
    private bool _sawRoot;
    private bool _readable; // at a start tag whose content is not read yet

    public XmlScan(ReadOnlySpan<byte> xml, Span<int> open)
    {
        _xml = xml.StartsWith("\uFEFF"u8) ? xml[3..] : xml;
        _open = open;
    }

    /// <summary>Gets the local name (without a prefix) of the element just reached.</summary>
    public ReadOnlySpan<byte> LocalName { get; private set; }

    /// <summary>Moves past the next start tag; <c>false</c> at the end of the document.</summary>
    public bool NextElement()
    {
        _readable = false;
        while (true)
        {
            int lt = _xml[_position..].IndexOf((byte)'<');
            if (lt < 0)
            {
                if (_depth == 0 && !IsWhitespace(_xml[_position..]))
                {
                    throw Malformed("text outside the document's element");
                }

                _position = _xml.Length;
                if (_depth > 0 || !_sawRoot)
                {
                    throw Malformed(_sawRoot ? "an element is not closed" : "no element");
                }

                return false;
            }

            if (_depth == 0 && !IsWhitespace(_xml.Slice(_position, lt)))
            {
                throw Malformed("text outside the document's element");
            }

            _position += lt;
            ReadOnlySpan<byte> rest = _xml[_position..];
            if (rest.StartsWith("</"u8))
            {
                CloseElement();
            }
            else if (rest.StartsWith("<!--"u8))
            {
                Skip("-->"u8);
            }
            else if (rest.StartsWith("<?"u8))
            {
                Skip("?>"u8);
            }
            else if (rest.StartsWith("<![CDATA["u8))
            {
                Skip("]]>"u8);
            }
            else if (rest.StartsWith("<!"u8))
            {
                throw Malformed("a document type declaration, which is not read");
            }
            else if (OpenElement())
            {
                return true;
            }
        }
    }

    /// <summary>Reads the text of the element just reached (entities decoded) and moves past its end.</summary>
    /// <exception cref="XmlException">The element holds other elements, or is not well-formed.</exception>
    public string ReadText()
    {
        if (!_readable)
        {
            return string.Empty; // an empty element (<a/>)
        }

        _readable = false;
        byte[]? rented = null;
        int length = 0;
        try
        {
            while (true)
            {
                int lt = _xml[_position..].IndexOf((byte)'<');
                if (lt < 0)
                {
                    throw Malformed("an element is not closed");
                }

                Append(ref rented, ref length, _xml.Slice(_position, lt), decode: true);
                _position += lt;
                ReadOnlySpan<byte> rest = _xml[_position..];
                if (rest.StartsWith("</"u8))
                {
                    CloseElement();
                    return rented is null ? string.Empty : Encoding.UTF8.GetString(rented, 0, length);
                }

                if (rest.StartsWith("<![CDATA["u8))
                {
                    int end = rest.IndexOf("]]>"u8);
                    if (end < 0)
                    {
                        throw Malformed("a CDATA section is not closed");
                    }

                    Append(ref rented, ref length, rest[9..end], decode: false); // line ends still as XML reads them
                    _position += end + 3;
                }
                else if (rest.StartsWith("<!--"u8))
                {
                    Skip("-->"u8);
                }
                else if (rest.StartsWith("<?"u8))
                {
                    Skip("?>"u8);
                }
                else
                {
                    throw Malformed("an element holds other elements where text was expected");
                }
            }
        }
        finally
        {
            if (rented is not null)
            {
                rented.AsSpan(0, length).Clear();
                ArrayPool<byte>.Shared.Return(rented);
            }
        }
    }

    private static bool IsWhitespace(ReadOnlySpan<byte> text) => text.IndexOfAnyExcept(" \t\r\n"u8) < 0;

    private static XmlException Malformed(string problem) => new($"The answer is not well-formed XML: {problem}.");

    /// <summary>Adds text to what is read so far: with entities and character references decoded, or as it is (CDATA); line ends as XML reads them either way.</summary>
    private static void Append(ref byte[]? buffer, ref int length, ReadOnlySpan<byte> text, bool decode)
    {
        if (text.IsEmpty)
        {
            return;
        }

        if (buffer is null || buffer.Length - length < text.Length)
        {
            byte[] larger = ArrayPool<byte>.Shared.Rent(Math.Max(64, (length + text.Length) * 2));
            if (buffer is not null)
            {
                buffer.AsSpan(0, length).CopyTo(larger);
                buffer.AsSpan(0, length).Clear();
                ArrayPool<byte>.Shared.Return(buffer);
            }

            buffer = larger;
        }

        while (!text.IsEmpty)
        {
            int amp = decode ? text.IndexOf((byte)'&') : -1;
            if (amp < 0)
            {
                length += CopyLineEnds(text, buffer.AsSpan(length));
                return;
            }

            length += CopyLineEnds(text[..amp], buffer.AsSpan(length));
            text = text[amp..];
            int semicolon = text[..Math.Min(text.Length, 12)].IndexOf((byte)';');
            if (semicolon < 0)
            {
                throw Malformed("an '&' that begins no entity");
            }

            ReadOnlySpan<byte> name = text[1..semicolon];
            Rune rune = name switch
            {
                _ when name.SequenceEqual("lt"u8) => new Rune('<'),
                _ when name.SequenceEqual("gt"u8) => new Rune('>'),
                _ when name.SequenceEqual("amp"u8) => new Rune('&'),
                _ when name.SequenceEqual("quot"u8) => new Rune('"'),
                _ when name.SequenceEqual("apos"u8) => new Rune('\''),
                _ => CharacterReference(name),
            };

            // An entity's UTF-8 is never longer than its reference (at least "&#9;" for one byte, "&#x10000;" for four).
            length += rune.EncodeToUtf8(buffer.AsSpan(length));
            text = text[(semicolon + 1)..];
        }
    }

    /// <summary>Copies text with its line ends as XML reads them (§2.11: CR LF and a lone CR become LF); returns the bytes written.</summary>
    private static int CopyLineEnds(ReadOnlySpan<byte> text, Span<byte> destination)
    {
        int cr = text.IndexOf((byte)'\r');
        if (cr < 0)
        {
            text.CopyTo(destination);
            return text.Length;
        }

        int written = 0;
        for (int i = 0; i < text.Length; i++)
        {
            byte b = text[i];
            if (b == (byte)'\r')
            {
                b = (byte)'\n';
                if (i + 1 < text.Length && text[i + 1] == (byte)'\n')
                {
                    i++;
                }
            }

            destination[written++] = b;
        }

        return written;
    }

    private static Rune CharacterReference(ReadOnlySpan<byte> name)
    {
        bool hex = name.StartsWith("#x"u8);
        ReadOnlySpan<byte> digits = hex ? name[2..] : name.StartsWith("#"u8) ? name[1..] : default;
        if (!digits.IsEmpty
            && int.TryParse(digits, hex ? NumberStyles.AllowHexSpecifier : NumberStyles.None, CultureInfo.InvariantCulture, out int value)
            && Rune.IsValid(value) && (value >= 0x20 || value is 0x9 or 0xA or 0xD))
        {
            return new Rune(value);
        }

        throw Malformed("an unknown entity or a character XML does not allow");
    }

    /// <summary>Reads a start tag at the position; <c>true</c> for an element (open or empty), whose content follows.</summary>
    private bool OpenElement()
    {
        ReadOnlySpan<byte> rest = _xml[_position..];
        int nameEnd = rest.IndexOfAny(NameEnd);
        if (nameEnd <= 1)
        {
            throw Malformed("a tag without a name");
        }

        ReadOnlySpan<byte> name = rest[1..nameEnd];
        int end = TagEnd(rest, nameEnd);
        bool empty = rest[end - 1] == (byte)'/';
        if (_depth == 0 && _sawRoot)
        {
            throw Malformed("a second document element");
        }

        _sawRoot = true;
        int colon = name.LastIndexOf((byte)':');
        LocalName = colon < 0 ? name : name[(colon + 1)..];
        if (!empty)
        {
            if (_depth == AwsXml.MaxDepth)
            {
                throw Malformed($"elements nested over {AwsXml.MaxDepth} deep");
            }

            _open[_depth * 2] = _position + 1;
            _open[(_depth * 2) + 1] = name.Length;
            _depth++;
        }

        _position += end + 1;
        _readable = !empty;
        return true;
    }

    /// <summary>The end (the '&gt;') of the tag that starts <paramref name="tag"/>, past quoted attribute values.</summary>
    private static int TagEnd(ReadOnlySpan<byte> tag, int from)
    {
        byte quote = 0;
        for (int i = from; i < tag.Length; i++)
        {
            byte b = tag[i];
            if (quote != 0)
            {
                if (b == quote)
                {
                    quote = 0;
                }
            }
            else if (b is (byte)'"' or (byte)'\'')
            {
                quote = b;
            }
            else if (b == (byte)'>')
            {
                return i;
            }
            else if (b == (byte)'<')
            {
                break;
            }
        }

        throw Malformed("a tag is not closed");
    }

    private void CloseElement()
    {
        ReadOnlySpan<byte> rest = _xml[_position..];
        int end = rest.IndexOf((byte)'>');
        if (end < 0 || _depth == 0)
        {
            throw Malformed(end < 0 ? "a tag is not closed" : "an end tag with no element open");
        }

        _depth--;
        ReadOnlySpan<byte> name = rest[2..end].TrimEnd(" \t\r\n"u8);
        if (!name.SequenceEqual(_xml.Slice(_open[_depth * 2], _open[(_depth * 2) + 1])))
        {
            throw Malformed("an end tag that does not match its start tag");
        }

        _position += end + 1;
    }

    private void Skip(ReadOnlySpan<byte> terminator)
    {
        int end = _xml[_position..].IndexOf(terminator);
        if (end < 0)
        {
            throw Malformed("a comment, instruction or CDATA section is not closed");
        }

        _position += end + terminator.Length;
    }
}
