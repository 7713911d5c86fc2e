using System;
using System.Collections.Generic;
using System.CommandLine;
using System.Globalization;
using System.Linq;
using System.IO;
using System.Text;
using System.Text.Json;
using System.Threading.Tasks;

namespace Missive.Tool;

/// <summary><c>stats</c>: the approximate counts SQS keeps for each queue, and where it dead-letters.</summary>
internal static class StatsCommand
{
    public static Command Create(TextWriter output, TextWriter error)
    {
        var queues = new Argument<string[]>("queues") { Description = "The queues: names or URLs.", Arity = ArgumentArity.OneOrMore };
        var format = new Option<string>("--output", "-o") { Description = "text (for people) or json (for scripts).", DefaultValueFactory = _ => "text" };
        format.AcceptOnlyFromAmong("text", "json");
        var command = new Command("stats", "Shows each queue's approximate counts of messages waiting, in flight and delayed, the age of its oldest message (CloudWatch's ApproximateAgeOfOldestMessage, its latest minute), and its dead-letter queue and receive limit.") { queues, format };
        command.SetAction(async (parsed, cancellationToken) =>
        {
            string[] names = parsed.GetValue(queues)!;
            using var session = new ToolSession(ToolCommands.Settings(parsed), names, []);
            var rows = new List<(string Queue, Dictionary<string, string> Attributes)>();
            foreach (string queue in names)
            {
                rows.Add((queue, await session.AttributesAsync(queue, ["All"], cancellationToken).ConfigureAwait(false)));
            }

            (Dictionary<string, TimeSpan?> ages, string? unavailable) = await session.OldestMessageAgesAsync(names, cancellationToken).ConfigureAwait(false);
            if (unavailable is not null)
            {
                await error.WriteLineAsync($"Note: no oldest-message ages ({unavailable}).").ConfigureAwait(false);
            }

            await output.WriteAsync(parsed.GetValue(format) == "json" ? Json(rows, ages) : Text(rows, ages)).ConfigureAwait(false);
            return 0;
        });
        return command;
    }

    private static string Text(List<(string Queue, Dictionary<string, string> Attributes)> rows, Dictionary<string, TimeSpan?> ages)
    {
        int width = Math.Max(5, rows.Max(r => r.Queue.Length));
        var text = new StringBuilder();
        text.Append("queue".PadRight(width)).Append("  waiting  in flight  delayed  oldest     dead-letters to (after receives)").AppendLine();
        foreach ((string queue, Dictionary<string, string> attributes) in rows)
        {
            text.Append(queue.PadRight(width))
                .Append("  ").Append(Get(attributes, "ApproximateNumberOfMessages").PadLeft(7))
                .Append("  ").Append(Get(attributes, "ApproximateNumberOfMessagesNotVisible").PadLeft(9))
                .Append("  ").Append(Get(attributes, "ApproximateNumberOfMessagesDelayed").PadLeft(7))
                .Append("  ").Append(Age(ages.GetValueOrDefault(ToolSession.QueueName(queue))).PadRight(9))
                .Append("  ").Append(Redrive(attributes) is { } r ? $"{r.DeadLetterTargetArn} ({r.MaxReceiveCount})" : "-")
                .AppendLine();
        }

        return text.ToString();
    }

    private static string Json(List<(string Queue, Dictionary<string, string> Attributes)> rows, Dictionary<string, TimeSpan?> ages)
    {
        using var stream = new MemoryStream();
        using (var writer = new Utf8JsonWriter(stream, new JsonWriterOptions { Indented = true }))
        {
            writer.WriteStartArray();
            foreach ((string queue, Dictionary<string, string> attributes) in rows)
            {
                writer.WriteStartObject();
                writer.WriteString("queue", queue);
                writer.WriteNumber("waiting", Number(attributes, "ApproximateNumberOfMessages"));
                writer.WriteNumber("inFlight", Number(attributes, "ApproximateNumberOfMessagesNotVisible"));
                writer.WriteNumber("delayed", Number(attributes, "ApproximateNumberOfMessagesDelayed"));
                if (ages.GetValueOrDefault(ToolSession.QueueName(queue)) is { } age)
                {
                    writer.WriteNumber("oldestMessageAgeSeconds", age.TotalSeconds);
                }

                if (Redrive(attributes) is { } redrive)
                {
                    writer.WriteString("deadLetterTargetArn", redrive.DeadLetterTargetArn);
                    writer.WriteNumber("maxReceiveCount", redrive.MaxReceiveCount);
                }

                writer.WriteEndObject();
            }

            writer.WriteEndArray();
        }

        return Encoding.UTF8.GetString(stream.ToArray()) + Environment.NewLine;
    }

    /// <summary>An age as an operator reads it: <c>42s</c>, <c>3m 20s</c>, <c>5h 02m</c>, <c>2d 04h</c>; <c>-</c> for none.</summary>
    internal static string Age(TimeSpan? age) => age switch
    {
        null => "-",
        { TotalMinutes: < 1 } a => $"{(int)a.TotalSeconds}s",
        { TotalHours: < 1 } a => $"{a.Minutes}m {a.Seconds:00}s",
        { TotalDays: < 1 } a => $"{a.Hours}h {a.Minutes:00}m",
        { } a => $"{(int)a.TotalDays}d {a.Hours:00}h",
    };

    private static string Get(Dictionary<string, string> attributes, string name) => attributes.GetValueOrDefault(name) ?? "?";

    private static long Number(Dictionary<string, string> attributes, string name)
        => long.TryParse(attributes.GetValueOrDefault(name), NumberStyles.None, CultureInfo.InvariantCulture, out long value) ? value : -1;

    private static RedrivePolicy? Redrive(Dictionary<string, string> attributes) => RedrivePolicy.Parse(attributes.GetValueOrDefault("RedrivePolicy"));
}
