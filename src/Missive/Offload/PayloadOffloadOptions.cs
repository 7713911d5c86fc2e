using System;
using System.Collections.Generic;

namespace Missive.Offload;

/// <summary>How messages larger than their service takes are stored aside, and how pointers to them are read.</summary>
public sealed class PayloadOffloadOptions
{
    /// <summary>
    /// Gets or sets the size (body and attributes, UTF-8 bytes) above which a message's body is stored and replaced by a
    /// pointer, or <c>null</c> for the destination's limit: 1 MiB for SQS, 256 KiB for SNS. AWS's extended clients use
    /// 262,144.
    /// </summary>
    public int? Threshold { get; set; }

    /// <summary>Gets or sets whether every message's body is stored, whatever its size. Default <c>false</c>.</summary>
    public bool OffloadAll { get; set; }

    /// <summary>
    /// Gets or sets the name of the <c>Number</c> attribute that marks a pointer with the original body's size:
    /// <c>ExtendedPayloadSize</c> (default; Python's and the SNS client's, Java's with its legacy name off) or
    /// <c>SQSLargePayloadSize</c> (Java's default up to 2.1.2). Choose what the consumers expect; reading takes either.
    /// </summary>
    public string SizeAttributeName { get; set; } = PayloadPointer.SizeAttribute;

    /// <summary>
    /// Gets or sets the class name written in pointers: <c>software.amazon.payloadoffloading.PayloadS3Pointer</c>
    /// (default, Java's from 1.1.0) or <c>com.amazon.sqs.javamessaging.MessageS3Pointer</c> (Java 1.0.x). Reading takes either.
    /// </summary>
    public string PointerClassName { get; set; } = PayloadPointer.ClassName;

    /// <summary>
    /// Gets or sets whether a JSON envelope keeps its place in the message and only its data is stored, named by the
    /// CloudEvents <c>dataref</c> extension (<c>s3://bucket/key</c>), for consumers that understand CloudEvents rather
    /// than AWS's extended clients. Default <c>false</c>: the extended clients' pointer. A protobuf envelope always
    /// travels as the pointer. Reading takes both, whatever this says.
    /// </summary>
    public bool UseDataRef { get; set; }

    /// <summary>Gets or sets the largest stored payload a reader fetches (a longer one is refused before it is read). Default 64 MiB.</summary>
    public long MaxPayloadSize { get; set; } = 64L * 1024 * 1024;

    /// <summary>
    /// Gets the buckets, besides the store's own, that pointers may name; a pointer to any other is refused without a
    /// fetch, so that a message cannot make the process read another bucket.
    /// </summary>
    public ICollection<string> ReadableBuckets { get; } = new HashSet<string>(StringComparer.Ordinal);

    /// <summary>
    /// Gets or sets the bucket NServiceBus endpoints put large message bodies in (their SQS transport's
    /// <c>S3BucketForLargeMessages</c>), or <c>null</c> (default). With it, an NServiceBus message whose
    /// <c>S3BodyKey</c> names an object gets its body from that bucket before it is read, through the payload store
    /// (<c>UseS3PayloadStore</c>); without it, such a message is unreadable
    /// (<see cref="InvalidEnvelopeReason.PayloadUnavailable"/>). Missive never deletes these objects.
    /// </summary>
    public string? NServiceBusBucket { get; set; }

    /// <summary>
    /// Gets or sets whether a stored payload is deleted once its message is deleted (after the delete succeeds, so a
    /// failed delete never leaves a message pointing nowhere), once SQS's answer is back and under a deadline of its own
    /// (a payload left behind is logged, event 2200). Handlers see the receipt handle SQS issued. Default <c>false</c>:
    /// keep the objects and let a bucket lifecycle rule expire them. Unsafe with fan-out: when one topic feeds several queues, the first consumer's delete
    /// takes the payload from the others.
    /// </summary>
    public bool DeleteAfterHandling { get; set; }

    /// <summary>
    /// Gets or sets whether a payload store only this process can read (<see cref="InMemoryPayloadStore"/>, the default
    /// store) may serve a transport that delivers to other processes. Default <c>false</c>: the host does not start, since
    /// every other consumer (and this one after a restart) would find nothing behind the pointer. Set it for a test whose
    /// one process is its messages' only consumer.
    /// </summary>
    public bool AllowInProcessStore { get; set; }

    /// <summary>The problems of these options, for the startup check.</summary>
    internal IEnumerable<string> Problems()
    {
        if (SizeAttributeName is not (PayloadPointer.SizeAttribute or PayloadPointer.LegacySizeAttribute))
        {
            yield return $"PayloadOffloadOptions.SizeAttributeName is '{SizeAttributeName}': use \"{PayloadPointer.SizeAttribute}\" or \"{PayloadPointer.LegacySizeAttribute}\", the names AWS's extended clients read.";
        }

        if (PointerClassName is not (PayloadPointer.ClassName or PayloadPointer.LegacyClassName))
        {
            yield return $"PayloadOffloadOptions.PointerClassName is '{PointerClassName}': use \"{PayloadPointer.ClassName}\" or \"{PayloadPointer.LegacyClassName}\", the names AWS's extended clients read.";
        }

        if (Threshold is < 1)
        {
            yield return $"PayloadOffloadOptions.Threshold is {Threshold}: give a size in bytes of at least 1, or null for the destination's limit.";
        }

        if (NServiceBusBucket is { } bucket && string.IsNullOrWhiteSpace(bucket))
        {
            yield return "PayloadOffloadOptions.NServiceBusBucket is empty: give the bucket the NServiceBus endpoints' S3BucketForLargeMessages names, or leave it null.";
        }

        if (MaxPayloadSize < 1)
        {
            yield return $"PayloadOffloadOptions.MaxPayloadSize is {MaxPayloadSize}: give a size in bytes of at least 1.";
        }
    }
}
