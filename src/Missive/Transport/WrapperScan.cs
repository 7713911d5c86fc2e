using System;
using System.Diagnostics.CodeAnalysis;
using System.Runtime.CompilerServices;
using System.Text.Json;
using Missive.Buffers;
using Missive.Lexing;
using Missive.Serialization;

namespace Missive.Transport;

/// <summary>
/// Tells what a received document is, with the rules AWS.Messaging uses, in one pass over its top-level members:
/// </summary>
/// <remarks>
/// <list type="number">
/// <item>SNS notification: <c>Type</c> is <c>"Notification"</c> and <c>MessageId</c> and <c>TopicArn</c>
/// are present. <c>SubscriptionConfirmation</c> and <c>UnsubscribeConfirmation</c> are control messages.</item>
/// <item>EventBridge event: <c>detail</c>, <c>detail-type</c>, <c>source</c> and <c>time</c> are present.</item>
/// <item>Raw: anything else. A document that is not a JSON object, or whose first member is a CloudEvents
/// attribute name (SNS notifications start with <c>Type</c>, EventBridge events with <c>version</c>), is
/// taken as raw at once, so raw envelopes are not scanned twice.</item>
/// </list>
/// <para>The members are gone through by hand while they have the shapes SNS and EventBridge write (a plain name,
/// then a string without escapes, the <c>Message</c> string, an empty array or a <c>detail</c> read in place), and
/// by a <see cref="Utf8JsonReader"/> from the first member that does not, so every error is the reader's.</para>
/// <para>A string <c>Message</c> member is validated and unescaped into a rented buffer in one pass
/// (<see cref="JsonStringUnescaper"/>), and the reader (if one is reading) restarts after it, so the bytes of an
/// SNS notification's envelope are read once before the envelope itself.</para>
/// <para>Given a reader for it, an object <c>detail</c> whose first member is a CloudEvents attribute is read
/// as the envelope where it lies, and the reading goes on after it, so the detail is not tokenized once to
/// skip it and again to read it. If that read fails for any reason the detail is skipped as before, and the
/// envelope is read (and its error reported) the ordinary way once the shape is known; except a failure of its data
/// (the application's serializer or converter may have run): that is kept, and reported if the document proves to be
/// an EventBridge event with that detail, so that the application's code is not called twice for it.</para>
/// <para>The scan owns its state (the members seen, the rented buffer the <c>Message</c> is unescaped into, the detail
/// read in place) and releases it when disposed. A member met again replaces what the earlier one of its name left,
/// in one place (<see cref="Meet"/>): the last member of a name counts, as System.Text.Json's document says.</para>
/// </remarks>
internal ref struct WrapperScan
{
    /// <summary>The member names a CloudEvents envelope has and no wrapper has.</summary>
    private static readonly byte[][] CloudEventsNames =
    [
        CloudEventAttributeNames.IdUtf8.ToArray(), CloudEventAttributeNames.SpecVersionUtf8.ToArray(), CloudEventAttributeNames.TypeUtf8.ToArray(),
        CloudEventAttributeNames.DataContentTypeUtf8.ToArray(), CloudEventAttributeNames.DataUtf8.ToArray(), CloudEventAttributeNames.DataBase64Utf8.ToArray(),
    ];

    private readonly ReadOnlyMemory<byte> _document;
    private readonly SerializerSettings _settings;
    private readonly ILeadingEnvelopeReader? _detailReader;
    private WrapperMembers _members;
    private RentedBuffer _message; // rented for the first Message string, reused by later ones
    private int _messageLength; // of the last Message member, unescaped; -1 when that member is not a string
    private DetailInPlace _detail;

    /// <summary>Prepares to scan <paramref name="document"/>; <paramref name="detailReader"/>, when given, reads an object <c>detail</c> where it lies.</summary>
    public WrapperScan(ReadOnlyMemory<byte> document, SerializerSettings settings, ILeadingEnvelopeReader? detailReader)
    {
        _document = document;
        _settings = settings;
        _detailReader = detailReader;
        _messageLength = -1;
    }

    /// <summary>Gets where the members that tell the shape lie in the document.</summary>
    [UnscopedRef]
    public readonly ref readonly WrapperMembers Members => ref _members;

    /// <summary>Gets what reading an object <c>detail</c> where it lies gave (nothing when it was not read so).</summary>
    public readonly DetailInPlace Detail => _detail;

    /// <summary>Gets the last <c>Message</c> member's string, unescaped, when that member is a string.</summary>
    public readonly bool TryGetMessage(out Memory<byte> message)
    {
        message = _messageLength < 0 ? default : _message.Memory[.._messageLength];
        return _messageLength >= 0;
    }

    /// <summary>Returns the rented buffer (cleared as the settings say).</summary>
    public void Dispose() => _message.Dispose();

    /// <summary>Classifies the document, going through its members by hand first when <paramref name="scan"/> says so.</summary>
    public WrapperShape Classify(bool scan)
    {
        ReadOnlySpan<byte> span = _document.Span;
        int significant = JsonWhitespace.Skip(span, 0);
        if (significant < 0 || span[significant] != (byte)'{')
        {
            return WrapperShape.Raw; // not a JSON object: base64 protobuf, or input the serializer will name the problem of
        }

        if (StartsWithCloudEventsMember(span[(significant + 1)..]))
        {
            return WrapperShape.Raw; // what the reader below would find from the first member, without setting one up
        }

        bool complete = false;
        int scanned = scan ? ScanMembers(significant, out complete) : 0;
        if (!complete && ReadMembers(scanned))
        {
            return WrapperShape.Raw;
        }

        if (_members.Type.IsStringEqualTo(span, "Notification"u8) && _members.Message.IsPresent
            && (!_members.MessageId.IsPresent || !_members.TopicArn.IsPresent))
        {
            // The shape of an SNS notification with its identity missing: say so, rather than read it as an envelope.
            string missing = !_members.MessageId.IsPresent && !_members.TopicArn.IsPresent ? "MessageId and TopicArn" : !_members.TopicArn.IsPresent ? "TopicArn" : "MessageId";
            ThrowHelper.ThrowInvalidEnvelope(InvalidEnvelopeReason.Malformed, $"The body is an SNS notification (Type \"Notification\" with a Message) without its {missing}", _members.Type.Start);
        }

        if (_members.Type.IsString && _members.MessageId.IsPresent && _members.TopicArn.IsPresent)
        {
            if (_members.Type.IsStringEqualTo(span, "Notification"u8))
            {
                return WrapperShape.SnsNotification;
            }

            if (_members.Type.IsStringEqualTo(span, "SubscriptionConfirmation"u8) || _members.Type.IsStringEqualTo(span, "UnsubscribeConfirmation"u8))
            {
                return WrapperShape.SnsControl;
            }
        }

        if (_members.Detail.IsPresent && _members.DetailType.IsPresent && _members.Source.IsPresent && _members.Time.IsPresent)
        {
            return WrapperShape.EventBridgeEvent;
        }

        return WrapperShape.Raw;
    }

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
                    Meet(ref slot);
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
                Meet(ref slot);
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
                case (byte)'{' when _detailReader is not null && known && _members.IsDetail(ref slot):
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
    /// A member of a known name is met: what an earlier member of that name left is forgotten before this one's value
    /// is read (the last one counts). This is the one place that says what a repeated member resets.
    /// </summary>
    private void Meet(ref WrapperMember slot)
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

    /// <summary>
    /// Reads the envelope in an EventBridge <c>detail</c> object, where it lies, when the detail is one: an object
    /// whose first member is a CloudEvents attribute with a plain name, which is when the detail would be read as a
    /// raw envelope (an escaped name leaves the detail to the ordinary read, which gives the same envelope).
    /// <paramref name="afterColon"/> is where the detail's value may start in the document;
    /// <paramref name="detail"/> receives where the object lies, as <see cref="UnescapeMessage"/> gives the Message's.
    /// A detail whose data failed counts as read: <see cref="Detail"/> holds the failure.
    /// </summary>
    private bool TryReadDetailEnvelope(int afterColon, out WrapperMember detail)
    {
        ReadOnlySpan<byte> span = _document.Span;
        int start = JsonWhitespace.Skip(span, afterColon);
        detail = default;
        if (_detailReader is null || start < 0 || span[start] != (byte)'{' || !StartsWithCloudEventsMember(span[(start + 1)..]))
        {
            return false;
        }

        int length;
        try
        {
            if (!_detailReader.TryReadLeadingEnvelope(_document[start..], out MessageEnvelope? envelope, out length))
            {
                return false;
            }

            _detail.Envelope = envelope;
        }
        catch (InvalidEnvelopeException e) when (e.DataReadFailed)
        {
            // The detail is well-formed JSON (else its data's failure would not be final): skip it to go on.
            var extent = new Utf8JsonReader(span[start..], _settings.WrapperReaderOptions);
            extent.Read();
            extent.Skip();
            length = (int)extent.BytesConsumed;
            _detail.DataFailure = e;
        }

        detail = new WrapperMember(JsonTokenType.StartObject, start, length);
        return true;
    }

    /// <summary>
    /// The error a reader gives when it reads the whole <paramref name="document"/>. A reader restarted after an
    /// unescaped <c>Message</c> or a detail read in place counts lines and bytes from where it restarted; all before
    /// that point was valid, so a reader from the start fails at the same place and gives the position in the document.
    /// </summary>
    private static JsonException FromTheStart(JsonException e, ReadOnlySpan<byte> document, JsonReaderOptions options)
    {
        var reader = new Utf8JsonReader(document, options);
        try
        {
            while (reader.Read())
            {
            }
        }
        catch (JsonException whole)
        {
            return whole;
        }

        return e;
    }

    /// <summary>
    /// The state of a reader that has just read a member of the top-level object (a string one: after any value,
    /// what may follow is the same, a comma or the object's end).
    /// </summary>
    private static JsonReaderState AfterATopLevelMember(JsonReaderOptions options)
    {
        var member = new Utf8JsonReader("{\"\":\"\""u8, isFinalBlock: false, new JsonReaderState(options));
        member.Read();
        member.Read();
        member.Read();
        return member.CurrentState;
    }

    /// <summary>The state of a reader in the wrapper object that has just read a member's object value, from the state it had after the member's name.</summary>
    private static JsonReaderState AfterAnObjectValue(JsonReaderState afterName)
    {
        var value = new Utf8JsonReader("{}"u8, isFinalBlock: false, afterName);
        value.Read();
        value.Read();
        return value.CurrentState;
    }

    /// <summary>The state of a reader in the wrapper object that has just read a member's string value, from the state it had after the member's name.</summary>
    private static JsonReaderState AfterAStringValue(JsonReaderState afterName)
    {
        var value = new Utf8JsonReader("\"\""u8, isFinalBlock: false, afterName);
        value.Read();
        return value.CurrentState;
    }

    /// <summary>
    /// Whether an object's content starts with a member whose plain (unescaped) name is a CloudEvents attribute
    /// <see cref="IsCloudEventsMember"/> knows, followed by its colon: a raw envelope, as written by every producer.
    /// </summary>
    private static bool StartsWithCloudEventsMember(ReadOnlySpan<byte> content)
    {
        int quote = JsonWhitespace.Skip(content, 0);
        if (quote < 0 || content[quote] != (byte)'"')
        {
            return false;
        }

        ReadOnlySpan<byte> rest = content[(quote + 1)..];
        int end = rest.IndexOf((byte)'"');
        if (end < 0)
        {
            return false;
        }

        ReadOnlySpan<byte> name = rest[..end];
        int colon = JsonWhitespace.Skip(rest, end + 1);
        if (colon < 0 || rest[colon] != (byte)':')
        {
            return false;
        }

        foreach (byte[] known in CloudEventsNames)
        {
            if (name.SequenceEqual(known))
            {
                return true;
            }
        }

        return false;
    }

    /// <summary>Tells whether the member name the reader is on is one a CloudEvents envelope has and no wrapper has.</summary>
    private static bool IsCloudEventsMember(ref Utf8JsonReader reader)
    {
        foreach (byte[] known in CloudEventsNames)
        {
            if (reader.ValueTextEquals(known))
            {
                return true;
            }
        }

        return false;
    }
}

/// <summary>
/// What reading an EventBridge <c>detail</c> object where it lies gave: its envelope, or the failure of its data, to
/// be reported (not read again) if the document proves to be an EventBridge event with that detail.
/// </summary>
internal struct DetailInPlace
{
    public MessageEnvelope? Envelope;
    public InvalidEnvelopeException? DataFailure;
}
