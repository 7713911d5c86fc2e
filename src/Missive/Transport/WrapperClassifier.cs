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
/// <para>A string <c>Message</c> member is unescaped into a rented buffer while the reader is on it, so
/// an SNS notification's envelope is validated and copied once.</para>
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
                reader.Read();
                long start = reader.TokenStartIndex;
                JsonTokenType type = reader.TokenType;
                if (type == JsonTokenType.String && !Unsafe.IsNullRef(ref slot) && members.IsMessage(ref slot))
                {
                    message.Dispose(); // a repeated member: the last one counts
                    message = WrapperJson.Unescape(ref reader, settings, out messageLength);
                }

                reader.Skip();
                if (!Unsafe.IsNullRef(ref slot))
                {
                    slot = new WrapperMember(type, start, reader.BytesConsumed - start);
                }
            }
        }
        catch (JsonException e) when (JsonDepthLimit.WasExceeded(ref reader, settings.WrapperReaderOptions.MaxDepth, document))
        {
            // Too deep inside the wrapper's one level: the envelope is over the limit, whatever wraps it.
            throw ThrowHelper.Create(InvalidEnvelopeReason.LimitExceeded, $"The envelope is nested deeper than the limit of {settings.MaxJsonDepth} levels (SerializationOptions.MaxJsonDepth)", reader.TokenStartIndex, inner: settings.LogMessageContent ? e : null);
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

    /// <summary>Tells whether the member name the reader is on is one a CloudEvents envelope has and no wrapper has.</summary>
    private static bool IsCloudEventsMember(ref Utf8JsonReader reader)
        => reader.ValueTextEquals(CloudEventAttributeNames.IdUtf8) || reader.ValueTextEquals(CloudEventAttributeNames.SpecVersionUtf8)
        || reader.ValueTextEquals(CloudEventAttributeNames.TypeUtf8) || reader.ValueTextEquals(CloudEventAttributeNames.DataContentTypeUtf8)
        || reader.ValueTextEquals(CloudEventAttributeNames.DataUtf8) || reader.ValueTextEquals(CloudEventAttributeNames.DataBase64Utf8);
}
