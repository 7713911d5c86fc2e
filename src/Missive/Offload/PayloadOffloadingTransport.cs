using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Globalization;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.Logging;
using Missive.Transport;

namespace Missive.Offload;

/// <summary>Stores the bodies of large sends and publishes aside and sends pointers in their place; the bus's transport when <c>UsePayloadOffload</c> is on.</summary>
/// <remarks>
/// <list type="bullet">
/// <item>A send or publish over the threshold (or every one, with <see cref="PayloadOffloadOptions.OffloadAll"/>) is
/// stored first, then sent as the extended clients' pointer with the size attribute; a body that is already a pointer
/// (a dead-letter move) goes as it is.</item>
/// <item>A send that fails after its payload was stored says where the payload is, so nothing is lost unnoticed.</item>
/// <item>With <see cref="PayloadOffloadOptions.DeleteAfterHandling"/>, a received pointer's receipt handle carries its
/// location (as Java's client does), stripped before the service sees it, and the payload is deleted after its
/// message's delete succeeds (after the delete call returns, under a deadline of its own), unless this process sent the
/// same pointer on (a dead-letter move).</item>
/// </list>
/// </remarks>
internal sealed partial class PayloadOffloadingTransport : IMessageTransport
{
    private readonly IMessageTransport _inner;
    private readonly IPayloadStore _store;
    private readonly PayloadOffloadOptions _options;
    private readonly ILogger _logger;
    private readonly TimeProvider _timeProvider;
    private readonly ConcurrentDictionary<PayloadLocation, byte> _sentOn = new(); // with DeleteAfterHandling only: payloads still needed elsewhere
    private int _payloadDeletesUnderWay;

    public PayloadOffloadingTransport(IMessageTransport inner, IPayloadStore store, PayloadOffloadOptions options, ILogger logger, TimeProvider? timeProvider = null)
    {
        _inner = inner;
        _store = store;
        _options = options;
        _logger = logger;
        _timeProvider = timeProvider ?? TimeProvider.System;
    }

    /// <summary>How long the payload deletes that follow one delete call may take together, apart from that call's own deadline.</summary>
    internal static TimeSpan PayloadDeleteDeadline { get; } = TimeSpan.FromSeconds(30);

    public string Description => _inner.Description + $", payloads over the threshold stored in {_store.Description}";

    public bool IsDoneWithBodiesWhenCallsComplete => _inner.IsDoneWithBodiesWhenCallsComplete;

    public bool IsReceiveCancellationSafe => _inner.IsReceiveCancellationSafe; // offloading adds nothing a cancelled receive could lose

    public bool DeliversToOtherProcesses => _inner.DeliversToOtherProcesses;

    public async Task<string> SendAsync(SqsSendRequest request, CancellationToken cancellationToken = default)
    {
        (SqsSendRequest sent, PayloadLocation? stored) = await OffloadAsync(request, cancellationToken).ConfigureAwait(false);
        try
        {
            return await _inner.SendAsync(sent, cancellationToken).ConfigureAwait(false);
        }
        catch (MessageTransportException e) when (stored is { } location)
        {
            throw StoredButNotSent(e, location);
        }
    }

    public async Task<string> PublishAsync(SnsPublishRequest request, CancellationToken cancellationToken = default)
    {
        (SnsPublishRequest sent, PayloadLocation? stored) = await OffloadAsync(request, cancellationToken).ConfigureAwait(false);
        try
        {
            return await _inner.PublishAsync(sent, cancellationToken).ConfigureAwait(false);
        }
        catch (MessageTransportException e) when (stored is { } location)
        {
            throw StoredButNotSent(e, location);
        }
    }

    public Task<string> PutEventAsync(EventBridgeEntry entry, CancellationToken cancellationToken = default) => _inner.PutEventAsync(entry, cancellationToken);

    public Task<IReadOnlyList<SqsMessage>> ReceiveAsync(string queueName, int maxMessages, TimeSpan waitTime, TimeSpan? visibilityTimeout = null, CancellationToken cancellationToken = default)
        => _options.DeleteAfterHandling ? MarkPointersAsync(_inner.ReceiveAsync(queueName, maxMessages, waitTime, visibilityTimeout, cancellationToken)) : _inner.ReceiveAsync(queueName, maxMessages, waitTime, visibilityTimeout, cancellationToken);

