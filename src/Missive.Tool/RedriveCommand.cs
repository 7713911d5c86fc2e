using System;
using System.Collections.Generic;
using System.CommandLine;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using Missive.Transport;

namespace Missive.Tool;

/// <summary>
/// <c>redrive</c>: moves dead-lettered messages back by receive, send, delete. A message leaves the dead-letter queue
/// only after its send succeeded, and its id is written to a journal first, so that a run stopped at any point and
/// started again moves what is left, without sending twice what was sent (it deletes those without sending them).
/// </summary>
internal static class RedriveCommand
{
    public static Command Create(TextWriter output, TextWriter error)
    {
        var queue = new Argument<string>("dead-letter-queue") { Description = "The queue to move messages from: its name, or its URL." };
        var to = new Option<string?>("--to") { Description = "The queue to move them to (default: the one source queue whose redrive policy names the dead-letter queue)." };
        var type = new Option<string[]>("--type") { Description = "Only messages of these CloudEvents types (repeatable)." };
        var source = new Option<string?>("--source") { Description = "Only messages from this CloudEvents source." };
        var since = new Option<DateTimeOffset?>("--since") { Description = "Only messages sent at or after this time (ISO 8601)." };
        var until = new Option<DateTimeOffset?>("--until") { Description = "Only messages sent before this time (ISO 8601)." };
        var max = new Option<int?>("--max-messages") { Description = "Stop after moving this many." };
        var rate = new Option<double?>("--rate") { Description = "The most messages moved per second." };
        var dryRun = new Option<bool>("--dry-run") { Description = "Say what would move; move nothing." };
        var hold = new Option<TimeSpan>("--hold") { Description = "How long a message looked at stays invisible (it comes back after this if the run is stopped).", DefaultValueFactory = _ => TimeSpan.FromSeconds(60) };
        var byReceive = new Option<bool>("--by-receive") { Description = "Move by receive, send, delete even without a filter (by default, an unfiltered move is SQS's own message move task)." };
        var journal = new Option<string?>("--journal") { Description = "The file of the ids already sent (default: .missive-redrive-<queue>.journal in the current directory); removed when a run ends with every message it sent deleted." };
        var command = new Command("redrive", "Moves dead-lettered messages back to their source queue (or another), all or filtered, keeping body and attributes. Unfiltered, by SQS's own message move task (progress polled); filtered (or --by-receive, --dry-run, --max-messages), by receive, send, delete: resumable, stopped at any point and run again, nothing is lost or sent twice.")
        {
            queue, to, type, source, since, until, max, rate, dryRun, hold, journal, byReceive,
        };
        command.SetAction(async (parsed, cancellationToken) =>
        {
            ToolSettings settings = ToolCommands.Settings(parsed);
            string from = parsed.GetValue(queue)!;
            using var session = new ToolSession(settings, [from, .. parsed.GetValue(to) is { } t ? [t] : Array.Empty<string>()], []);
            var filter = new MessageFilter(parsed.GetValue(type) ?? [], parsed.GetValue(source), parsed.GetValue(since), parsed.GetValue(until));
            if (filter.IsEmpty && !parsed.GetValue(dryRun) && parsed.GetValue(max) is null && !parsed.GetValue(byReceive)
                && await ServiceMoveAsync(session, from, parsed.GetValue(to), parsed.GetValue(rate), output, error, cancellationToken).ConfigureAwait(false) is { } moved)
            {
                return moved;
            }

            string target = parsed.GetValue(to) ?? await SourceQueueAsync(session, from, cancellationToken).ConfigureAwait(false);
            string journalPath = parsed.GetValue(journal) ?? Path.Combine(Environment.CurrentDirectory, $".missive-redrive-{ToolSession.QueueName(from)}.journal");
            var run = new Redrive(session, ToolSession.QueueName(from), ToolSession.QueueName(target), filter, error)
            {
                DryRun = parsed.GetValue(dryRun),
                Max = parsed.GetValue(max),
                Rate = parsed.GetValue(rate),
                Hold = parsed.GetValue(hold),
                JournalPath = journalPath,
            };
            RedriveSummary summary = await run.RunAsync(cancellationToken).ConfigureAwait(false);
            await output.WriteLineAsync(summary.ToString(run.DryRun, ToolSession.QueueName(from), ToolSession.QueueName(target))).ConfigureAwait(false);
            return summary.Failed > 0 ? 1 : 0;
        });
        return command;
    }

