using System;
using System.Buffers;
using System.Globalization;
using System.Text;
using Missive.Buffers;

namespace Missive.Aws.Protocol;

/// <summary>
/// An <c>application/x-www-form-urlencoded</c> body as the Query protocol takes it: <c>name=value</c> pairs joined by
/// <c>&amp;</c>, names and values percent-encoded as RFC 3986 says (every byte of their UTF-8 but the unreserved
/// <c>A-Z a-z 0-9 - _ . ~</c> as <c>%XX</c>, upper-case hex), written straight into a pooled buffer (cleared when it
/// goes back): no string per value, no copy of the form. Dispose it once the request is sent.
/// </summary>
internal sealed class QueryForm : IDisposable
{
    private static readonly SearchValues<char> Unreserved = SearchValues.Create("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~");
    private readonly PooledBufferWriter _body = new(ArrayPool<byte>.Shared, 2048, clearOnReturn: true);

    public QueryForm(string action, string version)
    {
        Add("Action", action);
        Add("Version", version);
    }

    /// <summary>Gets the body written so far.</summary>
    public ReadOnlyMemory<byte> WrittenMemory => _body.WrittenMemory;

    public void Add(string name, string value)
    {
        Separate();
        Escape(name);
        Equal();
        Escape(value);
    }

    /// <summary>
    /// Adds <c>{list}{n}.{field}={value}</c> (for example <c>PublishBatchRequestEntries.member.3.Message</c>), the name
    /// written from its parts; for <paramref name="n"/> 0, <c>{field}={value}</c> (a field of the request itself).
    /// </summary>
    /// <param name="list">The list's name and member word, ending in a dot, in unreserved ASCII.</param>
    /// <param name="n">The member's number, from 1; or 0 for none.</param>
    /// <param name="field">The field, in unreserved ASCII (dots allowed).</param>
    /// <param name="value">The value; nothing is added when it is <c>null</c>.</param>
    public void AddMember(ReadOnlySpan<byte> list, int n, ReadOnlySpan<byte> field, string? value)
    {
        if (value is null)
        {
            return;
        }

        Separate();
        if (n > 0)
        {
            Write(list);
            Span<byte> number = _body.GetSpan(11);
            n.TryFormat(number, out int written, default, CultureInfo.InvariantCulture);
            _body.Advance(written);
            Write("."u8);
        }

        Write(field);
        Equal();
        Escape(value);
    }

    public void Dispose() => _body.Dispose();

    private void Separate()
    {
        if (_body.WrittenCount > 0)
        {
            Write("&"u8);
        }
    }

    private void Equal() => Write("="u8);

    private void Write(ReadOnlySpan<byte> ascii)
    {
        ascii.CopyTo(_body.GetSpan(ascii.Length));
        _body.Advance(ascii.Length);
    }

    /// <summary>Writes <paramref name="text"/> percent-encoded: runs of unreserved characters as they are, every other character's UTF-8 bytes as <c>%XX</c>.</summary>
    private void Escape(ReadOnlySpan<char> text)
    {
        Span<byte> utf8 = stackalloc byte[4];
        while (!text.IsEmpty)
        {
            int plain = text.IndexOfAnyExcept(Unreserved);
            int run = plain < 0 ? text.Length : plain;
            if (run > 0)
            {
                Span<byte> span = _body.GetSpan(run);
                Encoding.ASCII.GetBytes(text[..run], span);
                _body.Advance(run);
                text = text[run..];
                continue;
            }

            // One character (a surrogate pair is one scalar) to escape: at most 4 UTF-8 bytes, 12 written.
            int length = char.IsHighSurrogate(text[0]) && text.Length > 1 && char.IsLowSurrogate(text[1]) ? 2 : 1;
            int count = Encoding.UTF8.GetBytes(text[..length], utf8);
            Span<byte> escaped = _body.GetSpan(count * 3);
            for (int i = 0; i < count; i++)
            {
                escaped[i * 3] = (byte)'%';
                escaped[(i * 3) + 1] = Hex(utf8[i] >> 4);
                escaped[(i * 3) + 2] = Hex(utf8[i] & 0xF);
            }

            _body.Advance(count * 3);
            text = text[length..];
        }
    }

    private static byte Hex(int nibble) => (byte)(nibble < 10 ? '0' + nibble : 'A' + nibble - 10);
}
