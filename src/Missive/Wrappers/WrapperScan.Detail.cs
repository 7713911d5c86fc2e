using System;
using System.Diagnostics.CodeAnalysis;
using System.Runtime.CompilerServices;
using System.Text.Json;
using Missive.Buffers;
using Missive.Lexing;
using Missive.Serialization;

namespace Missive.Transport;

/// <summary>An EventBridge detail read where it lies, and the reader states and errors that restarting a reader mid-document needs.</summary>
internal ref partial struct WrapperScan
{
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
        if (start < 0 || span[start] != (byte)'{')
        {
            return false;
        }

        if (!StartsWithCloudEventsMember(span[(start + 1)..]))
        {
            return _native is not null && TryReadNativeDetail(start, out detail);
        }

        if (_detailReader is null)
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
    /// Reads the object <c>detail</c> at <paramref name="start"/> as the type of the leading EventBridge rule that the
    /// event's <c>source</c> and <c>detail-type</c> (read before it) match, where it lies. Any failure leaves it to be read
    /// the ordinary way once the shape is known (which reports it).
    /// </summary>
    private bool TryReadNativeDetail(int start, out WrapperMember detail)
    {
        detail = default;
        ReadOnlySpan<byte> span = _document.Span;
        if (!_members.Source.IsPresent || !_members.DetailType.IsPresent
            || _native!.LeadingEventBridgeRule(span, _members.Source, _members.DetailType, _attributes!) is not { } rule)
        {
            return false;
        }

        MessageTypeInfo info = rule.Registration(_types!);
        MessageEnvelope envelope = info.CreateEnvelope();
        var reader = new Utf8JsonReader(span[start..], _settings.JsonReaderOptions);
        try
        {
            reader.Read();
            info.ReadJsonData(envelope, ref reader);
        }
        catch (Exception e) when (PayloadErrors.IsDataError(e))
        {
            return false;
        }

        _detail.Envelope = envelope;
        _detail.NativeType = info;
        detail = new WrapperMember(JsonTokenType.StartObject, start, reader.BytesConsumed);
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
}
