using System;
using System.Diagnostics.CodeAnalysis;
using System.Runtime.CompilerServices;
using System.Text.Json;

namespace Missive.Transport;

/// <summary>
/// The top-level members that tell a wrapper's shape and carry its metadata: those of an SNS
/// notification (https://docs.aws.amazon.com/sns/latest/dg/sns-message-and-json-formats.html) and of
/// an EventBridge event (https://docs.aws.amazon.com/eventbridge/latest/ref/overiew-event-structure.html).
/// </summary>
internal struct WrapperMembers
{
    // SNS notification
    public WrapperMember Type, MessageId, TopicArn, Message, Subject, Timestamp, UnsubscribeUrl, MessageAttributes;

    // EventBridge event
    public WrapperMember Detail, DetailType, Source, Time, Id, Account, Region, Resources;

    /// <summary>The longest member name above, escaped as far as JSON allows (six bytes for each of its 17 characters).</summary>
    private const int LongestEscapedName = 6 * 17;

    /// <summary>
    /// Gets the slot of the member the reader is on, or a null reference for any other member. A name written with
    /// escapes is the same name (RFC 8259, section 8.3): it is unescaped before it is looked up.
    /// </summary>
    [UnscopedRef]
    public ref WrapperMember Slot(ref Utf8JsonReader reader)
    {
        if (!reader.HasValueSequence && !reader.ValueIsEscaped)
        {
            return ref Slot(reader.ValueSpan);
        }

        return ref SlotOfEscaped(ref reader);
    }

    /// <summary>Gets the slot of the member with the plain (unescaped) name <paramref name="name"/>, or a null reference for any other member.</summary>
    [UnscopedRef]
    public ref WrapperMember Slot(scoped ReadOnlySpan<byte> name)
    {
        switch (name.Length)
        {
            case 2 when name.SequenceEqual("id"u8): return ref Id;
            case 4 when name.SequenceEqual("Type"u8): return ref Type;
            case 4 when name.SequenceEqual("time"u8): return ref Time;
            case 6 when name.SequenceEqual("detail"u8): return ref Detail;
            case 6 when name.SequenceEqual("source"u8): return ref Source;
            case 6 when name.SequenceEqual("region"u8): return ref Region;
            case 7 when name.SequenceEqual("Message"u8): return ref Message;
            case 7 when name.SequenceEqual("Subject"u8): return ref Subject;
            case 7 when name.SequenceEqual("account"u8): return ref Account;
            case 8 when name.SequenceEqual("TopicArn"u8): return ref TopicArn;
            case 9 when name.SequenceEqual("MessageId"u8): return ref MessageId;
            case 9 when name.SequenceEqual("Timestamp"u8): return ref Timestamp;
            case 9 when name.SequenceEqual("resources"u8): return ref Resources;
            case 11 when name.SequenceEqual("detail-type"u8): return ref DetailType;
            case 14 when name.SequenceEqual("UnsubscribeURL"u8): return ref UnsubscribeUrl;
            case 17 when name.SequenceEqual("MessageAttributes"u8): return ref MessageAttributes;
            default: return ref Unsafe.NullRef<WrapperMember>();
        }
    }

    [UnscopedRef]
    [MethodImpl(MethodImplOptions.NoInlining)]
    private ref WrapperMember SlotOfEscaped(ref Utf8JsonReader reader)
    {
        long length = reader.HasValueSequence ? reader.ValueSequence.Length : reader.ValueSpan.Length;
        if (length > LongestEscapedName)
        {
            return ref Unsafe.NullRef<WrapperMember>(); // longer than any member name here, however it is escaped
        }

        Span<byte> name = stackalloc byte[LongestEscapedName];
        return ref Slot(name[..reader.CopyString(name)]);
    }

    /// <summary>Tells whether <paramref name="slot"/> is the <c>Message</c> member's.</summary>
    [UnscopedRef]
    public bool IsMessage(ref WrapperMember slot) => Unsafe.AreSame(ref slot, ref Message);

    /// <summary>Tells whether <paramref name="slot"/> is the <c>detail</c> member's.</summary>
    [UnscopedRef]
    public bool IsDetail(ref WrapperMember slot) => Unsafe.AreSame(ref slot, ref Detail);
}