    public async Task<bool> DeleteAsync(string queueName, string receiptHandle, CancellationToken cancellationToken = default)
    {
        (string handle, PayloadLocation? stored) = Strip(receiptHandle);
        bool deleted = await _inner.DeleteAsync(queueName, handle, cancellationToken).ConfigureAwait(false);
        if (deleted && stored is { } location)
        {
            DeletePayloadsAfterwards([location]);
        }

        return deleted;
    }

    public Task<bool> ChangeVisibilityAsync(string queueName, string receiptHandle, TimeSpan visibilityTimeout, CancellationToken cancellationToken = default)
        => _inner.ChangeVisibilityAsync(queueName, Strip(receiptHandle).Handle, visibilityTimeout, cancellationToken);

    public Task<IReadOnlyList<BatchEntryResult>> SendBatchAsync(IReadOnlyList<SqsSendRequest> requests, CancellationToken cancellationToken = default)
        => OffloadBatchAsync(requests, OffloadAsync, _inner.SendBatchAsync, cancellationToken);

    public Task<IReadOnlyList<BatchEntryResult>> PublishBatchAsync(IReadOnlyList<SnsPublishRequest> requests, CancellationToken cancellationToken = default)
        => OffloadBatchAsync(requests, OffloadAsync, _inner.PublishBatchAsync, cancellationToken);

    public Task<IReadOnlyList<BatchEntryResult>> PutEventBatchAsync(IReadOnlyList<EventBridgeEntry> entries, CancellationToken cancellationToken = default)
        => _inner.PutEventBatchAsync(entries, cancellationToken);

    public async Task<IReadOnlyList<BatchEntryResult>> DeleteBatchAsync(string queueName, IReadOnlyList<string> receiptHandles, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(receiptHandles);
        var handles = new string[receiptHandles.Count];
        var stored = new PayloadLocation?[receiptHandles.Count];
        for (int i = 0; i < handles.Length; i++)
        {
            (handles[i], stored[i]) = Strip(receiptHandles[i]);
        }

        IReadOnlyList<BatchEntryResult> results = await _inner.DeleteBatchAsync(queueName, handles, cancellationToken).ConfigureAwait(false);
        List<PayloadLocation>? deleted = null;
        for (int i = 0; i < results.Count; i++)
        {
            if (results[i].Succeeded && stored[results[i].Index] is { } location)
            {
                (deleted ??= []).Add(location);
            }
        }

        if (deleted is not null)
        {
            DeletePayloadsAfterwards(deleted);
        }

        return results;
    }

    public Task<IReadOnlyList<BatchEntryResult>> ChangeVisibilityBatchAsync(string queueName, IReadOnlyList<string> receiptHandles, TimeSpan visibilityTimeout, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(receiptHandles);
        var handles = new string[receiptHandles.Count];
        for (int i = 0; i < handles.Length; i++)
        {
            handles[i] = Strip(receiptHandles[i]).Handle;
        }

        return _inner.ChangeVisibilityBatchAsync(queueName, handles, visibilityTimeout, cancellationToken);
    }

    private async Task<(SqsSendRequest Request, PayloadLocation? Stored)> OffloadAsync(SqsSendRequest request, CancellationToken cancellationToken)
    {
        if (IsReference(request.MessageAttributes, request.Utf8Length, request.Utf8Body, out PayloadLocation passing))
        {
            SentOn(passing); // a reference sent on (a dead-letter move) as it is
            return (request, null);
        }

        RefuseReservedAttribute(request.MessageAttributes, $"queue '{request.QueueName}'");
        long size = SqsRules.MessageSize(request.Utf8Length, request.MessageAttributes);
        if (!_options.OffloadAll && size <= (_options.Threshold ?? SqsRules.MaxMessageSize))
        {
            return (request, null);
        }

        ReadOnlyMemory<byte> body = request.Utf8Body;
        (PayloadLocation location, string sent, IReadOnlyDictionary<string, MessageAttributeValue> attributes) = await StoreAsync(body, request.MessageAttributes, $"queue '{request.QueueName}'", cancellationToken).ConfigureAwait(false);
        return (new SqsSendRequest
        {
            QueueName = request.QueueName,
            Body = sent,
            MessageAttributes = attributes,
            MessageGroupId = request.MessageGroupId,
            MessageDeduplicationId = request.MessageDeduplicationId,
            Delay = request.Delay,
        }, location);
    }

