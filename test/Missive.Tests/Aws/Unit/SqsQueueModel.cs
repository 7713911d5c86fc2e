using System;
using System.Collections.Generic;
using System.Linq;
using System.Net;
using System.Net.Http;
using System.Text;
using System.Text.Json;
using System.Text.Json.Nodes;
using System.Threading;
using System.Threading.Tasks;
using Missive.Bus;

namespace Missive.Tests.Aws.Unit;

/// <summary>
/// One SQS queue behind SQS's JSON protocol, as AWS documents it, on a fake clock: visibility timeouts, a receive count
/// per message, a redrive policy (a message received more than <c>maxReceiveCount</c> times goes to the dead-letter list
/// instead), long polls that wait on the clock, and MD5 digests of bodies, wrong for the messages the test marks so.
/// </summary>
internal sealed class SqsQueueModel(TimeProvider clock, int maxReceiveCount) : HttpMessageHandler
{
    public const string QueueUrl = "https://sqs.eu-west-1.amazonaws.com/123456789012/orders";

    private readonly object _gate = new();
    private readonly List<Stored> _messages = [];
    private int _receipts;

    /// <summary>Gets the ids of the messages moved to the dead-letter queue.</summary>
    public List<string> DeadLettered { get; } = [];

    /// <summary>Gets the ids of the messages deleted.</summary>
    public List<string> Deleted { get; } = [];

    /// <summary>Gets how many messages each receive asked for, in order.</summary>
    public List<int> Asked { get; } = [];

    /// <summary>Adds a message; with <paramref name="wrongDigest"/>, its receive answers carry a digest that does not match its body.</summary>
    public void Add(string id, string body, bool wrongDigest = false)
    {
        lock (_gate)
        {
            _messages.Add(new Stored(id, body, wrongDigest));
        }
    }

    /// <summary>Gets how many messages are neither deleted nor dead-lettered.</summary>
    public int Remaining
    {
        get
        {
            lock (_gate)
            {
                return _messages.Count;
            }
        }
    }

    protected override async Task<HttpResponseMessage> SendAsync(HttpRequestMessage request, CancellationToken cancellationToken)
    {
        string target = request.Headers.TryGetValues("X-Amz-Target", out IEnumerable<string>? values) ? values.Single() : string.Empty;
        JsonObject input = JsonNode.Parse(await request.Content!.ReadAsStringAsync(cancellationToken))!.AsObject();
        JsonObject output = target switch
        {
            "AmazonSQS.GetQueueUrl" => new JsonObject { ["QueueUrl"] = QueueUrl },
            "AmazonSQS.ReceiveMessage" => await ReceiveAsync(input, cancellationToken),
            "AmazonSQS.DeleteMessageBatch" => Batch(input, entry => Delete(entry["ReceiptHandle"]!.GetValue<string>())),
            "AmazonSQS.ChangeMessageVisibilityBatch" => Batch(input, entry => ChangeVisibility(entry["ReceiptHandle"]!.GetValue<string>(), entry["VisibilityTimeout"]!.GetValue<int>())),
            _ => throw new NotSupportedException(target),
        };
        return new HttpResponseMessage(HttpStatusCode.OK) { Content = new StringContent(output.ToJsonString(), Encoding.UTF8, "application/x-amz-json-1.0") };
    }

    private async Task<JsonObject> ReceiveAsync(JsonObject input, CancellationToken cancellationToken)
    {
        int max = input["MaxNumberOfMessages"]?.GetValue<int>() ?? 1;
        int visibility = input["VisibilityTimeout"]?.GetValue<int>() ?? 30;
        DateTimeOffset until = clock.GetUtcNow() + TimeSpan.FromSeconds(input["WaitTimeSeconds"]?.GetValue<int>() ?? 0);
        lock (_gate)
        {
            Asked.Add(max);
        }

        while (true)
        {
#pragma warning disable CA5351 // SQS digests bodies with MD5; nothing here is secured by it
            var answer = new JsonArray();
            lock (_gate)
            {
                DateTimeOffset now = clock.GetUtcNow();
                foreach (Stored message in _messages.Where(m => m.VisibleAt <= now).Take(max).ToList())
                {
                    if (++message.Receives > maxReceiveCount)
                    {
                        _messages.Remove(message); // the redrive policy moves it instead of delivering it
                        DeadLettered.Add(message.Id);
                        continue;
                    }

                    message.VisibleAt = now + TimeSpan.FromSeconds(visibility);
                    message.Receipt = "receipt-" + (++_receipts);
                    answer.Add(new JsonObject
                    {
                        ["MessageId"] = message.Id,
                        ["ReceiptHandle"] = message.Receipt,
                        ["MD5OfBody"] = message.WrongDigest ? new string('0', 32) : Convert.ToHexStringLower(System.Security.Cryptography.MD5.HashData(Encoding.UTF8.GetBytes(message.Body))),
                        ["Body"] = message.Body,
                        ["Attributes"] = new JsonObject { ["ApproximateReceiveCount"] = message.Receives.ToString(System.Globalization.CultureInfo.InvariantCulture) },
                    });
                }
            }

#pragma warning restore CA5351
            if (answer.Count > 0 || clock.GetUtcNow() >= until)
            {
                return new JsonObject { ["Messages"] = answer };
            }

            await ClockDelay.WaitAsync(clock, TimeSpan.FromMilliseconds(200), cancellationToken);
        }
    }

    private static JsonObject Batch(JsonObject input, Func<JsonObject, bool> apply)
    {
        var successful = new JsonArray();
        foreach (JsonNode? entry in input["Entries"]!.AsArray())
        {
            apply(entry!.AsObject());
            successful.Add(new JsonObject { ["Id"] = entry["Id"]!.GetValue<string>() });
        }

        return new JsonObject { ["Successful"] = successful, ["Failed"] = new JsonArray() };
    }

    private bool Delete(string receipt)
    {
        lock (_gate)
        {
            Stored? message = _messages.FirstOrDefault(m => m.Receipt == receipt);
            if (message is not null)
            {
                _messages.Remove(message);
                Deleted.Add(message.Id);
            }

            return true;
        }
    }

    private bool ChangeVisibility(string receipt, int seconds)
    {
        lock (_gate)
        {
            if (_messages.FirstOrDefault(m => m.Receipt == receipt) is { } message)
            {
                message.VisibleAt = clock.GetUtcNow() + TimeSpan.FromSeconds(seconds);
            }

            return true;
        }
    }

    private sealed class Stored(string id, string body, bool wrongDigest)
    {
        public string Id { get; } = id;

        public string Body { get; } = body;

        public bool WrongDigest { get; } = wrongDigest;

        public DateTimeOffset VisibleAt { get; set; }

        public string? Receipt { get; set; }

        public int Receives { get; set; }
    }
}
