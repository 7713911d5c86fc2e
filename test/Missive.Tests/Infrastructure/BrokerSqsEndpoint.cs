using System;
using System.Collections.Generic;
using System.Linq;
using System.Net;
using System.Net.Http;
using System.Security.Cryptography;
using System.Text;
using System.Text.Json;
using System.Threading;
using System.Threading.Tasks;
using Missive.InMemory;
using Missive.Transport;

namespace Missive.Tests.Infrastructure;

/// <summary>
/// SQS's JSON protocol (AWS JSON 1.0, as the SQS API reference describes each call) answered by an in-memory broker, so
/// that the AWS transport runs against SQS's semantics (visibility, receipts, receive counts) on the broker's clock:
/// <c>SendMessage</c>, <c>ReceiveMessage</c>, <c>ChangeMessageVisibilityBatch</c> and <c>DeleteMessageBatch</c>. A
/// test may step into a call (<see cref="BeforeAnswer"/>) to move the clock or hold it.
/// </summary>
[System.Diagnostics.CodeAnalysis.SuppressMessage("Security", "CA5351", Justification = "SQS defines its body digest as MD5.")]
internal sealed class BrokerSqsEndpoint(InMemoryBroker broker) : HttpMessageHandler
{
    public const string QueueUrlPrefix = "https://sqs.eu-west-1.amazonaws.com/123456789012/";

    private int _calls;

    /// <summary>
    /// Runs before a call is answered: the operation (for example <c>ChangeMessageVisibilityBatch</c>), how many entries
    /// it carries, and the call's token. It may move the clock, or wait (honouring the token, as a connection would).
    /// </summary>
    public Func<string, int, CancellationToken, Task>? BeforeAnswer { get; init; }

    /// <summary>Gets how many calls were made.</summary>
    public int Calls => Volatile.Read(ref _calls);

    protected override async Task<HttpResponseMessage> SendAsync(HttpRequestMessage request, CancellationToken cancellationToken)
    {
        Interlocked.Increment(ref _calls);
        string operation = request.Headers.GetValues("X-Amz-Target").Single().Split('.')[1];
        using JsonDocument body = JsonDocument.Parse(await request.Content!.ReadAsByteArrayAsync(cancellationToken));
        JsonElement root = body.RootElement;
        string queue = root.TryGetProperty("QueueUrl", out JsonElement url) ? url.GetString()![QueueUrlPrefix.Length..] : string.Empty;
        int entries = root.TryGetProperty("Entries", out JsonElement list) ? list.GetArrayLength() : 1;
        if (BeforeAnswer is { } before)
        {
            await before(operation, entries, cancellationToken);
        }

        return operation switch
        {
            "GetQueueUrl" => Answer($"{{\"QueueUrl\":\"{QueueUrlPrefix}{root.GetProperty("QueueName").GetString()}\"}}"),
            "SendMessage" => await SendAsync(queue, root.GetProperty("MessageBody").GetString()!, cancellationToken),
            "ReceiveMessage" => await ReceiveAsync(queue, root, cancellationToken),
            "ChangeMessageVisibilityBatch" => await ReceiptBatchAsync(queue, list, (handle, entry) => broker.ChangeVisibilityAsync(queue, handle, TimeSpan.FromSeconds(entry.GetProperty("VisibilityTimeout").GetInt32()))),
            "DeleteMessageBatch" => await ReceiptBatchAsync(queue, list, (handle, _) => broker.DeleteAsync(queue, handle)),
            _ => new HttpResponseMessage(HttpStatusCode.BadRequest) { Content = Json($"{{\"__type\":\"com.amazonaws.sqs#InvalidAction\",\"message\":\"{operation} is not scripted\"}}") },
        };
    }

    private async Task<HttpResponseMessage> SendAsync(string queue, string messageBody, CancellationToken cancellationToken)
    {
        string id = await broker.SendAsync(new SqsSendRequest { QueueName = queue, Body = messageBody }, cancellationToken);
        return Answer($"{{\"MessageId\":\"{id}\",\"MD5OfMessageBody\":\"{Md5(messageBody)}\"}}");
    }

    private async Task<HttpResponseMessage> ReceiveAsync(string queue, JsonElement root, CancellationToken cancellationToken)
    {
        int max = root.TryGetProperty("MaxNumberOfMessages", out JsonElement m) ? m.GetInt32() : 1;
        TimeSpan wait = TimeSpan.FromSeconds(root.TryGetProperty("WaitTimeSeconds", out JsonElement w) ? w.GetInt32() : 0);
        TimeSpan? visibility = root.TryGetProperty("VisibilityTimeout", out JsonElement v) ? TimeSpan.FromSeconds(v.GetInt32()) : null;
        IReadOnlyList<SqsMessage> received = await broker.ReceiveAsync(queue, max, wait, visibility, cancellationToken);
        var answer = new StringBuilder("{\"Messages\":[");
        for (int i = 0; i < received.Count; i++)
        {
            SqsMessage message = received[i];
            answer.Append(i > 0 ? "," : string.Empty)
                .Append("{\"MessageId\":").Append(JsonSerializer.Serialize(message.MessageId))
                .Append(",\"ReceiptHandle\":").Append(JsonSerializer.Serialize(message.ReceiptHandle))
                .Append(",\"MD5OfBody\":\"").Append(Md5(message.Body)).Append('"')
                .Append(",\"Body\":").Append(JsonSerializer.Serialize(message.Body))
                .Append(",\"Attributes\":{")
                .Append(string.Join(",", message.SystemAttributes.Select(a => JsonSerializer.Serialize(a.Key) + ":" + JsonSerializer.Serialize(a.Value))))
                .Append("}}");
        }

        return Answer(answer.Append("]}").ToString());
    }

    private static async Task<HttpResponseMessage> ReceiptBatchAsync(string queue, JsonElement entries, Func<string, JsonElement, Task<bool>> apply)
    {
        var successful = new List<string>();
        var failed = new List<string>();
        foreach (JsonElement entry in entries.EnumerateArray())
        {
            string id = entry.GetProperty("Id").GetString()!;
            if (await apply(entry.GetProperty("ReceiptHandle").GetString()!, entry))
            {
                successful.Add($"{{\"Id\":\"{id}\"}}");
            }
            else
            {
                failed.Add($"{{\"Id\":\"{id}\",\"SenderFault\":true,\"Code\":\"ReceiptHandleIsInvalid\",\"Message\":\"The receipt handle of queue {queue} is not valid.\"}}");
            }
        }

        return Answer($"{{\"Successful\":[{string.Join(",", successful)}],\"Failed\":[{string.Join(",", failed)}]}}");
    }

    private static string Md5(string text) => Convert.ToHexStringLower(MD5.HashData(Encoding.UTF8.GetBytes(text)));

    private static HttpResponseMessage Answer(string json) => new(HttpStatusCode.OK) { Content = Json(json) };

    private static StringContent Json(string json) => new(json, Encoding.UTF8, "application/x-amz-json-1.0");
}