    private async Task<(SnsPublishRequest Request, PayloadLocation? Stored)> OffloadAsync(SnsPublishRequest request, CancellationToken cancellationToken)
    {
        byte[]? body = null; // a publish's text is encoded only when it may refer to a payload already, or goes to the store
        if (PayloadPointer.SizeAttributeOf(request.MessageAttributes) is not null || request.Message.Contains("\"dataref\"", StringComparison.Ordinal))
        {
            body = Encoding.UTF8.GetBytes(request.Message);
            if (IsReference(request.MessageAttributes, body.Length, body, out PayloadLocation passing))
            {
                SentOn(passing);
                return (request, null);
            }
        }

        RefuseReservedAttribute(request.MessageAttributes, $"topic '{request.TopicArn}'");
        long size = SqsRules.MessageSize(body?.Length ?? Encoding.UTF8.GetByteCount(request.Message), request.MessageAttributes);
        if (!_options.OffloadAll && size <= (_options.Threshold ?? SqsRules.DefaultSnsMaxMessageSize))
        {
            return (request, null);
        }

        body ??= Encoding.UTF8.GetBytes(request.Message);

        (PayloadLocation location, string sent, IReadOnlyDictionary<string, MessageAttributeValue> attributes) = await StoreAsync(body, request.MessageAttributes, $"topic '{request.TopicArn}'", cancellationToken).ConfigureAwait(false);
        return (new SnsPublishRequest
        {
            TopicArn = request.TopicArn,
            Message = sent,
            Subject = request.Subject,
            MessageAttributes = attributes,
            MessageGroupId = request.MessageGroupId,
            MessageDeduplicationId = request.MessageDeduplicationId,
        }, location);
    }

    /// <summary>
    /// Stores a body aside and gives what is sent in its place: the envelope without its data and with <c>dataref</c>
    /// (<see cref="PayloadOffloadOptions.UseDataRef"/>, JSON envelopes), or the extended clients' pointer with the size attribute.
    /// </summary>
    private async Task<(PayloadLocation Location, string Sent, IReadOnlyDictionary<string, MessageAttributeValue> Attributes)> StoreAsync(ReadOnlyMemory<byte> body, IReadOnlyDictionary<string, MessageAttributeValue> attributes, string destination, CancellationToken cancellationToken)
    {
        if (_options.UseDataRef && DataRef.TrySplit(body, out DataRefSplit? split))
        {
            using (split)
            {
                PayloadLocation stored = await _store.PutAsync(split.Data, cancellationToken).ConfigureAwait(false);
                return (stored, Encoding.UTF8.GetString(split.EnvelopeFor(stored)), attributes);
            }
        }

        if (attributes.Count >= SqsRules.MaxMessageAttributes)
        {
            throw new MessageTransportException($"A message to {destination} over the offload threshold has {attributes.Count} message attributes: its pointer needs one of the {SqsRules.MaxMessageAttributes} for {_options.SizeAttributeName}. Nothing was stored or sent.") { ErrorCode = "TooManyMessageAttributes", FailureKind = TransportFailureKind.Refused }; // this message's content: never the destination's health
        }

        PayloadLocation location = await _store.PutAsync(body, cancellationToken).ConfigureAwait(false);
        var withSize = new Dictionary<string, MessageAttributeValue>(attributes, StringComparer.Ordinal)
        {
            [_options.SizeAttributeName] = MessageAttributeValue.FromNumber(body.Length.ToString(CultureInfo.InvariantCulture)),
        };
        return (location, PayloadPointer.Write(location, _options.PointerClassName), withSize);
    }

    /// <summary>Gets how many payloads this process sent a pointer on to and has not deleted (tests: nothing grows without DeleteAfterHandling).</summary>
    internal int SentOnCount => _sentOn.Count;

    /// <summary>
    /// A payload whose pointer this process sends on as it is: with <see cref="PayloadOffloadOptions.DeleteAfterHandling"/>,
    /// deleting the message it came in must not delete the payload the new message needs. Without it, nothing is deleted,
    /// and nothing is kept.
    /// </summary>
    private void SentOn(PayloadLocation location)
    {
        if (_options.DeleteAfterHandling)
        {
            _sentOn.TryAdd(location, 0);
        }
    }

    /// <summary>
    /// A message of the application's own carrying the pointer's size attribute would be read as a pointer by AWS's
    /// extended clients (and by this one): refused, as the Java client refuses it.
    /// </summary>
    private static void RefuseReservedAttribute(IReadOnlyDictionary<string, MessageAttributeValue> attributes, string destination)
    {
        if (PayloadPointer.SizeAttributeOf(attributes) is { } name)
        {
            throw new ArgumentException($"The message to the {destination} carries the attribute '{name}', which the claim check reserves for a pointer to a stored payload (AWS's extended clients read such a message as one, and fail on it): it was not sent. Rename the attribute.");
        }
    }