    /// <summary>
    /// An unfiltered move by SQS's own message move task, its progress polled once a second; the exit code, or
    /// <c>null</c> when the service has no such task (the move is then made by receive, send, delete).
    /// </summary>
    private static async Task<int?> ServiceMoveAsync(ToolSession session, string from, string? to, double? rate, TextWriter output, TextWriter progress, CancellationToken cancellationToken)
    {
        int? perSecond = rate is { } r ? (int)Math.Clamp(Math.Round(r), 1, 500) : null;
        if (await session.StartMoveAsync(from, to, perSecond, cancellationToken).ConfigureAwait(false) is not { } task)
        {
            await progress.WriteLineAsync("The service has no message move task: moving by receive, send, delete.").ConfigureAwait(false);
            return null;
        }

        try
        {
            while (true)
            {
                Amazon.SQS.Model.ListMessageMoveTasksResultEntry? state = await session.MoveTaskAsync(task.SourceArn, cancellationToken).ConfigureAwait(false);
                long moved = state?.ApproximateNumberOfMessagesMoved ?? 0, total = state?.ApproximateNumberOfMessagesToMove ?? 0;
                await progress.WriteAsync(string.Create(CultureInfo.InvariantCulture, $"\rmoved {moved} of {total} (SQS's message move task, {state?.Status ?? "starting"})")).ConfigureAwait(false);
                switch (state?.Status)
                {
                    case "COMPLETED":
                        await progress.WriteLineAsync().ConfigureAwait(false);
                        await output.WriteLineAsync($"Moved {moved} from {ToolSession.QueueName(from)} to {(to is null ? "the queues they came from" : ToolSession.QueueName(to))} by SQS's message move task.").ConfigureAwait(false);
                        return 0;
                    case "FAILED" or "CANCELLED":
                        await progress.WriteLineAsync().ConfigureAwait(false);
                        throw new ToolException($"SQS's message move task {state.Status.ToLowerInvariant()} after moving {moved} of {total}: {state.FailureReason ?? "no reason given"}.");
                }

                await Task.Delay(TimeSpan.FromSeconds(1), cancellationToken).ConfigureAwait(false);
            }
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
            throw new ToolException($"Stopped watching; the move goes on at SQS (task {task.Handle}): aws sqs cancel-message-move-task --task-handle {task.Handle} stops it.");
        }
    }

    private static async Task<string> SourceQueueAsync(ToolSession session, string deadLetterQueue, CancellationToken cancellationToken)
        => await session.SourceQueuesAsync(deadLetterQueue, cancellationToken).ConfigureAwait(false) switch
        {
            [string one] => one,
            [] => throw new ToolException($"No queue names {deadLetterQueue} as its dead-letter queue: say where the messages go with --to."),
            var many => throw new ToolException($"{many.Count} queues name {deadLetterQueue} as their dead-letter queue ({string.Join(", ", many)}): say which with --to."),
        };
}

/// <summary>What a redrive did.</summary>
internal sealed class RedriveSummary
{
    public int Moved { get; set; }

    public int AlreadySent { get; set; }

    public int Skipped { get; set; }

    public int Failed { get; set; }

    /// <summary>Gets or sets how many were sent but are still in the dead-letter queue (their delete failed): the journal keeps them.</summary>
    public int Undeleted { get; set; }

