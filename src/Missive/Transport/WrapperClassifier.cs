using System;
using System.Runtime.CompilerServices;
using System.Text.Json;
using Missive.Buffers;
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
/// <para>A string <c>Message</c> member is validated and unescaped into a rented buffer in one pass
/// (<see cref="JsonStringUnescaper"/>), and the reader restarts after it, so the bytes of an SNS
/// notification's envelope are read once before the envelope itself.</para>
/// </remarks>
internal static class WrapperClassifier
{
    /// <summary>Classifies <paramref name="document"/>; <paramref name="message"/> receives the unescaped <c>Message</c> string, if any.</summary>
    public static WrapperShape Classify(ReadOnlySpan<byte> document, SerializerSettings settings, out WrapperMembers members, ref RentedBuffer message, out int messageLength)
    {
        members = default;
        messageLength = 0;
        int significant = document.IndexOfAnyExcept(" \t\r\n"u8);
        if (significant < 0 || document[significant] != (byte)'{')
        {
            return WrapperShape.Raw; // not a JSON object: base64 protobuf, or input the serializer will name the problem of
        }

        var reader = new Utf8JsonReader(document, settings.WrapperReaderOptions);
        int offset = 0; // where the reader's span starts in the document: it is restarted after a Message string
        try
        {
            reader.Read();

            bool first = true;
            while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
            {
                if (first && IsCloudEventsMember(ref reader))
                {
                    return WrapperShape.Raw;
                }

                first = false;
                ref WrapperMember slot = ref members.Slot(ref reader);
                if (!Unsafe.IsNullRef(ref slot) && members.IsMessage(ref slot))
                {
                    int afterColon = offset + (int)reader.BytesConsumed; // the reader consumed the name's colon
                    int gap = document[afterColon..].IndexOfAnyExcept(" \t\r\n"u8);
                    int quote = afterColon + gap;
                    if (gap >= 0 && document[quote] == (byte)'"')
                    {
                        // The envelope string is validated and unescaped in one pass, and the reader goes on after it.
                        message.Dispose(); // a repeated member: the last one counts
                        message = settings.Rent(document.Length - quote);
                        messageLength = JsonStringUnescaper.Unescape(document, quote + 1, message.Span, out int closingQuote);
                        slot = new WrapperMember(JsonTokenType.String, quote, closingQuote + 1 - quote);
                        offset = closingQuote + 1;
                        reader = new Utf8JsonReader(document[offset..], isFinalBlock: true, AfterAStringValue(reader.CurrentState));
                        continue;
                    }
                }

                reader.Read();
                long start = offset + reader.TokenStartIndex;
                JsonTokenType type = reader.TokenType;
                reader.Skip();
                if (!Unsafe.IsNullRef(ref slot))
                {
                    slot = new WrapperMember(type, start, offset + reader.BytesConsumed - start);
                }
            }
        }
        catch (JsonException e) when (JsonDepthLimit.WasExceeded(ref reader, settings.WrapperReaderOptions.MaxDepth, document[offset..]))
        {
            // Too deep inside the wrapper's one level: the envelope is over the limit, whatever wraps it.
            throw ThrowHelper.Create(InvalidEnvelopeReason.LimitExceeded, $"The envelope is nested deeper than the limit of {settings.MaxJsonDepth} levels (SerializationOptions.MaxJsonDepth)", offset + reader.TokenStartIndex, inner: settings.LogMessageContent ? e : null);
        }

        if (members.Type.IsString && members.Type.ValueIn(document).SequenceEqual("\"Notification\""u8) && members.Message.IsPresent
            && (!members.MessageId.IsPresent || !members.TopicArn.IsPresent))
        {
            // The shape of an SNS notification with its identity missing: say so, rather than read it as an envelope.
            string missing = !members.MessageId.IsPresent && !members.TopicArn.IsPresent ? "MessageId and TopicArn" : !members.TopicArn.IsPresent ? "TopicArn" : "MessageId";
            ThrowHelper.ThrowInvalidEnvelope(InvalidEnvelopeReason.Malformed, $"The body is an SNS notification (Type \"Notification\" with a Message) without its {missing}", members.Type.Start);
        }

        if (members.Type.IsString && members.MessageId.IsPresent && members.TopicArn.IsPresent)
        {
            ReadOnlySpan<byte> type = members.Type.ValueIn(document);
            if (type.SequenceEqual("\"Notification\""u8))
            {
                return WrapperShape.SnsNotification;
            }

            if (type.SequenceEqual("\"SubscriptionConfirmation\""u8) || type.SequenceEqual("\"UnsubscribeConfirmation\""u8))
            {
                return WrapperShape.SnsControl;
            }
        }

        if (members.Detail.IsPresent && members.DetailType.IsPresent && members.Source.IsPresent && members.Time.IsPresent)
        {
            return WrapperShape.EventBridgeEvent;
        }

        return WrapperShape.Raw;
    }

    /// <summary>The state of a reader in the wrapper object that has just read a member's string value, from the state it had after the member's name.</summary>
    private static JsonReaderState AfterAStringValue(JsonReaderState afterName)
    {
        var value = new Utf8JsonReader("\"\""u8, isFinalBlock: false, afterName);
        value.Read();
        return value.CurrentState;
    }

    /// <summary>Tells whether the member name the reader is on is one a CloudEvents envelope has and no wrapper has.</summary>
    private static bool IsCloudEventsMember(ref Utf8JsonReader reader)
        => reader.ValueTextEquals(CloudEventAttributeNames.IdUtf8) || reader.ValueTextEquals(CloudEventAttributeNames.SpecVersionUtf8)
        || reader.ValueTextEquals(CloudEventAttributeNames.TypeUtf8) || reader.ValueTextEquals(CloudEventAttributeNames.DataContentTypeUtf8)
        || reader.ValueTextEquals(CloudEventAttributeNames.DataUtf8) || reader.ValueTextEquals(CloudEventAttributeNames.DataBase64Utf8);
}
