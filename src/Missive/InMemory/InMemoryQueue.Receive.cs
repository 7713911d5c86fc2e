using System;
using System.Collections.Generic;
using System.Globalization;
using Missive.Transport;

namespace Missive.InMemory;

/// <content>Receiving: taking visible messages in order, receive counts, and the move to the dead-letter queue.</content>
public sealed partial class InMemoryQueue
{
    /// <summary>
    /// Takes up to <paramref name="maxMessages"/> visible messages; those past the max receive count are taken out into
    /// <paramref name="deadLetters"/>, to be moved once the lock is left. A standard queue gives them in the order it
    /// holds them. A FIFO queue does what SQS documents for a receive of more than one message: a group with a message
    /// in flight is locked; from the first available group (by its oldest message) it returns as many of the group's
    /// messages, in order, as are available and fit, then goes on to the next group. A message not yet visible (a
    /// delay) holds back the rest of its group. Under the lock.
    /// </summary>
    private List<SqsMessage> TakeVisible(int maxMessages, TimeSpan visibilityTimeout, ref List<StoredMessage>? deadLetters, out TimeSpan untilVisible)
    {
        DateTimeOffset now = _broker.TimeProvider.GetUtcNow();
        ShowWhatIsDue(now);
        var received = new List<SqsMessage>();
        if (!Options.Fifo)
        {
            while (received.Count < maxMessages && _ready.Count > 0)
            {
                TakeOne(_ready.Min!, now, visibilityTimeout, received, ref deadLetters);
            }
        }
        else
        {
            Group? group = _available.Count > 0 ? _available.Min : null;
            var candidates = new List<StoredMessage>(maxMessages);
            while (group is not null && received.Count < maxMessages)
            {
                // The group's visible messages from its oldest, in order, as many as may be delivered.
                candidates.Clear();
                int deliverable = 0;
                foreach (StoredMessage message in group.Members)
                {
                    if (!message.Visible || received.Count + deliverable == maxMessages)
                    {
                        break;
                    }

                    candidates.Add(message);
                    deliverable += PastMaxReceives(message) ? 0 : 1;
                }

                long oldest = group.Oldest;
                foreach (StoredMessage message in candidates)
                {
                    TakeOne(message, now, visibilityTimeout, received, ref deadLetters);
                }

                group = NextAvailable(oldest);
            }
        }

        untilVisible = NextVisible(now);
        return received;
    }

    /// <summary>Delivers a visible message into <paramref name="received"/>, or takes it out for the dead-letter queue when past the max receive count.</summary>
    private void TakeOne(StoredMessage message, DateTimeOffset now, TimeSpan visibilityTimeout, List<SqsMessage> received, ref List<StoredMessage>? deadLetters)
    {
        if (PastMaxReceives(message))
        {
            Remove(message); // all or nothing: put back if the dead-letter queue refuses it
            (deadLetters ??= []).Add(message);
            return;
        }

        message.DeadLetterRefused = false;
        message.ReceiveCount++;
        message.FirstReceivedAt ??= now;
        if (message.ReceiptHandle is { } previous)
        {
            _byReceipt.Remove(previous);
        }

        message.ReceiptHandle = Convert.ToBase64String(Guid.NewGuid().ToByteArray()) + ":" + message.Id;
        _byReceipt[message.ReceiptHandle] = message;
        Hide(message, now + visibilityTimeout);
        var system = new Dictionary<string, string>(message.SystemAttributes, StringComparer.Ordinal)
        {
            [SqsSystemAttributes.ApproximateReceiveCount] = message.ReceiveCount.ToString(CultureInfo.InvariantCulture),
            [SqsSystemAttributes.ApproximateFirstReceiveTimestamp] = message.FirstReceivedAt.Value.ToUnixTimeMilliseconds().ToString(CultureInfo.InvariantCulture),
        };
        received.Add(new SqsMessage
        {
            Body = message.Body,
            MessageId = message.Id,
            ReceiptHandle = message.ReceiptHandle,
            SystemAttributes = system,
            MessageAttributes = message.Attributes,
        });
    }

    private bool PastMaxReceives(StoredMessage message)
        => Options.DeadLetterQueue is not null && message.ReceiveCount + 1 > Options.MaxReceiveCount && !message.DeadLetterRefused;

    /// <summary>
    /// Moves messages taken out of this queue into its dead-letter queue; one the dead-letter queue refuses comes back
    /// here, visible, and is delivered at its next receive instead of being moved again then.
    /// </summary>
    private void MoveToDeadLetterQueue(List<StoredMessage> messages)
    {
        InMemoryQueue deadLetters = _broker.GetQueue(Options.DeadLetterQueue!);
        foreach (StoredMessage message in messages)
        {
            try
            {
                deadLetters.Enqueue(message.Body, message.Attributes, message.GroupId, Options.Fifo ? message.Id : null, TimeSpan.Zero, Arn);
            }
            catch (MessageTransportException)
            {
                lock (_gate)
                {
                    message.DeadLetterRefused = true;
                    Add(message);
                    Show(message);
                    Signal();
                }
            }
        }
    }
}
