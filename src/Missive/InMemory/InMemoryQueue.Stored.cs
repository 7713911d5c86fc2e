using System;
using System.Collections.Generic;

namespace Missive.InMemory;

/// <content>A message as the queue holds it, and the order of a standard queue's visible messages.</content>
public sealed partial class InMemoryQueue
{
    private sealed class StoredMessage(string id, string body, IReadOnlyDictionary<string, MessageAttributeValue> attributes, Dictionary<string, string> systemAttributes, string? groupId, long place)
    {
        public string Id { get; } = id;

        public string Body { get; } = body;

        public IReadOnlyDictionary<string, MessageAttributeValue> Attributes { get; } = attributes;

        public Dictionary<string, string> SystemAttributes { get; } = systemAttributes;

        public string? GroupId { get; } = groupId;

        /// <summary>Gets the message's place in the queue: the order it is held and delivered in.</summary>
        public long Place { get; } = place;

        public DateTimeOffset VisibleAt { get; set; }

        public DateTimeOffset? FirstReceivedAt { get; set; }

        public int ReceiveCount { get; set; }

        public string? ReceiptHandle { get; set; }

        /// <summary>Gets or sets whether the message is visible (in the ready set, or receivable in its group).</summary>
        public bool Visible { get; set; }

        /// <summary>Gets or sets whether the message left the queue (deleted, or moved).</summary>
        public bool Gone { get; set; }

        /// <summary>Gets or sets a count of changes: a timeline entry made before the last change is stale.</summary>
        public int Version { get; set; }

        /// <summary>Gets or sets whether the dead-letter queue refused the message: it is delivered at its next receive.</summary>
        public bool DeadLetterRefused { get; set; }
    }

    private sealed class BySequence : IComparer<StoredMessage>
    {
        public static readonly BySequence Instance = new();

        public int Compare(StoredMessage? x, StoredMessage? y) => x!.Place.CompareTo(y!.Place);
    }
}
