using System;
using System.Collections.Generic;
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
/// in one place (<see cref="ForgetEarlier"/>): the last member of a name counts, as System.Text.Json's document says.</para>
/// </remarks>
internal ref partial struct WrapperScan
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
    private readonly NativeMessageRules? _native;
    private readonly MessageTypeMap? _types;
    private readonly IReadOnlyDictionary<string, MessageAttributeValue>? _attributes;
    private WrapperMembers _members;
    private RentedBuffer _message; // rented for the first Message string, reused by later ones
    private int _messageLength; // of the last Message member, unescaped; -1 when that member is not a string
    private DetailInPlace _detail;

    /// <summary>
    /// Prepares to scan <paramref name="document"/>; <paramref name="detailReader"/>, when given, reads an object
    /// <c>detail</c> that is an envelope where it lies, and <paramref name="native"/> (with the map of its types) one that
    /// a leading EventBridge rule reads as a native message, when the event's <c>source</c> and <c>detail-type</c> come before it
    /// (<paramref name="attributes"/>, the message's SQS attributes, tell whether an attribute rule matches first).
    /// </summary>
    public WrapperScan(ReadOnlyMemory<byte> document, SerializerSettings settings, ILeadingEnvelopeReader? detailReader, NativeMessageRules? native = null, MessageTypeMap? types = null, IReadOnlyDictionary<string, MessageAttributeValue>? attributes = null)
    {
        _attributes = attributes;
        _document = document;
        _settings = settings;
        _detailReader = detailReader;
        _native = types is null ? null : native;
        _types = types;
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
}
