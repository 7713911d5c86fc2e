using System;
using System.Buffers;
using System.Collections.Generic;
using System.Text.Json;
using System.Text.Unicode;
using System.Threading;
using System.Threading.Tasks;
using Missive.Transport;

namespace Missive.Offload;

/// <summary>Turns a received message whose body points to a stored payload into the message as it was sent.</summary>
/// <remarks>
/// <list type="bullet">
/// <item>A pointer is the body of AWS's extended clients (either class name) with a <c>Number</c> attribute under either
/// size name: in the SQS message's attributes (SQS, or SNS with raw delivery), or in a wrapped SNS notification's
/// <c>Message</c> and <c>MessageAttributes</c>. A JSON envelope without data whose CloudEvents <c>dataref</c> is an
/// <c>s3://</c> reference gets its data back. Anything else comes back as it is.</item>
/// <item>The resolved message has the stored body and no size attribute; a wrapped notification keeps its other
/// members, with the stored body as its <c>Message</c>. Its receipt handle is the one SQS issued, without the payload
/// location an offloading receive puts before it (<see cref="PayloadLocation.SqsReceiptHandle"/>).</item>
/// <item>Only the store's bucket and <see cref="PayloadOffloadOptions.ReadableBuckets"/> are read, never more than
/// <see cref="PayloadOffloadOptions.MaxPayloadSize"/>; a pointer that cannot be resolved is an
/// <see cref="InvalidEnvelopeException"/> (<see cref="InvalidEnvelopeReason.PayloadUnavailable"/>), which the pump
/// treats as any unreadable message: logged, retried, and dead-lettered after the queue's max receive count.</item>
/// </list>
/// The bus resolves before it reads (the pump and the Lambda processor); call it yourself before an
/// <see cref="InboundMessageReader"/> of your own.
/// </remarks>
public sealed class PayloadResolver
{
    private static ReadOnlySpan<byte> SizeName => "ExtendedPayloadSize"u8;

    private static ReadOnlySpan<byte> LegacySizeName => "SQSLargePayloadSize"u8;

    private readonly IPayloadStore _store;
    private readonly PayloadOffloadOptions _options;

    /// <summary>Creates a resolver that fetches from <paramref name="store"/>.</summary>
    /// <param name="store">The store. Must not be null.</param>
    /// <param name="options">The options (readable buckets, the size limit). Must not be null.</param>
    public PayloadResolver(IPayloadStore store, PayloadOffloadOptions options)
    {
        ArgumentNullException.ThrowIfNull(store);
        ArgumentNullException.ThrowIfNull(options);
        _store = store;
        _options = options;
    }

    /// <summary>Gets the message as it was sent: <paramref name="message"/> itself when its body points nowhere.</summary>
    /// <param name="message">The received message. Must not be null.</param>
    /// <param name="cancellationToken">Cancels the fetch.</param>
    /// <returns>The resolved message.</returns>
    /// <exception cref="InvalidEnvelopeException">The body is a pointer that cannot be resolved
    /// (<see cref="InvalidEnvelopeReason.PayloadUnavailable"/>): the store failed or refused, whatever it threw (a
    /// credential provider's exception among it), or the stored data does not fit where it goes (a <c>dataref</c>
    /// envelope's JSON data that is not JSON, text that is not UTF-8).</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled.</exception>
    public async Task<SqsMessage> ResolveAsync(SqsMessage message, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(message);
        try
        {
            return await ResolveCoreAsync(message, cancellationToken).ConfigureAwait(false);
        }
        catch (Exception e) when (e is not (InvalidEnvelopeException or OperationCanceledException) && !ContentSafety.IsFatal(e))
        {
            throw Unavailable($"The stored payload does not fit back into its message ({e.GetType().Name}): JSON data that is not JSON, or text that is not UTF-8.", null); // what was thrown may quote the data
        }
        catch (OperationCanceledException e) when (!cancellationToken.IsCancellationRequested)
        {
            throw Unavailable("The payload the message points to could not be resolved (the store's call was cancelled by something other than the caller).", e);
        }
    }

