using System;
using System.Collections.Generic;
using System.Text.Json;
using Missive.Transport;

namespace Missive.Lambda;

/// <summary>
/// One record of the SQS event Lambda passes to a function (https://docs.aws.amazon.com/lambda/latest/dg/with-sqs.html):
/// <c>messageId</c>, <c>receiptHandle</c>, <c>body</c>, <c>attributes</c> (system attributes, strings) and
/// <c>messageAttributes</c> in Lambda's shape (<c>stringValue</c>, <c>binaryValue</c> in base64, <c>dataType</c>), with the
/// queue from <c>eventSourceARN</c>.
/// </summary>
internal sealed class LambdaSqsRecord
{
    private LambdaSqsRecord(string messageId, string queue, bool isFifo, string? groupId, SqsMessage? message, string? problem)
    {
        MessageId = messageId;
        Queue = queue;
        IsFifo = isFifo;
        GroupId = groupId;
        Message = message;
        Problem = problem;
    }

    public string MessageId { get; }

    /// <summary>Gets the queue name (the last part of <c>eventSourceARN</c>), or <c>lambda</c> without one.</summary>
    public string Queue { get; }

    public bool IsFifo { get; }

    /// <summary>Gets the record's <c>MessageGroupId</c> system attribute, or <c>null</c>.</summary>
    public string? GroupId { get; }

    /// <summary>Gets the record as a received message, or <c>null</c> when it is not well formed (<see cref="Problem"/> says why).</summary>
    public SqsMessage? Message { get; }

    public string? Problem { get; }

    /// <exception cref="ArgumentException">The event has no <c>Records</c> array, or a record has no <c>messageId</c>.</exception>
    public static List<LambdaSqsRecord> ReadAll(JsonElement sqsEvent)
    {
        if (sqsEvent.ValueKind != JsonValueKind.Object || !sqsEvent.TryGetProperty("Records", out JsonElement records) || records.ValueKind != JsonValueKind.Array)
        {
            throw new ArgumentException("The input is not an SQS event: it has no Records array.", nameof(sqsEvent));
        }

        var all = new List<LambdaSqsRecord>(records.GetArrayLength());
        foreach (JsonElement record in records.EnumerateArray())
        {
            if (record.ValueKind != JsonValueKind.Object || !record.TryGetProperty("messageId", out JsonElement id) || id.ValueKind != JsonValueKind.String || id.GetString() is not { Length: > 0 } messageId)
            {
                throw new ArgumentException($"Record {all.Count} of the SQS event has no messageId, so it cannot be reported on its own; the whole batch fails.", nameof(sqsEvent));
            }

            all.Add(Read(record, messageId));
        }

        return all;
    }

    private static LambdaSqsRecord Read(JsonElement record, string messageId)
    {
        string? arn = OptionalString(record, "eventSourceARN");
        string queue = arn is { Length: > 0 } ? arn[(arn.LastIndexOf(':') + 1)..] : "lambda";
        string? group = Member(record, "attributes", JsonValueKind.Object) is { } attributes ? OptionalString(attributes, SqsSystemAttributes.MessageGroupId) : null;
        bool fifo = FifoRule.IsFifo(queue);
        try
        {
            Dictionary<string, string> system = ReadSystemAttributes(record);
            var message = new SqsMessage
            {
                MessageId = messageId,
                ReceiptHandle = OptionalString(record, "receiptHandle") ?? string.Empty,
                Body = OptionalString(record, "body") ?? string.Empty,
                SystemAttributes = system,
                MessageAttributes = ReadMessageAttributes(record),
            };
            return new LambdaSqsRecord(messageId, queue, fifo, group, message, null);
        }
        catch (FormatException e)
        {
            return new LambdaSqsRecord(messageId, queue, fifo, group, null, e.Message);
        }
    }

    private static Dictionary<string, string> ReadSystemAttributes(JsonElement record)
    {
        var attributes = new Dictionary<string, string>(StringComparer.Ordinal);
        if (Member(record, "attributes", JsonValueKind.Object) is { } members)
        {
            foreach (JsonProperty attribute in members.EnumerateObject())
            {
                if (attribute.Value.ValueKind != JsonValueKind.String)
                {
                    throw new FormatException($"the system attribute {attribute.Name} is not a string");
                }

                attributes[attribute.Name] = attribute.Value.GetString()!;
            }
        }

        return attributes;
    }

    private static Dictionary<string, MessageAttributeValue> ReadMessageAttributes(JsonElement record)
    {
        var attributes = new Dictionary<string, MessageAttributeValue>(StringComparer.Ordinal);
        if (Member(record, "messageAttributes", JsonValueKind.Object) is not { } members)
        {
            return attributes;
        }

        foreach (JsonProperty attribute in members.EnumerateObject())
        {
            if (attribute.Value.ValueKind != JsonValueKind.Object || OptionalString(attribute.Value, "dataType") is not { Length: > 0 } dataType)
            {
                throw new FormatException($"the message attribute {attribute.Name} has no dataType");
            }

            if (dataType.StartsWith("Binary", StringComparison.Ordinal))
            {
                string base64 = OptionalString(attribute.Value, "binaryValue") ?? throw new FormatException($"the binary message attribute {attribute.Name} has no binaryValue");
                byte[] bytes;
                try
                {
                    bytes = Convert.FromBase64String(base64);
                }
                catch (FormatException)
                {
                    throw new FormatException($"the binaryValue of the message attribute {attribute.Name} is not base64");
                }

                attributes[attribute.Name] = new MessageAttributeValue { DataType = dataType, BinaryValue = bytes };
            }
            else
            {
                attributes[attribute.Name] = new MessageAttributeValue { DataType = dataType, StringValue = OptionalString(attribute.Value, "stringValue") };
            }
        }

        return attributes;
    }

    private static JsonElement? Member(JsonElement element, string name, JsonValueKind kind)
        => element.TryGetProperty(name, out JsonElement value) && value.ValueKind == kind ? value : null;

    private static string? OptionalString(JsonElement element, string name)
        => element.TryGetProperty(name, out JsonElement value) && value.ValueKind == JsonValueKind.String ? value.GetString() : null;
}
