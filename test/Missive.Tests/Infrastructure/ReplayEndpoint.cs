using System;
using System.Collections.Generic;
using System.Net;
using System.Net.Http;
using System.Net.Http.Headers;
using System.Security.Cryptography;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using Missive.Transport;

namespace Missive.Tests.Infrastructure;

/// <summary>
/// SQS, SNS and EventBridge in process, answering every call of an operation with one recorded answer (built once from the bodies, with
/// their real MD5 digests) and never reading the request: what it costs is the same for both clients, and small.
/// Shared by the transport allocation tests and the transport benchmark (linked there).
/// </summary>
[System.Diagnostics.CodeAnalysis.SuppressMessage("Security", "CA5351", Justification = "SQS defines its body digest as MD5.")]
public sealed class ReplayEndpoint : HttpMessageHandler
{
    public const string QueueUrl = "https://sqs.eu-west-1.amazonaws.com/123456789012/bench";

    private static readonly MediaTypeHeaderValue JsonType = new("application/x-amz-json-1.0");
    private static readonly MediaTypeHeaderValue XmlType = new("text/xml");
    private readonly byte[] _receive, _sent, _deleted, _published, _put;

    public ReplayEndpoint(IReadOnlyList<SqsMessage> messages)
    {
        var receive = new StringBuilder("{\"Messages\":[");
        var sent = new StringBuilder("{\"Successful\":[");
        var deleted = new StringBuilder("{\"Successful\":[");
        var published = new StringBuilder("<PublishBatchResponse xmlns=\"http://sns.amazonaws.com/doc/2010-03-31/\"><PublishBatchResult><Successful>");
        var put = new StringBuilder("{\"FailedEntryCount\":0,\"Entries\":[");
        for (int i = 0; i < messages.Count; i++)
        {
            SqsMessage m = messages[i];
            string md5 = Convert.ToHexStringLower(MD5.HashData(Encoding.UTF8.GetBytes(m.Body)));
            string comma = i > 0 ? "," : string.Empty;
            receive.Append(comma).Append("{\"MessageId\":\"").Append(m.MessageId).Append("\",\"ReceiptHandle\":\"").Append(m.ReceiptHandle)
                .Append("\",\"MD5OfBody\":\"").Append(md5).Append("\",\"Body\":").Append(System.Text.Json.JsonSerializer.Serialize(m.Body))
                .Append(",\"Attributes\":{\"ApproximateReceiveCount\":\"1\",\"SentTimestamp\":\"1762180029441\",\"ApproximateFirstReceiveTimestamp\":\"1762180029452\"}}");
            sent.Append(comma).Append("{\"Id\":\"").Append(i).Append("\",\"MessageId\":\"").Append(m.MessageId).Append("\",\"MD5OfMessageBody\":\"").Append(md5).Append("\"}");
            deleted.Append(comma).Append("{\"Id\":\"").Append(i).Append("\"}");
            published.Append("<member><Id>").Append(i).Append("</Id><MessageId>").Append(m.MessageId).Append("</MessageId></member>");
            put.Append(comma).Append("{\"EventId\":\"").Append(m.MessageId).Append("\"}");
        }

        _receive = Encoding.UTF8.GetBytes(receive.Append("]}").ToString());
        _sent = Encoding.UTF8.GetBytes(sent.Append("],\"Failed\":[]}").ToString());
        _deleted = Encoding.UTF8.GetBytes(deleted.Append("],\"Failed\":[]}").ToString());
        _published = Encoding.UTF8.GetBytes(published.Append("</Successful><Failed/></PublishBatchResult><ResponseMetadata><RequestId>r-1</RequestId></ResponseMetadata></PublishBatchResponse>").ToString());
        _put = Encoding.UTF8.GetBytes(put.Append("]}").ToString());
    }

    protected override Task<HttpResponseMessage> SendAsync(HttpRequestMessage request, CancellationToken cancellationToken)
    {
        // SNS speaks the Query protocol (no target header, an XML answer); SQS and EventBridge name the operation in X-Amz-Target.
        bool sns = request.Headers.TryGetValues("X-Amz-Target", out IEnumerable<string>? values) is false;
        var content = new ByteArrayContent(sns ? _published : Of(values!));
        content.Headers.ContentType = sns ? XmlType : JsonType;
        return Task.FromResult(new HttpResponseMessage(HttpStatusCode.OK) { Content = content, RequestMessage = request });
    }

    private byte[] Of(IEnumerable<string> targets)
    {
        foreach (string target in targets)
        {
            return target switch
            {
                "AmazonSQS.ReceiveMessage" => _receive,
                "AmazonSQS.SendMessageBatch" => _sent,
                "AmazonSQS.DeleteMessageBatch" => _deleted,
                "AWSEvents.PutEvents" => _put,
                _ => "{}"u8.ToArray(),
            };
        }

        return [];
    }
}