    /// <summary>Whether a body already refers to a stored payload: the extended clients' pointer (with its size attribute) or a <c>dataref</c> envelope.</summary>
    private static bool IsReference(IReadOnlyDictionary<string, MessageAttributeValue> attributes, long length, ReadOnlyMemory<byte> body, out PayloadLocation location)
    {
        location = default;
        return (PayloadPointer.SizeAttributeOf(attributes) is not null && length < 8192 && PayloadPointer.TryRead(body.Span, out location))
            || DataRef.TryRead(body, out location);
    }

    private static async Task<IReadOnlyList<SqsMessage>> MarkPointersAsync(Task<IReadOnlyList<SqsMessage>> receiving)
    {
        IReadOnlyList<SqsMessage> messages = await receiving.ConfigureAwait(false);
        SqsMessage[]? marked = null;
        for (int i = 0; i < messages.Count; i++)
        {
            SqsMessage message = messages[i];
            if (IsReference(message.MessageAttributes, message.Utf8Length, message.Utf8Body, out PayloadLocation location))
            {
                marked ??= [.. messages];
                marked[i] = new SqsMessage
                {
                    Utf8Body = message.Utf8Body,
                    MessageId = message.MessageId,
                    ReceiptHandle = location.PutBefore(message.ReceiptHandle),
                    SystemAttributes = message.SystemAttributes,
                    MessageAttributes = message.MessageAttributes,
                };
            }
        }

        return marked ?? messages;
    }

    /// <summary>A receipt handle without the location Java's format puts before it, and that location.</summary>
    private static (string Handle, PayloadLocation? Stored) Strip(string receiptHandle)
        => PayloadLocation.TryTakeFrom(receiptHandle, out string handle, out PayloadLocation location) ? (handle, location) : (receiptHandle, null);

    /// <summary>Gets how many groups of payload deletes are under way (tests).</summary>
    internal int PayloadDeletesUnderWay => Volatile.Read(ref _payloadDeletesUnderWay);

    /// <summary>
    /// Deletes the payloads of deleted messages once their delete call has returned, under a deadline of their own: the
    /// call's results never wait for S3, and its deadline or cancellation never cuts a payload delete short. A payload
    /// left behind (a failure, the deadline) is logged and stays for the bucket's lifecycle rule.
    /// </summary>
    private void DeletePayloadsAfterwards(List<PayloadLocation> locations)
    {
        Interlocked.Increment(ref _payloadDeletesUnderWay);
        _ = Task.Run(async () =>
        {
            try
            {
                using var deadline = new CancellationTokenSource(PayloadDeleteDeadline, _timeProvider);
                foreach (PayloadLocation location in locations)
                {
                    await DeletePayloadAsync(location, deadline.Token).ConfigureAwait(false);
                }
            }
            finally
            {
                Interlocked.Decrement(ref _payloadDeletesUnderWay);
            }
        });
    }

    private async Task DeletePayloadAsync(PayloadLocation location, CancellationToken cancellationToken)
    {
        if (_sentOn.TryRemove(location, out _))
        {
            return; // this process sent the pointer on (a dead-letter move): the payload is still needed there
        }

        if (!string.Equals(location.Bucket, _store.Bucket, StringComparison.Ordinal) && !_options.ReadableBuckets.Contains(location.Bucket))
        {
            // The allow-list that guards fetches guards deletes too: a message cannot make the process delete elsewhere.
            OffloadLog.PayloadNotDeleted(_logger, location.ToString(), "BucketNotReadable");
            return;
        }

        try
        {
            await _store.DeleteAsync(location, cancellationToken).ConfigureAwait(false);
        }
        catch (MessageTransportException e)
        {
            OffloadLog.PayloadNotDeleted(_logger, location.ToString(), e.ErrorCode);
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
            OffloadLog.PayloadNotDeleted(_logger, location.ToString(), "DeadlineExceeded");
        }
        catch (Exception e) when (!ContentSafety.IsFatal(e))
        {
            OffloadLog.PayloadNotDeleted(_logger, location.ToString(), e.GetType().FullName);
        }
    }

    private static MessageTransportException StoredButNotSent(MessageTransportException e, PayloadLocation location)
        => new($"{e.Message} The payload had been stored at {location}: it stays there (delete it, or let the bucket's lifecycle rule expire it).", e)
        {
            ErrorCode = e.ErrorCode,
            RequestId = e.RequestId,
            StatusCode = e.StatusCode,
            FailureKind = e.FailureKind,
        };
}
