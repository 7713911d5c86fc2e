using System;
using System.Diagnostics.CodeAnalysis;
using System.Runtime.CompilerServices;
using System.Text.Json;
using Missive.Buffers;
using Missive.Lexing;
using Missive.Serialization;

namespace Missive.Transport;

/// <summary>The top-level members: read one by one, or scanned in one pass, and the Message string unescaped.</summary>
internal ref partial struct WrapperScan
{
    /// <summary>
    /// Reads the members of the top-level object with a reader, from <paramref name="offset"/>: the start of the
    /// document, or just after a member value <see cref="ScanMembers"/> got to. Returns whether the first member is
    /// a CloudEvents attribute, which makes the document a raw envelope.
    /// </summary>
    private bool ReadMembers(int offset)
    {
        ReadOnlySpan<byte> span = _document.Span;
        SerializerSettings settings = _settings;
        bool first = offset == 0;
        var reader = first
            ? new Utf8JsonReader(span, settings.WrapperReaderOptions)
            : new Utf8JsonReader(span[offset..], isFinalBlock: true, AfterATopLevelMember(settings.WrapperReaderOptions));
        try
        {
            if (first)
            {
                reader.Read();
            }

            while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
            {
                if (first && IsCloudEventsMember(ref reader))
                {
                    return true;
                }

                first = false;
                ref WrapperMember slot = ref _members.Slot(ref reader);
                bool known = !Unsafe.IsNullRef(ref slot);
                if (known)
                {
                    ForgetEarlier(ref slot);
                }

                if (known && _members.IsMessage(ref slot))
                {
                    int quote = JsonWhitespace.Skip(span, offset + (int)reader.BytesConsumed); // the reader consumed the name's colon
                    if (quote >= 0 && span[quote] == (byte)'"')
                    {
                        // The envelope string is validated and unescaped in one pass, and the reader goes on after it.
                        slot = UnescapeMessage(quote);
                        offset = (int)(slot.Start + slot.Length);
                        reader = new Utf8JsonReader(span[offset..], isFinalBlock: true, AfterAStringValue(reader.CurrentState));
                        continue;
                    }
                }

                if (known && _members.IsDetail(ref slot))
                {
                    if (TryReadDetailEnvelope(offset + (int)reader.BytesConsumed, out WrapperMember detail))
                    {
                        // The envelope in an object detail is read where it lies, and the reader goes on after it.
                        slot = detail;
                        offset = (int)(detail.Start + detail.Length);
                        reader = new Utf8JsonReader(span[offset..], isFinalBlock: true, AfterAnObjectValue(reader.CurrentState));
                        continue;
                    }
                }

                reader.Read();
                long start = offset + reader.TokenStartIndex;
                JsonTokenType type = reader.TokenType;
                bool escaped = type == JsonTokenType.String && reader.ValueIsEscaped;
                reader.Skip();
                if (known)
                {
                    slot = new WrapperMember(type, start, offset + reader.BytesConsumed - start, escaped);
                }
            }

            return false;
        }
        catch (JsonException e) when (JsonDepthLimit.WasExceeded(ref reader, settings.WrapperReaderOptions.MaxDepth, span[offset..]))
        {
            // Too deep inside the wrapper's one level: the envelope is over the limit, whatever wraps it.
            throw ThrowHelper.Create(InvalidEnvelopeReason.LimitExceeded, $"The envelope is nested deeper than the limit of {settings.MaxJsonDepth} levels (SerializationOptions.MaxJsonDepth)", offset + reader.TokenStartIndex, inner: settings.LogMessageContent ? e : null);
        }
        catch (JsonException e) when (offset > 0 || e.LineNumber is null)
        {
            // A restarted reader counts from where it restarted, and the unescaper (which gives no line) counts bytes
            // from the document's start: System.Text.Json's own position comes from reading it again.
            throw FromTheStart(e, span, settings.WrapperReaderOptions);
        }
    }

    /// <summary>
    /// Goes through the members of the top-level object, whose <c>{</c> is at <paramref name="open"/>, without a
    /// reader while they have the shapes of SNS notifications and EventBridge events: a plain name, then a string
    /// without escapes, the <c>Message</c> string (unescaped as <see cref="ReadMembers"/> does), an empty array, or
    /// an object <c>detail</c> read in place. At anything else it stops before the member and returns where the
    /// reader is to go on (0: the whole object), so every error is the reader's. <paramref name="complete"/> tells
    /// that the object's end was reached (the reader stops there too, whatever follows).
    /// </summary>
    private int ScanMembers(int open, out bool complete)
    {
        ReadOnlySpan<byte> span = _document.Span;
        complete = false;
        int resume = 0;
        int at = open + 1;
        while (true)
        {
            int value = JsonPlainMember.Value(span, at, out int nameStart, out int nameEnd);
            if (value < 0)
            {
                return resume;
            }

            ref WrapperMember slot = ref _members.Slot(span[nameStart..nameEnd]);
            bool known = !Unsafe.IsNullRef(ref slot);
            if (known)
            {
                ForgetEarlier(ref slot);
            }

            int end;
            switch (span[value])
            {
                case (byte)'"' when known && _members.IsMessage(ref slot):
                    try
                    {
                        slot = UnescapeMessage(value);
                    }
                    catch (Exception e) when (e is JsonException or InvalidOperationException)
                    {
                        return resume; // the reader reads the member again and fails as it would have
                    }

                    end = (int)(slot.Start + slot.Length);
                    break;
                case (byte)'"':
                    end = JsonPlainString.End(span, value) + 1;
                    if (end == 0)
                    {
                        return resume;
                    }

                    if (known)
                    {
                        slot = new WrapperMember(JsonTokenType.String, value, end - value, IsEscaped: false);
                    }

                    break;
                case (byte)'[':
                    end = JsonWhitespace.Skip(span, value + 1);
                    if (end < 0 || span[end] != (byte)']')
                    {
                        return resume;
                    }

                    end++;
                    if (known)
                    {
                        slot = new WrapperMember(JsonTokenType.StartArray, value, end - value);
                    }

                    break;
                case (byte)'{' when (_detailReader is not null || _native is not null) && known && _members.IsDetail(ref slot):
                    if (!TryReadDetailEnvelope(value, out WrapperMember detail))
                    {
                        return resume;
                    }

                    slot = detail;
                    end = (int)(detail.Start + detail.Length);
                    break;
                default:
                    return resume;
            }

            resume = end;
            int next = JsonPlainMember.Separator(span, end);
            if (next < 0)
            {
                return resume;
            }

            if (span[next] == (byte)'}')
            {
                complete = true;
                return resume;
            }

            at = next + 1;
        }
    }

    /// <summary>
    /// Unescapes the <c>Message</c> string whose opening quote is at <paramref name="quote"/> into the rented buffer, and
    /// returns where the string lies. A repeated member (the last one counts) is unescaped over the earlier one in the
    /// buffer rented for the first, which is large enough for any later one (each has less of the document after it):
    /// renting and clearing a buffer for the rest of the document at every repeat made a body of repeats cost
    /// quadratic time.
    /// </summary>
    private WrapperMember UnescapeMessage(int quote)
    {
        ReadOnlySpan<byte> span = _document.Span;
        if (_message.IsEmpty)
        {
            _message = _settings.Rent(span.Length - quote);
        }

        _messageLength = JsonStringUnescaper.Unescape(span, quote + 1, _message.Span, out int closingQuote);
        return new WrapperMember(JsonTokenType.String, quote, closingQuote + 1 - quote);
    }

    /// <summary>
    /// Before a member of a known name is read: what an earlier member of that name left is forgotten before this one's value
    /// is read (the last one counts). This is the one place that says what a repeated member resets.
    /// </summary>
    private void ForgetEarlier(ref WrapperMember slot)
    {
        slot = default;
        if (_members.IsMessage(ref slot))
        {
            _messageLength = -1; // an earlier Message string stays in the buffer, but is no longer the Message
        }
        else if (_members.IsDetail(ref slot))
        {
            _detail = default; // an envelope read in an earlier detail, or its data's failure, is dropped
        }
    }
}
