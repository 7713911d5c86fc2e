using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Text;
using System.Text.Json;
using System.Threading.Tasks;
using Missive.Serialization;

namespace Missive.Tool;

/// <summary>What <c>peek</c> and <c>why</c> print: text for people, or one JSON document for scripts.</summary>
internal sealed class Report(TextWriter output, bool json)
{
    public async Task PeekAsync(IReadOnlyList<DecodedMessage> messages)
    {
        if (json)
        {
            await WriteJsonAsync(messages, null).ConfigureAwait(false);
            return;
        }

        if (messages.Count == 0)
        {
            await output.WriteLineAsync("No messages.").ConfigureAwait(false);
            return;
        }

        var text = new StringBuilder();
        for (int i = 0; i < messages.Count; i++)
        {
            DecodedMessage m = messages[i];
            Header(text, i + 1, m);
            Line(text, "shape", m.Shape);
            if (m.Payload is not null)
            {
                Line(text, "payload", m.Payload);
            }

            if (m.Envelope is { } envelope)
            {
                Line(text, "type", envelope.Type);
                Line(text, "source", envelope.Source);
                Line(text, "id", envelope.Id);
                if (envelope.Time is { } time)
                {
                    Line(text, "time", time.ToString("O", CultureInfo.InvariantCulture));
                }

                if (envelope.Subject is not null)
                {
                    Line(text, "subject", envelope.Subject);
                }

                if (envelope.DataContentType is not null)
                {
                    Line(text, "datacontenttype", envelope.DataContentType);
                }

                foreach ((string name, CloudEventAttributeValue value) in envelope.Extensions)
                {
                    Line(text, name, value.AsString());
                }
            }

            if (m.Reason is { } reason)
            {
                Line(text, "unread", $"{reason}: {m.ReasonText}");
            }

            foreach ((string name, MessageAttributeValue value) in m.Message.MessageAttributes.OrderBy(a => a.Key, StringComparer.Ordinal))
            {
                Line(text, "attribute", $"{name} = {(value.IsBinary ? "(binary, " + value.BinaryValue.Length.ToString(CultureInfo.InvariantCulture) + " bytes)" : value.StringValue)}");
            }

            if (m.Data is not null)
            {
                text.Append("  data").AppendLine();
                foreach (string line in m.Data.Split('\n'))
                {
                    text.Append("    ").Append(line.TrimEnd('\r')).AppendLine();
                }
            }

            text.AppendLine();
        }

        await output.WriteAsync(text.ToString()).ConfigureAwait(false);
    }

    public async Task WhyAsync(IReadOnlyList<DecodedMessage> messages, IReadOnlyCollection<string> registered)
    {
        if (json)
        {
            await WriteJsonAsync(messages, registered).ConfigureAwait(false);
            return;
        }

        if (messages.Count == 0)
        {
            await output.WriteLineAsync("No messages.").ConfigureAwait(false);
            return;
        }

        var text = new StringBuilder();
        var counts = new SortedDictionary<string, int>(StringComparer.Ordinal);
        for (int i = 0; i < messages.Count; i++)
        {
            DecodedMessage m = messages[i];
            (string code, string because) = Verdict(m, registered);
            counts[code] = counts.GetValueOrDefault(code) + 1;
            Header(text, i + 1, m);
            Line(text, "shape", m.Shape);
            Line(text, "verdict", code);
            Line(text, "because", because);
            text.AppendLine();
        }

        text.Append("Summary: ").AppendJoin(", ", counts.Select(c => $"{c.Value} {c.Key}")).AppendLine();
        await output.WriteAsync(text.ToString()).ConfigureAwait(false);
    }

    /// <summary>Why a Missive consumer would not handle the message: the reader's reason, or what its configuration lacks.</summary>
    internal static (string Code, string Because) Verdict(DecodedMessage m, IReadOnlyCollection<string> registered)
    {
        if (m.Envelope is { } envelope)
        {
            if (registered.Count > 0 && !registered.Contains(envelope.Type))
            {
                return ("UnregisteredType", $"Its type '{envelope.Type}' is not one the consumer registers ({string.Join(", ", registered)}): the reader refuses it (UnknownMessageType) unless an IFallbackMessageHandler is registered, and it is retried until dead-lettered. Register the type (AddMessageType) with a handler, or add a fallback handler.");
            }

            return ("Readable", $"Missive reads it: an envelope of type '{envelope.Type}' from '{envelope.Source}'. Received {m.ReceiveCount} times: if it was dead-lettered, its handler failed (or chose DeadLetter) each time; the consumer's log has the handler's exception under message id {m.Message.MessageId}.");
        }

        if (m.Reason == InvalidEnvelopeReason.PayloadUnavailable)
        {
            return (nameof(InvalidEnvelopeReason.PayloadUnavailable), m.ReasonText ?? "Its payload could not be fetched.");
        }

        return m.Rule is { } rule
            ? ("NoNativeRuleMatched", $"It is {m.Shape}, not a CloudEvents envelope: the poller reads it only with {rule} in its NativeMessages rules.")
            : (m.Reason?.ToString() ?? "Unreadable", m.Shape == MessageDecoder.BrokenEnvelope ? m.ReasonText ?? m.Shape : $"{m.ReasonText} The body is {m.Shape}.");
    }