    private async Task<SqsMessage> ResolveCoreAsync(SqsMessage message, CancellationToken cancellationToken)
    {
        ReadOnlyMemory<byte> utf8 = message.Utf8Body; // a body given as text is encoded on each ask: once here
        if (PayloadPointer.SizeAttributeOf(message.MessageAttributes) is { } sizeAttribute)
        {
            if (!PayloadPointer.TryRead(utf8.Span, out PayloadLocation location))
            {
                return message; // the attribute alone is not a pointer
            }

            ReadOnlyMemory<byte> payload = await FetchAsync(location, cancellationToken).ConfigureAwait(false);
            var attributes = new Dictionary<string, MessageAttributeValue>(message.MessageAttributes, StringComparer.Ordinal);
            attributes.Remove(sizeAttribute);
            return With(message, payload, attributes);
        }

        if (DataRef.TryRead(utf8, out PayloadLocation reference))
        {
            ReadOnlyMemory<byte> data = await FetchAsync(reference, cancellationToken).ConfigureAwait(false);
            return With(message, DataRef.WithData(utf8, data), message.MessageAttributes);
        }

        ReadOnlySpan<byte> body = utf8.Span;
        if (body.IndexOfAnyExcept(" \t\r\n"u8) is >= 0 and var first && body[first] == (byte)'{'
            && (body.IndexOf(SizeName) >= 0 || body.IndexOf(LegacySizeName) >= 0 || body.IndexOf("dataref"u8) >= 0))
        {
            return await ResolveNotificationAsync(message, utf8, cancellationToken).ConfigureAwait(false);
        }

        if (_options.NServiceBusBucket is { } bucket && MayHaveNServiceBusKey(body, message.MessageAttributes))
        {
            return await ResolveNServiceBusAsync(message, utf8, bucket, cancellationToken).ConfigureAwait(false);
        }

        return message;
    }

    /// <summary>Whether the message may be NServiceBus's with its body in S3: a quick look before it is read whole.</summary>
    private static bool MayHaveNServiceBusKey(ReadOnlySpan<byte> body, IReadOnlyDictionary<string, MessageAttributeValue> attributes)
        => attributes.ContainsKey(NServiceBusMessage.S3BodyKeyName)
        || (attributes.TryGetValue(NServiceBusMessage.HeadersAttribute, out MessageAttributeValue? headers) && headers.StringValue?.Contains(NServiceBusMessage.S3BodyKeyName, StringComparison.Ordinal) == true)
        || body.IndexOf("\"S3BodyKey\""u8) >= 0;

    /// <summary>
    /// An NServiceBus message whose endpoint put its body in S3 (<c>S3BodyKey</c>, in any of its shapes): the body is
    /// fetched from <paramref name="bucket"/>, and the message rebuilt as the endpoint would have sent it without S3 (the
    /// wrapper's <c>Body</c> in base64; an unwrapped message's body itself), without the key.
    /// </summary>
    private async Task<SqsMessage> ResolveNServiceBusAsync(SqsMessage message, ReadOnlyMemory<byte> utf8, string bucket, CancellationToken cancellationToken)
    {
        NServiceBusMessage? sent;
        try
        {
            sent = NServiceBusMessage.Recognise(utf8.Span, message.MessageAttributes, default);
        }
        catch (InvalidEnvelopeException)
        {
            return message; // a headers attribute that is not JSON: the reader says so
        }

        if (sent?.S3BodyKey is not { Length: > 0 } key)
        {
            return message;
        }

        ReadOnlyMemory<byte> body = await FetchAsync(new PayloadLocation(bucket, key), cancellationToken).ConfigureAwait(false);
        var attributes = new Dictionary<string, MessageAttributeValue>(message.MessageAttributes, StringComparer.Ordinal);
        attributes.Remove(NServiceBusMessage.S3BodyKeyName);
        if (sent.WrappedBodyStart >= 0)
        {
            return With(message, NServiceBusMessage.Wrapper(body.Span, sent.Headers), attributes);
        }

        if (attributes.ContainsKey(NServiceBusMessage.HeadersAttribute))
        {
            var headers = new Dictionary<string, string>(sent.Headers, StringComparer.Ordinal);
            headers.Remove(NServiceBusMessage.S3BodyKeyName);
            attributes[NServiceBusMessage.HeadersAttribute] = MessageAttributeValue.FromString(NServiceBusMessage.HeadersJson(headers));
        }

        return With(message, body, attributes);
    }