    public string ToString(bool dryRun, string from, string to)
        => dryRun
            ? $"Dry run: {Moved} of the messages looked at would move from {from} to {to}; {Skipped} do not match. Nothing was moved."
            : $"Moved {Moved} from {from} to {to}" + (AlreadySent > 0 ? $" ({AlreadySent} sent by an earlier run, deleted now)" : string.Empty) + $"; {Skipped} did not match and stay; {Failed} failed and stay.";
}

/// <summary>One redrive run.</summary>
internal sealed class Redrive(ToolSession session, string from, string to, MessageFilter filter, TextWriter progress)
{
    public bool DryRun { get; init; }

    public int? Max { get; init; }

    public double? Rate { get; init; }

    public TimeSpan Hold { get; init; } = TimeSpan.FromSeconds(60);

    public required string JournalPath { get; init; }

    public async Task<RedriveSummary> RunAsync(CancellationToken cancellationToken)
    {
        var summary = new RedriveSummary();
        HashSet<string> sent = DryRun ? [] : ReadJournal();
        var held = new Dictionary<string, string>(StringComparer.Ordinal); // looked at and left: id → receipt handle
        long started = Stopwatch.GetTimestamp();
        using FileStream? journal = DryRun ? null : new FileStream(JournalPath, FileMode.Append, FileAccess.Write, FileShare.Read, 4096, FileOptions.WriteThrough);
        try
        {
            int quiet = 0;
            while (quiet < 2 && (Max is not { } most || summary.Moved < most))
            {
                IReadOnlyList<SqsMessage> received = await session.Transport.ReceiveAsync(from, 10, TimeSpan.FromSeconds(1), Hold, cancellationToken).ConfigureAwait(false);
                var deliver = new List<SqsMessage>();
                var deleteOnly = new List<SqsMessage>();
                bool anyNew = false;
                foreach (SqsMessage message in received)
                {
                    anyNew |= !held.ContainsKey(message.MessageId);
                    if (sent.Contains(message.MessageId))
                    {
                        deleteOnly.Add(message); // sent by a run that stopped before deleting it
                    }
                    else if (filter.IsEmpty || filter.Matches(await session.Decoder.DecodeAsync(message, cancellationToken).ConfigureAwait(false)))
                    {
                        if (Max is { } limit && summary.Moved + deliver.Count >= limit)
                        {
                            held[message.MessageId] = message.ReceiptHandle;
                            continue;
                        }

                        deliver.Add(message);
                    }
                    else
                    {
                        if (!held.ContainsKey(message.MessageId))
                        {
                            summary.Skipped++;
                        }

                        held[message.MessageId] = message.ReceiptHandle;
                    }
                }

                quiet = anyNew || deliver.Count > 0 || deleteOnly.Count > 0 ? 0 : quiet + 1;
                if (DryRun)
                {
                    foreach (SqsMessage message in deliver)
                    {
                        held[message.MessageId] = message.ReceiptHandle;
                    }

                    summary.Moved += deliver.Count;
                    continue;
                }

                if (deleteOnly.Count > 0)
                {
                    summary.Undeleted += await DeleteAsync(deleteOnly, cancellationToken).ConfigureAwait(false);
                    summary.AlreadySent += deleteOnly.Count;
                }

                if (deliver.Count > 0)
                {
                    await MoveAsync(deliver, journal!, sent, held, summary, cancellationToken).ConfigureAwait(false);
                    await Progress(summary, started).ConfigureAwait(false);
                    await PaceAsync(summary.Moved, started, cancellationToken).ConfigureAwait(false);
                }
            }
        }
        finally
        {
            await session.ReleaseAsync(from, held.Values.ToList()).ConfigureAwait(false);
            if (!DryRun)
            {
                await progress.WriteLineAsync().ConfigureAwait(false);
            }
        }

        if (journal is not null && summary.Undeleted == 0)
        {
            await journal.DisposeAsync().ConfigureAwait(false);
            File.Delete(JournalPath); // ended with every message it sent deleted: nothing left to recognise
        }

        return summary;
    }

