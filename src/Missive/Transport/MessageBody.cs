using System;
using System.Text;

namespace Missive.Transport;

/// <summary>
/// A message body given either as text or as its UTF-8 bytes, whichever its source had: the other form is made only
/// when asked for (the text decoded once and kept; the bytes encoded on each ask, as a body given as text is rarely
/// asked for them). Held by <see cref="SqsMessage"/> and <see cref="SqsSendRequest"/>; not thread-safe on first decode
/// beyond what a benign race costs (both threads decode the same text).
/// </summary>
internal struct MessageBody
{
    private string? _text;
    private ReadOnlyMemory<byte> _utf8;
    private bool _hasUtf8;

    /// <summary>Gets or sets the text: decoded from the bytes on first use; empty when neither was given.</summary>
    public string Text
    {
        get => _text ??= _hasUtf8 ? Encoding.UTF8.GetString(_utf8.Span) : string.Empty;
        set => _text = value;
    }

    /// <summary>Gets or sets the UTF-8 bytes: encoded from the text when the body was given as text.</summary>
    public ReadOnlyMemory<byte> Utf8
    {
        readonly get => _hasUtf8 ? _utf8 : Encoding.UTF8.GetBytes(_text ?? string.Empty);
        set
        {
            _utf8 = value;
            _hasUtf8 = true;
        }
    }

    /// <summary>Gets whether the body was given as bytes.</summary>
    public readonly bool HasUtf8 => _hasUtf8;

    /// <summary>Gets the body's length in UTF-8 bytes, counted without making either form.</summary>
    public readonly int Utf8Length => _hasUtf8 ? _utf8.Length : Encoding.UTF8.GetByteCount(_text ?? string.Empty);
}