    private static void Header(StringBuilder text, int number, DecodedMessage m)
    {
        text.Append('[').Append(number.ToString(CultureInfo.InvariantCulture)).Append("] ").Append(m.Message.MessageId)
            .Append("  received ").Append(m.ReceiveCount.ToString(CultureInfo.InvariantCulture)).Append(m.ReceiveCount == 1 ? " time" : " times");
        if (m.FirstReceivedAt is { } first)
        {
            text.Append(", first ").Append(first.ToString("u", CultureInfo.InvariantCulture));
        }

        if (m.SentAt is { } sent)
        {
            text.Append(", sent ").Append(sent.ToString("u", CultureInfo.InvariantCulture));
        }

        text.AppendLine();
    }

    private static void Line(StringBuilder text, string name, string? value)
        => text.Append("  ").Append(name.PadRight(16)).Append(value).AppendLine();

    private async Task WriteJsonAsync(IReadOnlyList<DecodedMessage> messages, IReadOnlyCollection<string>? registered)
    {
        using var stream = new MemoryStream();
        using (var writer = new Utf8JsonWriter(stream, new JsonWriterOptions { Indented = true, Encoder = System.Text.Encodings.Web.JavaScriptEncoder.UnsafeRelaxedJsonEscaping }))
        {
            writer.WriteStartArray();
            foreach (DecodedMessage m in messages)
            {
                writer.WriteStartObject();
                writer.WriteString("messageId", m.Message.MessageId);
                writer.WriteNumber("receiveCount", m.ReceiveCount);
                WriteTime(writer, "firstReceived", m.FirstReceivedAt);
                WriteTime(writer, "sent", m.SentAt);
                writer.WriteString("shape", m.Shape);
                if (m.Payload is not null)
                {
                    writer.WriteString("payload", m.Payload);
                }

                if (m.Envelope is { } envelope)
                {
                    writer.WriteStartObject("envelope");
                    writer.WriteString("id", envelope.Id);
                    writer.WriteString("source", envelope.Source);
                    writer.WriteString("type", envelope.Type);
                    WriteTime(writer, "time", envelope.Time);
                    if (envelope.Subject is not null)
                    {
                        writer.WriteString("subject", envelope.Subject);
                    }

                    if (envelope.DataContentType is not null)
                    {
                        writer.WriteString("datacontenttype", envelope.DataContentType);
                    }

                    foreach ((string name, CloudEventAttributeValue value) in envelope.Extensions)
                    {
                        writer.WriteString(name, value.AsString());
                    }

                    writer.WriteEndObject();
                }

                if (m.Reason is { } reason)
                {
                    writer.WriteString("reason", reason.ToString());
                    writer.WriteString("reasonText", m.ReasonText);
                }

                if (registered is not null)
                {
                    (string code, string because) = Verdict(m, registered);
                    writer.WriteString("verdict", code);
                    writer.WriteString("because", because);
                }

                writer.WriteStartObject("attributes");
                foreach ((string name, MessageAttributeValue value) in m.Message.MessageAttributes)
                {
                    writer.WriteString(name, value.IsBinary ? Convert.ToBase64String(value.BinaryValue.Span) : value.StringValue);
                }

                writer.WriteEndObject();
                if (m.Data is not null)
                {
                    writer.WritePropertyName("data");
                    WriteData(writer, m.Data);
                }

                writer.WriteEndObject();
            }

            writer.WriteEndArray();
        }

        await output.WriteLineAsync(Encoding.UTF8.GetString(stream.ToArray())).ConfigureAwait(false);
    }

    private static void WriteData(Utf8JsonWriter writer, string data)
    {
        try
        {
            using JsonDocument document = JsonDocument.Parse(data);
            document.WriteTo(writer);
        }
        catch (JsonException)
        {
            writer.WriteStringValue(data);
        }
    }

    private static void WriteTime(Utf8JsonWriter writer, string name, DateTimeOffset? time)
    {
        if (time is { } value)
        {
            writer.WriteString(name, value);
        }
    }
}
