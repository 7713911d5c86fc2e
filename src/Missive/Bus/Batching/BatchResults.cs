using System;
using Missive.Transport;

namespace Missive.Bus;

/// <summary>The results the bus's batching gives entries on its own: withdrawn, left unanswered, past the deadline, or failed with their call.</summary>
internal static class BatchResults
{
    /// <summary>The error code of an entry withdrawn by its caller before its call began (it was not sent, and fails no ordering group).</summary>
    public const string WithdrawnCode = "Withdrawn";

    /// <summary>The error code of an entry not sent because an earlier entry of its ordering group failed.</summary>
    public const string GroupFailedEarlierCode = "FifoGroupFailedEarlier";

    /// <summary>The error code of an entry whose call did not answer within its deadline (it was abandoned, and may still land).</summary>
    public const string TimedOutCode = "CallTimedOut";

    /// <summary>The result of an entry its caller withdrew before its call began.</summary>
    public static BatchEntryResult Withdrawn(int index)
        => new(index, null, WithdrawnCode, "Withdrawn by its caller before its call began: not sent.", SenderFault: false) { Outcome = BatchEntryOutcome.NotSent };

    /// <summary>The result of an entry whose call was abandoned at its deadline.</summary>
    public static BatchEntryResult TimedOut(int index, TimeSpan deadline)
        => BatchEntryResult.Failure(index, new MessageTransportException($"The call carrying this entry did not answer within {deadline.TotalSeconds:0.###} s and was abandoned: the service may have taken it.") { ErrorCode = TimedOutCode, FailureKind = TransportFailureKind.Transient }, BatchEntryOutcome.Unknown);

    /// <summary>The result of an entry the transport's answer left out.</summary>
    public static BatchEntryResult NoAnswer(int index)
        => BatchEntryResult.Failure(index, new MessageTransportException("The transport's batch call gave no result for this entry: the service may have taken it.") { ErrorCode = "NoAnswer", FailureKind = TransportFailureKind.Transient }, BatchEntryOutcome.Unknown);

    /// <summary>The result of an entry whose call threw <paramref name="failure"/>.</summary>
    public static BatchEntryResult CallFailed(int index, Exception failure)
        => failure is MessageTransportException transport
            ? BatchEntryResult.Failure(index, transport)
            : BatchEntryResult.Failure(index, new MessageTransportException($"The call carrying this entry failed ({failure.GetType().Name}): the service may have taken it.", failure) { ErrorCode = "CallFailed", FailureKind = TransportFailureKind.Transient }, BatchEntryOutcome.Unknown);

    /// <summary>The result of an entry not sent because an earlier entry of its ordering group failed.</summary>
    public static BatchEntryResult GroupFailedEarlier(int index, object group, BatchEntryResult earlier)
        => new(index, null, GroupFailedEarlierCode, $"Not sent: an earlier message of its FIFO group '{group}' failed ({earlier.ErrorCode}: {earlier.ErrorMessage}), and a later message must not go after it.", SenderFault: false) { Outcome = BatchEntryOutcome.NotSent };
}
