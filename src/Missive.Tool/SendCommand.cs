using System;
using System.CommandLine;
using System.IO;
using System.Text.Json;
using System.Text.Json.Serialization;
using System.Threading.Tasks;
using Missive.Json;
using Missive.Protobuf;
using Missive.Serialization;
using Missive.Transport;

namespace Missive.Tool;

/// <summary><c>send</c>: one message, its data from a file or stdin, as a Missive envelope to a queue, a topic or an event bus.</summary>
internal static class SendCommand
{
    public static Command Create(TextWriter output)
    {
        var destination = new Argument<string>("destination") { Description = "The queue (name or URL), or with --topic a topic ARN, or with --event-bus an event bus name." };
        var type = new Option<string>("--type") { Description = "The CloudEvents type.", Required = true };
        var source = new Option<string>("--source") { Description = "The CloudEvents source.", DefaultValueFactory = _ => "/missive/tool" };
        var id = new Option<string?>("--id") { Description = "The CloudEvents id (default: a new GUID)." };
        var subject = new Option<string?>("--subject") { Description = "The CloudEvents subject." };
        var format = new Option<string>("--format") { Description = "json (default) or protobuf.", DefaultValueFactory = _ => "json" };
        format.AcceptOnlyFromAmong("json", "protobuf");
        var file = new Option<FileInfo?>("--file", "-f") { Description = "The data, as JSON (default: read from stdin)." };
        var topic = new Option<bool>("--topic") { Description = "The destination is an SNS topic ARN." };
        var eventBus = new Option<bool>("--event-bus") { Description = "The destination is an EventBridge event bus." };
        var command = new Command("send", "Publishes one message as a Missive envelope (JSON or protobuf) to an SQS queue, an SNS topic or an EventBridge event bus, for testing a consumer. Prints the id the service gave it.")
        {
            destination, type, source, id, subject, format, file, topic, eventBus,
        };
        command.SetAction(async (parsed, cancellationToken) =>
        {
            string json = parsed.GetValue(file) is { } path ? await File.ReadAllTextAsync(path.FullName, cancellationToken).ConfigureAwait(false) : await Console.In.ReadToEndAsync(cancellationToken).ConfigureAwait(false);
            JsonElement data;
            try
            {
                using JsonDocument document = JsonDocument.Parse(json);
                data = document.RootElement.Clone();
            }
            catch (JsonException e)
            {
                throw new ToolException($"The data is not JSON ({e.Message}).");
            }

            string eventType = parsed.GetValue(type)!;
            var map = new MessageTypeMap(new SerializationOptions { JsonSerializerContext = ToolJsonContext.Default });
            map.Add<JsonElement>(eventType);
            var writer = new OutboundMessageWriter(new EnvelopeSerializerProvider(new Utf8JsonEnvelopeSerializer(map), new ProtobufEnvelopeSerializer(map)));
            var envelope = new MessageEnvelope<JsonElement>
            {
                Id = parsed.GetValue(id) ?? Guid.NewGuid().ToString(),
                Source = parsed.GetValue(source)!,
                Type = eventType,
                Time = DateTimeOffset.UtcNow,
                Subject = parsed.GetValue(subject),
                DataContentType = ContentTypes.ApplicationJson,
                Message = data,
            };
            EnvelopeFormat wire = parsed.GetValue(format) == "protobuf" ? EnvelopeFormat.Protobuf : EnvelopeFormat.Json;
            string target = parsed.GetValue(destination)!;
            bool toTopic = parsed.GetValue(topic), toBus = parsed.GetValue(eventBus);
            if (toTopic && toBus)
            {
                throw new ToolException("Give --topic or --event-bus, not both.");
            }

            using var session = new ToolSession(ToolCommands.Settings(parsed), toTopic || toBus ? [] : [target], []);
            string messageId = toTopic ? await session.Transport.PublishAsync(writer.ToSns(envelope, target, wire), cancellationToken).ConfigureAwait(false)
                : toBus ? await session.Transport.PutEventAsync(writer.ToEventBridge(envelope, target, wire), cancellationToken).ConfigureAwait(false)
                : await session.Transport.SendAsync(writer.ToSqs(envelope, ToolSession.QueueName(target), wire), cancellationToken).ConfigureAwait(false);
            await output.WriteLineAsync($"Sent {envelope.Type} {envelope.Id} as {(wire == EnvelopeFormat.Protobuf ? "protobuf" : "JSON")} to {target}: message id {messageId}").ConfigureAwait(false);
            return 0;
        });
        return command;
    }
}

[JsonSerializable(typeof(JsonElement))]
internal sealed partial class ToolJsonContext : JsonSerializerContext;