    /// <summary>
    /// A wrapped SNS notification whose <c>Message</c> is a pointer (marked in the notification's own
    /// <c>MessageAttributes</c>) or a <c>dataref</c> envelope: the notification is rebuilt around what was sent.
    /// </summary>
    private async Task<SqsMessage> ResolveNotificationAsync(SqsMessage message, ReadOnlyMemory<byte> utf8, CancellationToken cancellationToken)
    {
        using JsonDocument document = Parse(utf8); // read once: probed, then rebuilt around the payload
        JsonElement root = document.RootElement;
        if (root.ValueKind != JsonValueKind.Object || !root.TryGetProperty("Type", out JsonElement type) || type.ValueKind != JsonValueKind.String || !type.ValueEquals("Notification")
            || !root.TryGetProperty("Message", out JsonElement inner) || inner.ValueKind != JsonValueKind.String)
        {
            return message;
        }

        ReadOnlyMemory<byte> payload;
        byte[] innerBytes = System.Text.Encoding.UTF8.GetBytes(inner.GetString()!);
        bool marked = root.TryGetProperty("MessageAttributes", out JsonElement attributes) && attributes.ValueKind == JsonValueKind.Object
            && (attributes.TryGetProperty(SizeName, out _) || attributes.TryGetProperty(LegacySizeName, out _));
        if (marked && PayloadPointer.TryRead(innerBytes, out PayloadLocation location))
        {
            payload = await FetchAsync(location, cancellationToken).ConfigureAwait(false);
            if (!Utf8.IsValid(payload.Span))
            {
                throw Unavailable($"The payload at {location} is not UTF-8 text, which a notification's Message must be.", null);
            }
        }
        else if (DataRef.TryRead(innerBytes, out PayloadLocation reference))
        {
            payload = DataRef.WithData(innerBytes, await FetchAsync(reference, cancellationToken).ConfigureAwait(false));
        }
        else
        {
            return message;
        }

        var output = new ArrayBufferWriter<byte>(payload.Length + utf8.Length + 256);
        using (var writer = new Utf8JsonWriter(output, DataRef.MinimalEscaping))
        {
            writer.WriteStartObject();
            foreach (JsonProperty member in document.RootElement.EnumerateObject())
            {
                if (member.NameEquals("Message"))
                {
                    writer.WriteString("Message", payload.Span);
                }
                else if (member.NameEquals("MessageAttributes"))
                {
                    writer.WriteStartObject("MessageAttributes");
                    foreach (JsonProperty attribute in member.Value.EnumerateObject())
                    {
                        if (!attribute.NameEquals(SizeName) && !attribute.NameEquals(LegacySizeName))
                        {
                            attribute.WriteTo(writer);
                        }
                    }

                    writer.WriteEndObject();
                }
                else
                {
                    member.WriteTo(writer);
                }
            }

            writer.WriteEndObject();
        }

        return With(message, output.WrittenMemory, message.MessageAttributes);
    }

    private async Task<ReadOnlyMemory<byte>> FetchAsync(PayloadLocation location, CancellationToken cancellationToken)
    {
        if (!string.Equals(location.Bucket, _store.Bucket, StringComparison.Ordinal) && !_options.ReadableBuckets.Contains(location.Bucket) && !string.Equals(location.Bucket, _options.NServiceBusBucket, StringComparison.Ordinal))
        {
            throw Unavailable($"The message points to a payload in the bucket '{location.Bucket}', which is not the store's ('{_store.Bucket}') nor one of PayloadOffloadOptions.ReadableBuckets: it was not fetched. Add the bucket there if its producer is trusted.", null);
        }

        if (!location.HasSafeKey)
        {
            throw Unavailable($"The message points to a payload whose key is not one a store reads (empty, over 1,024 bytes, a control character, or a '.' or '..' path segment): it was not fetched.", null);
        }

        try
        {
            return await _store.GetAsync(location, _options.MaxPayloadSize, cancellationToken).ConfigureAwait(false);
        }
        catch (MessageTransportException e)
        {
            throw Unavailable($"The payload at {location} could not be fetched ({e.ErrorCode ?? "error"}): {e.Message}", e);
        }
        catch (Exception e) when (e is not OperationCanceledException && !ContentSafety.IsFatal(e))
        {
            // A store's own code failed (a credential provider, a client's configuration): the message is unreadable this time, not the poller's failure.
            throw Unavailable($"The payload at {location} could not be fetched: the store threw {e.GetType().FullName}.", e);
        }
    }

    private static JsonDocument Parse(ReadOnlyMemory<byte> body)
    {
        try
        {
            return JsonDocument.Parse(body);
        }
        catch (JsonException)
        {
            return JsonDocument.Parse("null"u8.ToArray()); // not JSON: no pointer, the reader says what it is
        }
    }

    private static SqsMessage With(SqsMessage message, ReadOnlyMemory<byte> body, IReadOnlyDictionary<string, MessageAttributeValue> attributes)
        => new()
        {
            Utf8Body = body,
            MessageId = message.MessageId,
            ReceiptHandle = PayloadLocation.SqsReceiptHandle(message.ReceiptHandle), // the handler sees the handle SQS issued
            SystemAttributes = message.SystemAttributes,
            MessageAttributes = attributes,
        };

    private static InvalidEnvelopeException Unavailable(string text, Exception? inner)
        => new(InvalidEnvelopeReason.PayloadUnavailable, text, -1, null, inner);
}
