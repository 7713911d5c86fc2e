using System;
using System.Collections.Generic;
using System.Diagnostics.CodeAnalysis;
using System.Globalization;

namespace Missive;

/// <summary>What SQS said of a received message.</summary>
public sealed class SqsMetadata
{
    /// <summary>The names of the system attributes read here, as <c>Transport.SqsSystemAttributes</c> gives them.</summary>
    internal const string ApproximateReceiveCountName = "ApproximateReceiveCount", MessageGroupIdName = "MessageGroupId", MessageDeduplicationIdName = "MessageDeduplicationId",
        SentTimestampName = "SentTimestamp", FirstReceiveTimestampName = "ApproximateFirstReceiveTimestamp", SenderIdName = "SenderId";

    /// <summary>Marks a string property not yet read from <see cref="_systemAttributes"/> (compared by reference).</summary>
    private static readonly string NotRead = new('\0', 1);

    /// <summary>
    /// The received message's system attributes, read when a property is first asked for, or <c>null</c> when the
    /// properties were set. Most handlers never look at them, and each costs a dictionary lookup.
    /// </summary>
    private readonly IReadOnlyDictionary<string, string>? _systemAttributes;
    private int _receiveCount;
    private string? _messageGroupId;
    private string? _messageDeduplicationId;
    private Given? _given; // what an object initializer set of the properties below, which are otherwise read on each get

    /// <summary>Creates metadata whose properties are set by an object initializer.</summary>
    public SqsMetadata()
    {
    }

    /// <summary>Creates the metadata of a received message; the values in <paramref name="systemAttributes"/> are read when first asked for.</summary>
    [SetsRequiredMembers]
    internal SqsMetadata(string messageId, string receiptHandle, IReadOnlyDictionary<string, MessageAttributeValue> messageAttributes, IReadOnlyDictionary<string, string> systemAttributes)
    {
        MessageId = messageId;
        ReceiptHandle = receiptHandle;
        MessageAttributes = messageAttributes;
        _systemAttributes = systemAttributes;
        _receiveCount = -1;
        _messageGroupId = NotRead;
        _messageDeduplicationId = NotRead;
    }

    /// <summary>Gets the SQS message id.</summary>
    public required string MessageId { get; init; }

    /// <summary>Gets the receipt handle of this receipt.</summary>
    public required string ReceiptHandle { get; init; }

    /// <summary>Gets how many times the message has been received, this receipt included (0 when unknown).</summary>
    public int ApproximateReceiveCount
    {
        get => _receiveCount >= 0 || _systemAttributes is null ? _receiveCount : _receiveCount = ReceiveCountOf(_systemAttributes);
        init => _receiveCount = value;
    }

    /// <summary>Gets the FIFO message group id, or <c>null</c>.</summary>
    public string? MessageGroupId
    {
        get => ReferenceEquals(_messageGroupId, NotRead) ? _messageGroupId = SystemAttribute(MessageGroupIdName) : _messageGroupId;
        init => _messageGroupId = value;
    }

    /// <summary>Gets the FIFO deduplication id, or <c>null</c>.</summary>
    public string? MessageDeduplicationId
    {
        get => ReferenceEquals(_messageDeduplicationId, NotRead) ? _messageDeduplicationId = SystemAttribute(MessageDeduplicationIdName) : _messageDeduplicationId;
        init => _messageDeduplicationId = value;
    }

    /// <summary>Gets when SQS took the message (its <c>SentTimestamp</c>), or <c>null</c> when not known.</summary>
    public DateTimeOffset? SentTimestamp
    {
        get => _systemAttributes is null ? _given?.SentTimestamp : TimestampOf(_systemAttributes, SentTimestampName);
        init => (_given ??= new()).SentTimestamp = value;
    }

    /// <summary>Gets when the message was first received (its <c>ApproximateFirstReceiveTimestamp</c>), or <c>null</c> when not known.</summary>
    public DateTimeOffset? ApproximateFirstReceiveTimestamp
    {
        get => _systemAttributes is null ? _given?.FirstReceiveTimestamp : TimestampOf(_systemAttributes, FirstReceiveTimestampName);
        init => (_given ??= new()).FirstReceiveTimestamp = value;
    }

    /// <summary>Gets the IAM principal (or account) that sent the message (its <c>SenderId</c>), or <c>null</c> when not known.</summary>
    public string? SenderId
    {
        get => _systemAttributes is null ? _given?.SenderId : SystemAttribute(SenderIdName);
        init => (_given ??= new()).SenderId = value;
    }

    /// <summary>Gets the SQS message attributes.</summary>
    public required IReadOnlyDictionary<string, MessageAttributeValue> MessageAttributes { get; init; }

    /// <summary>The <c>ApproximateReceiveCount</c> system attribute, or 0 when absent or not a number.</summary>
    internal static int ReceiveCountOf(IReadOnlyDictionary<string, string> systemAttributes)
        => systemAttributes.TryGetValue(ApproximateReceiveCountName, out string? text)
            && int.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out int count) ? count : 0;

    private string? SystemAttribute(string name) => _systemAttributes!.TryGetValue(name, out string? value) ? value : null;

    /// <summary>The properties few handlers read, when set by an object initializer (kept apart: each envelope carries one <see cref="SqsMetadata"/>).</summary>
    private sealed class Given
    {
        public DateTimeOffset? SentTimestamp, FirstReceiveTimestamp;
        public string? SenderId;
    }

    /// <summary>The timestamp system attribute <paramref name="name"/> (Unix epoch milliseconds), or <c>null</c> when absent or not a number.</summary>
    internal static DateTimeOffset? TimestampOf(IReadOnlyDictionary<string, string> systemAttributes, string name)
        => systemAttributes.TryGetValue(name, out string? text) && long.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out long ms)
            ? DateTimeOffset.FromUnixTimeMilliseconds(ms) : null;
}