    /// <summary>Sends a batch to the target; each message sent is journalled, then deleted from the dead-letter queue.</summary>
    private async Task MoveAsync(List<SqsMessage> batch, FileStream journal, HashSet<string> sent, Dictionary<string, string> held, RedriveSummary summary, CancellationToken cancellationToken)
    {
        bool fifo = FifoRule.IsFifo(to);
        var requests = batch.Select(m => new SqsSendRequest
        {
            QueueName = to,
            GivenBody = m.GivenBody, // as it came: bytes stay bytes
            MessageAttributes = m.MessageAttributes,
            MessageGroupId = fifo ? m.SystemAttributes.GetValueOrDefault(SqsSystemAttributes.MessageGroupId) ?? m.MessageId : null,
            MessageDeduplicationId = fifo ? m.MessageId : null,
        }).ToList();
        IReadOnlyList<BatchEntryResult> results = await session.Transport.SendBatchAsync(requests, CancellationToken.None).ConfigureAwait(false); // a send under way finishes, so its outcome is known
        var delivered = new List<SqsMessage>();
        var line = new StringBuilder();
        foreach (BatchEntryResult result in results)
        {
            SqsMessage message = batch[result.Index];
            if (result.Succeeded)
            {
                delivered.Add(message);
                line.Append(message.MessageId).Append('\n');
            }
            else
            {
                summary.Failed++;
                held[message.MessageId] = message.ReceiptHandle;
                await progress.WriteLineAsync($"{message.MessageId} not sent: {result.ErrorCode} {result.ErrorMessage}").ConfigureAwait(false);
            }
        }

        byte[] ids = Encoding.UTF8.GetBytes(line.ToString());
        await journal.WriteAsync(ids, CancellationToken.None).ConfigureAwait(false);
        await journal.FlushAsync(CancellationToken.None).ConfigureAwait(false);
        foreach (SqsMessage message in delivered)
        {
            sent.Add(message.MessageId);
        }

        summary.Undeleted += await DeleteAsync(delivered, cancellationToken).ConfigureAwait(false);
        summary.Moved += delivered.Count;
    }

    /// <summary>Deletes sent messages from the dead-letter queue; returns how many could not be (a later run deletes them).</summary>
    private async Task<int> DeleteAsync(List<SqsMessage> messages, CancellationToken cancellationToken)
    {
        if (messages.Count == 0)
        {
            return 0;
        }

        IReadOnlyList<BatchEntryResult> results = await session.Transport.DeleteBatchAsync(from, messages.Select(m => m.ReceiptHandle).ToList(), cancellationToken).ConfigureAwait(false);
        int failed = 0;
        foreach (BatchEntryResult result in results.Where(r => !r.Succeeded))
        {
            // Sent and journalled: the next run deletes it without sending it again.
            failed++;
            await progress.WriteLineAsync($"{messages[result.Index].MessageId} sent but not deleted ({result.ErrorCode}): a later run deletes it").ConfigureAwait(false);
        }

        return failed;
    }

    private HashSet<string> ReadJournal()
        => File.Exists(JournalPath) ? new HashSet<string>(File.ReadAllLines(JournalPath).Where(l => l.Length > 0), StringComparer.Ordinal) : new HashSet<string>(StringComparer.Ordinal);

    private Task Progress(RedriveSummary summary, long started)
    {
        double seconds = Math.Max(Stopwatch.GetElapsedTime(started).TotalSeconds, 0.001);
        return progress.WriteAsync(string.Create(CultureInfo.InvariantCulture, $"\rmoved {summary.Moved}, skipped {summary.Skipped}, failed {summary.Failed} ({summary.Moved / seconds:F0} per second)"));
    }

    private async Task PaceAsync(int moved, long started, CancellationToken cancellationToken)
    {
        if (Rate is not { } rate || rate <= 0)
        {
            return;
        }

        TimeSpan due = TimeSpan.FromSeconds(moved / rate) - Stopwatch.GetElapsedTime(started);
        if (due > TimeSpan.Zero)
        {
            await Task.Delay(due, cancellationToken).ConfigureAwait(false);
        }
    }
}
